/**
 * `ElicitationFrameworkErrors` on a real Express adapter and HTTP server, without a Nest app around them: which
 * framework error (a real body-parser refusal, an http-errors error, a Nest exception, a broken escape, no route) gets
 * which status and text of the module's, on which paths (the prefix in any case, under the global prefix and the base
 * path), and that everything else reaches Nest's own handlers (stood in for here by handlers that answer "nest").
 * The whole app over HTTP, on both adapters, is e2e/security/error-headers.e2e-spec.ts.
 */
import { once } from 'node:events';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { UnauthorizedException } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { TestingModule } from '@nestjs/testing';
import express, { type NextFunction, type Request, type Response } from 'express';
import createError from 'http-errors';
import { ElicitationFrameworkErrors } from '../../src/http/elicitation-framework-errors.js';
import { ElicitationPageFilter } from '../../src/http/elicitation-page.filter.js';
import { ElicitationStatusFilter } from '../../src/http/elicitation-status.filter.js';
import { PAGE_MESSAGES } from '../../src/messages/default-messages.js';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';
import { ELICITATION_PAGE_OPTIONS, type ElicitationPageOptions } from '../../src/options/page-options.js';
import { compileElicitation } from '../support/testing-module.js';
import { captureLogs } from './http-exchange.support.js';

const ID = '1b4e28ba-2fa1-41d2-883f-0016d3cca427';
const { errors, headings } = PAGE_MESSAGES;

/** The errors a route under `/…/raise/<name>` hands on to the exception layer. */
const RAISED: Record<string, () => unknown> = {
  'not-found': () => createError(404, `Cannot GET /elicit/${ID}/secret-path`),
  unauthorized: () => new UnauthorizedException('Sign in at the host first'),
  'http-error-422': () => createError(422, 'field apiKey=sk-live-SECRET is wrong'),
  'http-error-503': () => createError(503, 'upstream sk-live-SECRET down'),
  plain: () => new Error('boom sk-live-SECRET'),
  'status-out-of-range': () => Object.assign(new Error('odd sk-live-SECRET'), { status: 302 }),
};

interface Answer {
  status: number;
  type: string | null;
  body: string;
}

interface Mounted {
  url: string;
  /** What reached the stand-ins for Nest's handlers, by path. */
  nest: string[];
  close(): Promise<void>;
}

/**
 * A real Express app on a real server, wrapped as Nest wraps it: the module's hooks installed in `onModuleInit`, then
 * Nest's not-found and exception-layer handlers given to the adapter (`globalPrefix` as Nest hands it over).
 */
async function mount(moduleRef: TestingModule, globalPrefix?: string): Promise<Mounted> {
  const instance = express();
  const adapter = new ExpressAdapter(instance);
  const server: Server = createServer(instance);
  adapter.setHttpServer(server);
  const host = new HttpAdapterHost();
  host.httpAdapter = adapter;
  const frameworkErrors = new ElicitationFrameworkErrors(
    host,
    moduleRef.get<ElicitationPageOptions>(ELICITATION_PAGE_OPTIONS),
    moduleRef.get(ElicitationPageFilter),
    moduleRef.get(ElicitationStatusFilter),
  );
  frameworkErrors.onModuleInit();
  // The app's parsers (small limits), then routes that hand an error on, then Nest's two handlers.
  instance.use(express.json({ limit: 64 }));
  instance.use(express.urlencoded({ extended: true, limit: 64 }));
  instance.all('/{*prefix}/raise/:name', (req: Request, res: Response, next: NextFunction) => {
    const name = String(req.params.name);
    if (name === 'sent') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial ');
      next(new Error('after the headers'));
      return;
    }
    next(RAISED[name]());
  });
  instance.post('/{*prefix}/posted', (_req: Request, res: Response) => res.send('read'));
  const nest: string[] = [];
  adapter.setNotFoundHandler((req: Request, res: Response) => {
    nest.push(`not-found ${req.originalUrl}`);
    res.status(404).json({ nest: 'not found' });
  }, globalPrefix);
  adapter.setErrorHandler((_error: unknown, req: Request, res: Response, _next: NextFunction) => {
    nest.push(`error ${req.originalUrl}`);
    if (res.headersSent) return void res.end('nest');
    res.status(500).json({ nest: 'error' });
  }, globalPrefix);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    nest,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function send(at: Mounted, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  const res = await fetch(at.url + path, { method, headers, body, redirect: 'manual' });
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
}

