import { isIP } from 'node:net';
import 'reflect-metadata';
import type { Server } from 'node:http';
import { type INestApplication, type LoggerService, type LogLevel, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ElicitationModule, type ElicitationModuleOptions, type OAuthProviderOptions } from '../../src/index.js';
import { BenchController } from './bench.controller.js';
import { BenchPeerController } from './bench-peer.controller.js';
import { DEMO_ALLOWED_HOSTS, userFromCookie } from './demo-identity.js';
import { DemoLoginController } from './demo-login.controller.js';
import { DemoMetricsController, demoMetricsReader } from './demo-metrics.js';
import { demoNotifyOptions, type DemoNotifySettings } from './demo-notify.js';
import { freePort, limitSlowClients } from './http-server.js';
import { createDemoOidc, DEMO_OIDC_PATH } from './demo-oidc.js';
import { DEMO_OIDC_PROVIDER, DemoToolsService } from './demo-tools.service.js';
import { McpController } from './mcp.controller.js';
import { MCP_SESSION_OPTIONS, mcpSessionOptions, type DemoSessionSettings } from './mcp-sessions.js';

/** Settings of the demo app (from the environment in `main.ts`, from the tests directly). */
interface DemoAppOptions extends DemoSessionSettings {
  /** Interface to listen on. @default '127.0.0.1' */
  host?: string;
  /** Port to listen on; 0 picks a free one (then `publicUrl` is derived after listening). @default 3000 */
  port?: number;
  /** Public origin used in elicitation URLs. @default `http://<host>:<port>` */
  publicUrl?: string;
  /** Lifetime of elicitations in milliseconds. @default the module's default (10 minutes) */
  ttlMs?: number;
  /** What "Need more time?" adds to a pending elicitation, in milliseconds. @default the module's default (its own lifetime) */
  extendMs?: number;
  /** Lifetime of a sealed 2026-07-28 `requestState` in milliseconds. @default the module's default (10 minutes) */
  requestStateTtlMs?: number;
  /** How long a 2026-07-28 retry waits for a pending page before asking the client to retry. @default the module's default (20 s) */
  pendingRetryWaitMs?: number;
  /** Unanswered 2026-07-28 retries of a page question before the link result. @default the module's default (8) */
  pendingRetryRounds?: number;
  /** How long a 2025-11-25 call without a progress token waits for a person. @default the module's default (50 s) */
  callWaitMs?: number;
  /** A client decline sooner than this (ms) moves the question down the fallback ladder. @default the module's default (off) */
  instantDeclineMs?: number;
  /** Progress notifications while a 2025-11-25 call waits for a person, every this many ms. @default the module's default (15 s) */
  keepAliveMs?: number;
  /** Sweep interval in milliseconds. @default the module's default (60 s) */
  cleanupIntervalMs?: number;
  /** An instance's claim on a task it runs, in milliseconds (`tasks.leaseMs`). @default the module's default (30 s) */
  taskLeaseMs?: number;
  /** How long a task lives, in milliseconds (`tasks.ttlMs`). @default the module's default (1 day) */
  taskTtlMs?: number;
  /** The module's `clientPolicy` (tests only: the demo acts on what clients declare). @default none */
  clientPolicy?: ElicitationModuleOptions['clientPolicy'];
  /** Nest logger setting. @default Nest's console logger */
  logger?: LoggerService | LogLevel[] | false;
  /** Which store: in memory (one process), Redis or PostgreSQL (several instances sharing it). @default 'memory' */
  store?: 'memory' | 'redis' | 'postgres';
  /** PostgreSQL connection string for `store: 'postgres'`. @default 'postgres://postgres@127.0.0.1:5432/postgres' */
  databaseUrl?: string;
  /** Table prefix in PostgreSQL; instances that share elicitations use the same one. @default 'elicitation_' */
  postgresPrefix?: string;
  /** Redis URL for `store: 'redis'`. @default 'redis://127.0.0.1:6379' */
  redisUrl?: string;
  /** Key prefix (and hash tag) in Redis; instances that share elicitations use the same one. @default 'elicitation' */
  redisPrefix?: string;
  /** Page and status requests one IP may make per minute. @default the module's default (300) */
  throttleLimit?: number;
  /** Elicitations one user may create per minute. @default the module's default (10) */
  createPerMinute?: number;
  /**
   * 32-byte key (base64 or hex), or a ring of them (the first seals), for secrets at rest and CSRF tokens. Required
   * with `store: 'redis'` (the module refuses to start without it); instances sharing a store need the same.
   * @default a random per-process key on the memory store
   */
  encryptionKey?: string | string[];
  /** HTTP platform: Nest's Express adapter or its Fastify adapter (with `@fastify/formbody`). @default 'express' */
  adapter?: 'express' | 'fastify';
  /** BENCHMARK ONLY: also serve the `/bench/*` routes of `bench.controller.ts`. Never in a deployed app. @default false */
  bench?: boolean;
  /**
   * The OAuth provider `connect-account` connects to (`oauth.providers.demo`): by default the development OpenID
   * provider mounted at `/demo/oidc`, when the public URL is a loopback host (it trusts anyone who types a name);
   * `{ accessTokenTtlS }` shortens its access tokens; `{ provider }` uses another (tests: one provider shared by
   * several instances); `false`: none. @default the mounted development provider, 1-hour tokens, on loopback
   */
  oidc?: false | { accessTokenTtlS?: number } | { provider: OAuthProviderOptions };
  /**
   * Notifications (`demo-notify.ts`): a signed webhook, or `webhookUrl: 'log'` (each notice printed to the log), with
   * reminders and the outbox's timings. @default none
   */
  notify?: DemoNotifySettings;
}

