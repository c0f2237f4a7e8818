/**
 * BENCHMARK BASELINE: the secure stack a Nest user would build instead of this module's pages, on the same adapter and
 * the same Nest major as the demo (bench/http.bench.ts loads it next to the demo: the `vs the secure stack` rows).
 * Idiomatic on each adapter:
 *  - Express: `helmet` (the module's policy, with a CSP nonce per response from `res.locals`, as helmet's docs do it),
 *    `cookie-parser`, `csrf-csrf` (double-submit cookie bound to the user, applied to the pages' controller through
 *    Nest's MiddlewareConsumer, after the body parser);
 *  - Fastify: `@fastify/helmet` (the same policy, `enableCSPNonces`), `@fastify/cookie`, `@fastify/formbody`,
 *    `@fastify/csrf-protection` (a secret cookie, checked in a `preHandler` hook on the pages' posts);
 *  - both: `@nestjs/throttler` as a global guard with one throttler of `throttleTtlMs` (its in-memory storage keeps one
 *    expiry per hit in the window, so its cost grows with the window), a limit that never refuses the load, and the
 *    sealed `Map` and Handlebars pages of this folder.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type INestApplication, type MiddlewareConsumer, Module, type NestModule } from '@nestjs/common';
import { APP_GUARD, NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ThrottlerGuard, ThrottlerModule } from '@nestjs/throttler';
import { SealedRecords } from './sealed-records.js';
import { SECURE_ADAPTER_PARTS, SecurePagesController, SecureSeedController, type SecureAdapterParts } from './secure-pages.controller.js';

export interface SecureStackOptions {
  adapter: 'express' | 'fastify';
  /** The throttler's window, in ms. */
  throttleTtlMs: number;
  host: string;
  port: number;
}

/** Requests one client may make per window: never reached by the bench (the stack's cost is measured, not its refusals). */
const THROTTLE_LIMIT = 1_000_000_000;

/** The module's CSP (src/http/page-security.ts) without the nonces, which each adapter's helmet adds its own way. */
const DIRECTIVES = {
  defaultSrc: ["'none'"],
  imgSrc: ["'self'", 'https:', 'data:'],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
};
const HELMET_OPTIONS = {
  frameguard: { action: 'deny' as const },
  referrerPolicy: { policy: 'no-referrer' as const },
  strictTransportSecurity: false,
  crossOriginEmbedderPolicy: false,
};

export async function startSecureStack(options: SecureStackOptions): Promise<INestApplication> {
  const csrfSecret = randomBytes(32).toString('hex');
  const express = options.adapter === 'express' ? await expressParts(csrfSecret) : undefined;

  @Module({
    imports: [ThrottlerModule.forRoot([{ ttl: options.throttleTtlMs, limit: THROTTLE_LIMIT }])],
    controllers: [SecurePagesController, SecureSeedController],
    providers: [
      SealedRecords,
      { provide: APP_GUARD, useClass: ThrottlerGuard },
      { provide: SECURE_ADAPTER_PARTS, useValue: express?.parts ?? FASTIFY_PARTS },
    ],
  })
  class SecureStackModule implements NestModule {
    configure(consumer: MiddlewareConsumer): void {
      if (express) consumer.apply(express.protection).forRoutes(SecurePagesController);
    }
  }

  let app: INestApplication;
  if (options.adapter === 'fastify') {
    const { FastifyAdapter } = await import('@nestjs/platform-fastify');
    const fastifyApp = await NestFactory.create<NestFastifyApplication>(SecureStackModule, new FastifyAdapter(), {
      logger: false,
      bodyParser: false,
    });
    await registerFastifyPlugins(fastifyApp, csrfSecret);
    app = fastifyApp;
  } else {
    app = await NestFactory.create(SecureStackModule, { logger: false });
    const { default: cookieParser } = await import('cookie-parser');
    const { default: helmet } = await import('helmet');
    app.use(cookieParser());
    app.use((_req: IncomingMessage, res: ServerResponse & { locals: Record<string, unknown> }, next: () => void) => {
      res.locals.cspNonce = randomBytes(16).toString('base64');
      next();
    });
    const nonce = (_req: IncomingMessage, res: ServerResponse) => `'nonce-${(res as ExpressResponse).locals.cspNonce}'`;
    app.use(
      helmet({
        ...HELMET_OPTIONS,
        contentSecurityPolicy: { useDefaults: false, directives: { ...DIRECTIVES, styleSrc: [nonce], scriptSrc: [nonce] } },
      }),
    );
  }
  await app.listen(options.port, options.host);
  return app;
}

type ExpressResponse = ServerResponse & { locals: { cspNonce: string } };

/** Express: csrf-csrf's double-submit cookie, bound to the signed-in user. */
async function expressParts(
  secret: string,
): Promise<{ parts: SecureAdapterParts; protection: (req: never, res: never, next: () => void) => void }> {
  const { doubleCsrf } = await import('csrf-csrf');
  const { generateCsrfToken, doubleCsrfProtection } = doubleCsrf({
    getSecret: () => secret,
    getSessionIdentifier: (req) => (req.cookies as Record<string, string | undefined>).demo_user ?? '',
    cookieName: 'csrf',
    // Plain http on loopback in the bench: a `__Host-` name and `Secure` need https.
    cookieOptions: { sameSite: 'strict', path: '/', secure: false, httpOnly: true },
    getCsrfTokenFromRequest: (req) => {
      const token = (req.body as Record<string, unknown> | undefined)?._csrf;
      return typeof token === 'string' ? token : undefined;
    },
  });
  return {
    parts: {
      csrfToken: (req, res) =>
        generateCsrfToken(req as Parameters<typeof generateCsrfToken>[0], res as Parameters<typeof generateCsrfToken>[1]),
      nonces: (res) => {
        const nonce = (res as ExpressResponse).locals.cspNonce;
        return { style: nonce, script: nonce };
      },
    },
    protection: doubleCsrfProtection,
  };
}

interface FastifyReplyParts {
  generateCsrf(): string;
  cspNonce: { script: string; style: string };
}

/** Fastify: @fastify/csrf-protection's token, @fastify/helmet's nonces. */
const FASTIFY_PARTS: SecureAdapterParts = {
  csrfToken: (_req, res) => (res as FastifyReplyParts).generateCsrf(),
  nonces: (res) => (res as FastifyReplyParts).cspNonce,
};

async function registerFastifyPlugins(app: NestFastifyApplication, secret: string): Promise<void> {
  const { default: cookie } = await import('@fastify/cookie');
  const { default: formbody } = await import('@fastify/formbody');
  const { default: helmet } = await import('@fastify/helmet');
  const { default: csrf } = await import('@fastify/csrf-protection');
  await app.register(cookie, { secret });
  await app.register(formbody);
  await app.register(helmet, {
    ...HELMET_OPTIONS,
    enableCSPNonces: true,
    contentSecurityPolicy: { useDefaults: false, directives: { ...DIRECTIVES, styleSrc: [], scriptSrc: [] } },
  });
  await app.register(csrf, {
    cookieOpts: { path: '/', sameSite: 'strict', httpOnly: true },
    getToken: (req) => (req.body as Record<string, string> | undefined)?._csrf,
  });
  const fastify = app.getHttpAdapter().getInstance();
  // The pages' posts only (the seeding routes are the bench's own).
  fastify.addHook('preHandler', (req, reply, done) => {
    if (req.method === 'POST' && req.url.startsWith('/elicit/')) fastify.csrfProtection(req, reply, done);
    else done();
  });
}