/** The module's error page with this status and text, and none of `raw`. */
function expectPage(answer: Answer, status: number, text: string, raw: string[] = []): void {
  expect({ status: answer.status, type: answer.type }).toEqual({ status, type: 'text/html; charset=utf-8' });
  expect(answer.body).toContain(text);
  expect(answer.body).toContain(errors.statusLine(status));
  for (const piece of ['sk-live-SECRET', 'Cannot ', 'secret-path', ...raw]) expect(answer.body).not.toContain(piece);
}

/** The status route's JSON error with this status and message. */
function expectJson(answer: Answer, status: number, message: string): void {
  expect({ status: answer.status, type: answer.type }).toEqual({ status, type: 'application/json; charset=utf-8' });
  expect(JSON.parse(answer.body)).toMatchObject({ statusCode: status, message });
}

describe('ElicitationFrameworkErrors', () => {
  let moduleRef: TestingModule;
  let at: Mounted;
  let logs: ReturnType<typeof captureLogs>;

  beforeAll(async () => {
    moduleRef = await compileElicitation();
    logs = captureLogs();
    at = await mount(moduleRef);
  });
  afterAll(async () => {
    logs.restore();
    await at.close();
    await moduleRef.close();
  });

  describe("the app's body parsers, on a page post", () => {
    it('a body over the limit: 413 "too much data"', async () => {
      const answer = await send(
        at,
        'POST',
        `/elicit/${ID}/posted`,
        { 'content-type': 'application/json' },
        JSON.stringify({ a: 'x'.repeat(100) }),
      );
      expectPage(answer, 413, errors.tooMuchData);
    });

    it('malformed JSON: 400 "could not be read", nothing of the body or the parser message echoed', async () => {
      const answer = await send(at, 'POST', `/elicit/${ID}/posted`, { 'content-type': 'application/json' }, '{"apiKey": sk-live-SECRET');
      expectPage(answer, 400, errors.unreadable, ['Unexpected token', 'JSON']);
    });

    it('a charset the parser does not take: 415 "format not accepted"', async () => {
      const answer = await send(
        at,
        'POST',
        `/elicit/${ID}/posted`,
        { 'content-type': 'application/x-www-form-urlencoded; charset=utf-16' },
        'a=b',
      );
      expectPage(answer, 415, errors.unsupportedBody, ['utf-16']);
    });

    it('the same on the status route, as its JSON', async () => {
      const answer = await send(at, 'POST', `/elicit/${ID}/status`, { 'content-type': 'application/json' }, '{"x": sk-live-SECRET');
      // No route takes a post to status here: the parser refuses first, then it is the status route's 400.
      expectJson(answer, 400, errors.unreadable);
    });
  });

  describe('errors handed to the exception layer', () => {
    it('404: the pages\' "no such page"', async () => {
      expectPage(await send(at, 'GET', `/elicit/${ID}/raise/not-found`), 404, errors.noSuchPage);
    });

    it("another Nest exception (an app middleware's 401) is answered as it is, its own text on the module's page", async () => {
      const answer = await send(at, 'GET', `/elicit/${ID}/raise/unauthorized`);
      expectPage(answer, 401, 'Sign in at the host first');
      expect(answer.body).toContain(headings.byStatus[401]);
    });

    it("any other client error keeps its status with the module's text, never the error's message", async () => {
      expectPage(await send(at, 'GET', `/elicit/${ID}/raise/http-error-422`), 422, errors.unreadable);
    });

    it('a server error, a plain error, or a status outside 400-599: the plain 500 page (logged)', async () => {
      for (const name of ['http-error-503', 'plain', 'status-out-of-range']) {
        expectPage(await send(at, 'GET', `/elicit/${ID}/raise/${name}`), 500, errors.unexpected);
      }
      expect(logs.error.length).toBeGreaterThanOrEqual(3);
    });

    it("an answer already under way is left to Nest's handler", async () => {
      const answer = await send(at, 'GET', `/elicit/${ID}/raise/sent`);
      expect(answer.body).toBe('partial nest');
      expect(at.nest).toContain(`error /elicit/${ID}/raise/sent`);
    });
  });

  describe('paths no route takes', () => {
    it.each([`/elicit/${ID}/nope`, `/ELICIT/${ID}/Nope`, `/elicit/${ID}`, '/elicit/', '/elicit'])(
      '%s: the pages\' 404 "no such page"',
      async (path) => {
        expectPage(await send(at, 'GET', path), 404, errors.noSuchPage);
      },
    );

    it.each([`/elicit/${ID}/status`, `/elicit/${ID}/STATUS/`, '/elicit//status'])("%s: the status route's JSON 404", async (path) => {
      expectJson(await send(at, 'PUT', path), 404, errors.notFound);
    });

    it("leaves every other path to Nest's handlers, a path that merely contains the prefix too", async () => {
      for (const path of ['/other', '/elicitation/x', '/api/elicit/x']) {
        const answer = await send(at, 'GET', path);
        expect({ path, status: answer.status, body: answer.body }).toEqual({ path, status: 404, body: '{"nest":"not found"}' });
      }
      const raised = await send(at, 'GET', '/host/raise/plain');
      expect(raised.body).toBe('{"nest":"error"}');
    });
  });

  describe('before any framework: paths no router can take apart', () => {
    it('a percent-escape that does not decode: 400 "could not be read", the escape never echoed', async () => {
      expectPage(await send(at, 'GET', `/elicit/%E0%A4%A/api-key`), 400, errors.unreadable, ['%E0%A4%A']);
      expectJson(await send(at, 'GET', `/elicit/%zz/status`), 400, errors.unreadable);
    });

    it('a segment longer than a route parameter may be: the same 404 as a malformed id', async () => {
      const long = 'a'.repeat(101);
      expectPage(await send(at, 'GET', `/elicit/${long}/api-key`), 404, errors.notFound, [long]);
    });

    it('an escape in the query, or a good escape in the path, goes on to the routes', async () => {
      expectPage(await send(at, 'GET', `/elicit/${ID}/nope?q=%zz`), 404, errors.noSuchPage);
      expectPage(await send(at, 'GET', `/elicit/${ID}/n%C3%B6pe`), 404, errors.noSuchPage);
    });

    it('an absolute-form request target is routed by its path', async () => {
      const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(`${at.url}/`, { path: `http://example.com/elicit/%zz/api-key` }, (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        });
        req.on('error', reject);
        req.end();
      });
      expect(status).toBe(400);
      expect(body).toContain(errors.unreadable);
    });

    it('leaves a broken escape outside the prefix to the framework', async () => {
      const answer = await send(at, 'GET', '/other/%zz');
      expect(answer.body).toBe('{"nest":"not found"}');
    });
  });
});