/** The running demo: the Nest app and the URLs a newcomer needs. */
export interface DemoApp {
  app: INestApplication;
  /** Origin the app is reachable at, e.g. `http://127.0.0.1:3000`. */
  url: string;
  /** The MCP endpoint. */
  mcpUrl: string;
}

/**
 * Builds, starts and returns the demo app (on the store asked for). Signals are the caller's: `main.ts` enables
 * the shutdown hooks; tests close the app themselves.
 */
export async function startDemoApp(options: DemoAppOptions = {}): Promise<DemoApp> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port === 0 ? await freePort(host) : (options.port ?? 3000);
  const displayHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  const url = (options.publicUrl ?? `http://${displayHost}:${port}`).replace(/\/+$/, '');
  const allowedHosts = new Set(['localhost', '127.0.0.1', '[::1]', new URL(url).hostname.toLowerCase()]);
  const adapter = options.adapter ?? 'express';
  if (adapter !== 'express' && adapter !== 'fastify') {
    throw new Error(`ELICITATION_ADAPTER must be "express" or "fastify", got "${String(adapter)}"`);
  }
  const mcpSessions = mcpSessionOptions(options);
  // Checked before any store connects: a webhook URL without its secret stops the start here, naming the variable.
  const notify = demoNotifyOptions(options.notify);
  const storeKind = options.store ?? 'memory';
  if (storeKind !== 'memory' && storeKind !== 'redis' && storeKind !== 'postgres') {
    throw new Error(`ELICITATION_STORE must be "memory", "redis" or "postgres", got "${String(storeKind)}"`);
  }
  // Loaded only when asked for, so the in-memory demo never loads ioredis or pg.
  let store: ElicitationModuleOptions['store'];
  if (storeKind === 'redis') {
    store = new (await import('../../src/redis/index.js')).RedisElicitationStore(options.redisUrl ?? 'redis://127.0.0.1:6379', {
      keyPrefix: options.redisPrefix,
    });
  } else if (storeKind === 'postgres') {
    const { PostgresElicitationStore } = await import('../../src/postgres/index.js');
    const postgres = new PostgresElicitationStore(options.databaseUrl ?? 'postgres://postgres@127.0.0.1:5432/postgres', {
      tablePrefix: options.postgresPrefix,
    });
    // DEMO ONLY: an app runs the files of sql/postgres/ with its migration tool instead.
    await postgres.createSchema();
    store = postgres;
  }

  // DEMO ONLY: the development authorization server `connect-account` connects to, on loopback origins only.
  const shared = options.oidc && 'provider' in options.oidc ? options.oidc.provider : undefined;
  const mounted =
    options.oidc !== false && !shared && isLoopbackOrigin(url)
      ? await createDemoOidc({
          issuer: `${url}${DEMO_OIDC_PATH}`,
          redirectUris: [`${url}/elicit/oauth/callback`],
          accessTokenTtlS: options.oidc && 'accessTokenTtlS' in options.oidc ? options.oidc.accessTokenTtlS : undefined,
        })
      : undefined;
  const oauthProvider = shared ?? mounted?.provider;

  @Module({
    imports: [
      ElicitationModule.forRoot({
        baseUrl: url,
        ttlMs: options.ttlMs,
        extendMs: options.extendMs,
        cleanupIntervalMs: options.cleanupIntervalMs,
        requestStateTtlMs: options.requestStateTtlMs,
        pendingRetryWaitMs: options.pendingRetryWaitMs,
        pendingRetryRounds: options.pendingRetryRounds,
        callWaitMs: options.callWaitMs,
        instantDeclineMs: options.instantDeclineMs,
        keepAliveMs: options.keepAliveMs,
        // The conformance suite's client sends no credentials: its tasks are bound to no user.
        tasks: {
          leaseMs: options.taskLeaseMs,
          ttlMs: options.taskTtlMs,
          allowAnonymous: process.env.MCP_CONFORMANCE === '1',
          createPerMinute: options.createPerMinute,
        },
        clientPolicy: options.clientPolicy,
        title: 'nestjs-mcp-elicitation demo',
        store,
        encryptionKey: options.encryptionKey,
        throttle: options.throttleLimit ? { limit: options.throttleLimit } : undefined,
        limits: options.createPerMinute
          ? {
              createPerMinute: options.createPerMinute,
              maxPendingPerUser: options.createPerMinute,
              maxPending: Math.max(options.createPerMinute, 100_000),
            }
          : undefined,
        resolvePageUser: userFromCookie,
        loginUrl: '/demo/login',
        // The passkey page in every page's bar (`transfer-funds` asks its approvers for one), where passkeys can work:
        // browsers make them for a domain name only (PUBLIC_URL=http://localhost:3000 npm start).
        ...(isIP(new URL(url).hostname.replace(/^\[|\]$/g, '')) === 0 && { passkeys: {} }),
        ...notify,
        ...(oauthProvider && {
          oauth: { providers: { [DEMO_OIDC_PROVIDER]: oauthProvider } },
          // The development provider is served over plain http on this loopback origin.
          externalUrlPolicy: { allowHttpLoopback: true },
        }),
      }),
    ],
    controllers: [
      McpController,
      DemoLoginController,
      DemoMetricsController,
      ...(options.bench ? [BenchController, BenchPeerController] : []),
    ],
    providers: [
      DemoToolsService,
      { provide: DEMO_ALLOWED_HOSTS, useValue: allowedHosts },
      { provide: MCP_SESSION_OPTIONS, useValue: mcpSessions },
    ],
  })
  class DemoAppModule {}

  // The global MeterProvider (GET /metrics) is in place before the module takes its meter at init.
  demoMetricsReader();
  let app: INestApplication;
  if (adapter === 'fastify') {
    // Loaded only when asked for, so the Express demo never loads Fastify.
    const { FastifyAdapter } = await import('@nestjs/platform-fastify');
    const { default: formbody } = await import('@fastify/formbody');
    // Urlencoded page posts are parsed by @fastify/formbody (registered below), JSON (MCP) by Fastify's own
    // parser: Nest's parsers are left out, as the two would register the same content type twice.
    const fastifyApp = await NestFactory.create<NestFastifyApplication>(DemoAppModule, new FastifyAdapter(), {
      logger: options.logger,
      bodyParser: false,
    });
    await fastifyApp.register(formbody);
    app = fastifyApp;
  } else {
    app = await NestFactory.create(DemoAppModule, { logger: options.logger });
  }
  if (mounted) app.use(DEMO_OIDC_PATH, mounted.handler);
  await app.listen(port, host);
  limitSlowClients(app.getHttpServer() as Server);
  return { app, url, mcpUrl: `${url}/mcp` };
}

/** Whether the demo's public origin is this machine (the development provider is mounted only there). */
function isLoopbackOrigin(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\./.test(host);
}