describe('ElicitationFrameworkErrors mounts', () => {
  async function mounted(options: Partial<ElicitationModuleOptions>, globalPrefix?: string) {
    const moduleRef = await compileElicitation(options);
    const at = await mount(moduleRef, globalPrefix);
    return { at, close: async () => (await at.close(), await moduleRef.close()) };
  }

  it("under Nest's global prefix, in any letter case", async () => {
    const { at, close } = await mounted({}, 'api');
    try {
      expectPage(await send(at, 'GET', `/api/elicit/${ID}/nope`), 404, errors.noSuchPage);
      expectPage(await send(at, 'GET', `/API/Elicit/${ID}/nope`), 404, errors.noSuchPage);
      // Outside the global prefix Nest mounts no not-found handler: Express's own answers, untouched.
      const outside = await send(at, 'GET', `/v2/elicit/${ID}/nope`);
      expect(outside.status).toBe(404);
      expect(outside.body).toContain('Cannot GET');
    } finally {
      await close();
    }
  });

  it("under baseUrl's path, and another routePrefix", async () => {
    const moduleRef = await compileElicitation({ baseUrl: 'https://mcp.example.com/app/' });
    const options = { ...moduleRef.get<ElicitationPageOptions>(ELICITATION_PAGE_OPTIONS), routePrefix: 'ask' };
    const instance = express();
    const adapter = new ExpressAdapter(instance);
    const server = createServer(instance);
    adapter.setHttpServer(server);
    const host = new HttpAdapterHost();
    host.httpAdapter = adapter;
    new ElicitationFrameworkErrors(
      host,
      options,
      moduleRef.get(ElicitationPageFilter),
      moduleRef.get(ElicitationStatusFilter),
    ).onModuleInit();
    const seen: string[] = [];
    adapter.setNotFoundHandler((req: Request, res: Response) => {
      seen.push(req.originalUrl);
      res.status(404).end('nest');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      for (const path of [`/app/ask/${ID}/nope`, `/ask/${ID}/nope`]) {
        const res = await fetch(url + path);
        expect({ path, status: res.status, page: (await res.text()).includes(errors.noSuchPage) }).toEqual({
          path,
          status: 404,
          page: true,
        });
      }
      const elsewhere = await fetch(`${url}/elicit/${ID}/nope`);
      expect(await elsewhere.text()).toBe('nest');
      expect(seen).toEqual([`/elicit/${ID}/nope`]);
    } finally {
      server.closeAllConnections();
      server.close();
      await moduleRef.close();
    }
  });
});
