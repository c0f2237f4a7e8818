/**
 * Graceful shutdown, with real processes, real HTTP and the real SDK clients:
 * - SIGTERM on the demo process (examples/demo/main.ts enables the shutdown hooks) while tools wait: a 2025-11-25
 *   `requestUrl` waiting for the page, a 2025-11-25 form-mode question the client never answers, and a 2026-07-28
 *   retry waiting in `waitForCompletion` for its page. Every client gets the readable tool error of
 *   `ElicitationShutdownError`, the process exits 0 within a bound, and its stderr
 *   holds no unhandled rejection. On Redis the questions stay pending: a second instance serves their status, and
 *   the 2025-11-25 tool called again there takes its page up and completes.
 * - While the app shuts down (a slow `beforeApplicationShutdown` keeps the server listening), the pages answer a
 *   readable 503 page and the status route 503 JSON, with the routes' headers, on Express and Fastify.
 * - The Redis connections the store opened (its own and the event channel's) are closed once the app is.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import formbody from '@fastify/formbody';
import { afterAll, describe, expect, it } from '@jest/globals';
import { type BeforeApplicationShutdown, type INestApplication, Injectable, Module } from '@nestjs/common';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
// Jest's ES module runtime finds what the test client imports at run time only once it was imported statically.
import '@modelcontextprotocol/sdk/types.js';
import { Redis } from 'ioredis';
import { startDemoProcess, type DemoProcess } from '../../examples/demo/demo-process.js';
import { ElicitationModule } from '../../src/module/elicitation.module.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { RedisElicitationStore } from '../../src/redis/redis.store.js';
import { createElicitationTestClient, submitPage, type ElicitationTestClient, type TestToolResult } from '../../src/testing/index.js';
import { deletePrefix, describeRedis, REDIS_URL } from '../../test/support/redis.js';
import { waitUntil, within } from '../../test/support/redis-server.js';
import { pageTestOptions } from '../support/page-app.js';

const SHUTDOWN_TEXT = 'The server is shutting down, so it stopped waiting for your answer. Call the tool again in a moment.';
/** How long the demo may take from SIGTERM to its exit. */
const EXIT_BOUND_MS = 10_000;
const ENCRYPTION_KEY = 'b'.repeat(64);

/** A demo process whose stderr is kept apart (the unhandled-rejection check reads it alone). */
async function startDemo(env: Record<string, string>): Promise<DemoProcess & { stderr(): string }> {
  // The 2026-07-28 retry waits up to this long for the page: long enough to be waiting when SIGTERM comes.
  const demo = await startDemoProcess({ ELICITATION_PENDING_RETRY_WAIT_MS: '60000', ...env });
  let stderr = '';
  demo.child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return Object.assign(demo, { stderr: () => stderr });
}

/** The elicitation id of a page URL. */
const idOf = (url: string) => new URL(url).pathname.split('/')[2];

/**
 * Two tools waiting on the demo (one per era, each on its own page), SIGTERM, and what followed: how the process
 * exited and how long it took, and each client's tool result.
 */
async function sigtermWhileWaiting(demo: DemoProcess & { stderr(): string }) {
  const clients: ElicitationTestClient[] = [];
  try {
    const push = await createElicitationTestClient({ url: demo.mcpUrl, era: '2025-11-25', user: 'alice' });
    clients.push(push);
    const inputRequired = await createElicitationTestClient({ url: demo.mcpUrl, era: '2026-07-28', user: 'bob' });
    clients.push(inputRequired);
    // A form-mode question pushed to a client that never answers it: the call waits on the client, not a page.
    const form = await createElicitationTestClient({
      url: demo.mcpUrl,
      era: '2025-11-25',
      user: 'carol',
      answer: () => new Promise<never>(() => undefined),
    });
    clients.push(form);
    const pushCall = push.callTool('approve-deploy', { app: 'web' });
    const pushUrl = await push.waitForUrl(10_000);
    const formCall = form.callTool('delete-file', { path: '/tmp/x' });
    await waitUntil('the form question to reach the client', 10_000, () => Promise.resolve(form.requests.length === 1));
    const retryCall = inputRequired.callTool('approve-deploy', { app: 'api' });
    const retryUrl = await inputRequired.waitForUrl(10_000);
    // The 2026-07-28 client accepts the URL round and retries at once; the retry then waits for the page.
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    const signalled = Date.now();
    const exited = new Promise<{ code: number | null; signal: string | null; ms: number }>((resolve) =>
      demo.child.once('exit', (code, signal) => resolve({ code, signal, ms: Date.now() - signalled })),
    );
    demo.child.kill('SIGTERM');
    const exit = await within(EXIT_BOUND_MS + 5_000, 'the demo process to exit after SIGTERM', exited);
    const [pushResult, retryResult, formResult] = await within(
      5_000,
      'the tool calls to end',
      Promise.all([pushCall, retryCall, formCall]),
    );
    return { exit, pushUrl, retryUrl, pushResult, retryResult, formResult };
  } finally {
    for (const client of clients) await client.close().catch(() => undefined);
  }
}

function expectShutdownToolError(result: TestToolResult): void {
  expect(result.isError).toBe(true);
  expect(result.content).toEqual([{ type: 'text', text: SHUTDOWN_TEXT }]);
}

describe('SIGTERM on the demo process with tools waiting (memory store)', () => {
  let demo: (DemoProcess & { stderr(): string }) | undefined;
  afterAll(async () => {
    await demo?.stop('SIGKILL');
  });

  it('both tools end with the readable shutdown error, the process exits 0 in time, no unhandled rejection', async () => {
    demo = await startDemo({});
    const { exit, pushResult, retryResult, formResult } = await sigtermWhileWaiting(demo);
    expectShutdownToolError(pushResult);
    expectShutdownToolError(retryResult);
    expectShutdownToolError(formResult);
    expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });
    expect(exit.ms).toBeLessThan(EXIT_BOUND_MS);
    expect(demo.stderr()).not.toMatch(/unhandled|rejection/i);
    expect(demo.stderr()).not.toMatch(/\bERROR\b/);
  }, 60_000);
});

describeRedis('SIGTERM on the demo process with tools waiting (Redis store), and a second instance after it', () => {
  const prefix = `h15-shutdown-${randomUUID().slice(0, 8)}`;
  const env = { ELICITATION_STORE: 'redis', REDIS_URL, ELICITATION_REDIS_PREFIX: prefix, ELICITATION_ENCRYPTION_KEY: ENCRYPTION_KEY };
  const started: DemoProcess[] = [];
  afterAll(async () => {
    for (const demo of started) await demo.stop('SIGKILL');
    const admin = new Redis(REDIS_URL);
    await deletePrefix(admin, prefix);
    admin.disconnect();
  });

  it('ends both waits, exits 0, leaves the questions pending; the tool called again on another instance takes its page up', async () => {
    const first = await startDemo(env);
    started.push(first);
    const { exit, pushUrl, retryUrl, pushResult, retryResult, formResult } = await sigtermWhileWaiting(first);
    expectShutdownToolError(pushResult);
    expectShutdownToolError(retryResult);
    expectShutdownToolError(formResult);
    expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });
    expect(exit.ms).toBeLessThan(EXIT_BOUND_MS);
    expect(first.stderr()).not.toMatch(/unhandled|rejection/i);

    const second = await startDemo(env);
    started.push(second);
    for (const url of [pushUrl, retryUrl]) {
      const res = await fetch(`${second.url}/elicit/${idOf(url)}/status`);
      expect(((await res.json()) as { status: string }).status).toBe('pending');
    }
    // The same tool, same arguments, same user: the page asked before the shutdown, not a new one.
    const again = await createElicitationTestClient({ url: second.mcpUrl, era: '2025-11-25', user: 'alice' });
    try {
      const call = again.callTool('approve-deploy', { app: 'web' });
      const url = await again.waitForUrl(10_000);
      expect(idOf(url)).toBe(idOf(pushUrl));
      expect((await submitPage(url, { action: 'confirm' }, { cookie: 'demo_user=alice' })).status).toBe(200);
      expect(await within(10_000, 'the call on the second instance', call)).toMatchObject({
        content: [{ type: 'text', text: 'Deployed web' }],
      });
    } finally {
      await again.close();
    }
  }, 90_000);
});

/** Holds the app in `beforeApplicationShutdown` (after the module's destroy hooks) until released. */
function drainGate() {
  const gate: { reached: boolean; release: () => void } = { reached: false, release: () => undefined };
  @Injectable()
  class Gate implements BeforeApplicationShutdown {
    beforeApplicationShutdown() {
      gate.reached = true;
      return new Promise<void>((resolve) => (gate.release = resolve));
    }
  }
  return { gate, Gate };
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

async function send(url: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(url, { redirect: 'manual', ...init });
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => (headers[name] = value));
  return { status: res.status, headers, text: await res.text() };
}

describe.each(['express', 'fastify'] as const)('while the app shuts down (%s, real HTTP)', (adapter) => {
  it('the pages answer a readable 503 page and the status route 503 JSON, with the routes headers and Retry-After', async () => {
    const { gate, Gate } = drainGate();
    @Module({ imports: [ElicitationModule.forRoot(pageTestOptions({ resolvePageUser: () => 'alice' }))], providers: [Gate] })
    class DrainModule {}
    const moduleRef = await Test.createTestingModule({ imports: [DrainModule] }).compile();
    let app: INestApplication;
    if (adapter === 'fastify') {
      const fastifyApp = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), {
        logger: false,
        bodyParser: false,
      });
      await fastifyApp.register(formbody);
      app = fastifyApp;
    } else {
      app = moduleRef.createNestApplication({ logger: false });
    }
    await app.listen(0, '127.0.0.1');
    const base = `http://127.0.0.1:${((app.getHttpServer() as Server).address() as { port: number }).port}`;
    const { elicitationId, url } = await app
      .get(ElicitationService)
      .createUrlElicitation({ kind: 'api-key', message: 'Enter your key', userId: 'alice' });
    expect((await send(url.replace('http://127.0.0.1:3000', base))).status).toBe(200);

    const closing = app.close();
    await waitUntil('the shutdown to reach beforeApplicationShutdown', 5_000, () => Promise.resolve(gate.reached));
    try {
      const page = await send(`${base}/elicit/${elicitationId}/api-key`);
      expect({ status: page.status, type: page.headers['content-type'] }).toEqual({ status: 503, type: 'text/html; charset=utf-8' });
      expect(page.text).toMatch(/<h1[^>]*>Temporarily unavailable<\/h1>/);
      expect(page.text).toContain('This server is restarting. Nothing was saved. Please try again in a moment.');
      expect(page.headers['content-security-policy']).toMatch(/^default-src 'none';/);
      const post = await send(`${base}/elicit/${elicitationId}/api-key`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'apiKey=sk-late',
      });
      expect(post.status).toBe(503);
      expect(post.text).not.toContain('sk-late');
      const status = await send(`${base}/elicit/${elicitationId}/status`);
      expect({ status: status.status, type: status.headers['content-type'] }).toEqual({
        status: 503,
        type: 'application/json; charset=utf-8',
      });
      expect(JSON.parse(status.text)).toEqual({
        statusCode: 503,
        message: 'This server is restarting. Nothing was saved. Please try again in a moment.',
        error: 'Service Unavailable',
      });
      for (const answer of [page, post, status]) {
        expect(answer.headers['retry-after']).toBe('5');
        expect(answer.headers['connection']).toBe('close');
        expect(answer.headers['cache-control']).toBe('no-store');
        expect(answer.headers['x-content-type-options']).toBe('nosniff');
        expect(answer.headers['x-frame-options']).toBe('DENY');
        expect(answer.headers['x-powered-by']).toBeUndefined();
      }
    } finally {
      gate.release();
      await closing;
    }
  });
});

describeRedis('the Redis connections the store opened, on app.close()', () => {
  it('are all closed: the store connection and the event channel', async () => {
    const name = `h15-close-${randomUUID().slice(0, 8)}`;
    const admin = new Redis(REDIS_URL);
    // The store's connection has the name; the event channel's takes it (with a suffix of its own, on a Stream).
    const connections = async () => {
      const list = (await admin.call('CLIENT', 'LIST')) as string;
      return list.split('\n').filter((line) => line.includes(` name=${name}`)).length;
    };
    const { hostname, port } = new URL(REDIS_URL);
    const store = new RedisElicitationStore({ host: hostname, port: Number(port || 6379), connectionName: name }, { keyPrefix: name });
    @Module({ imports: [ElicitationModule.forRoot(pageTestOptions({ store, encryptionKey: ENCRYPTION_KEY }))] })
    class RedisAppModule {}
    const moduleRef = await Test.createTestingModule({ imports: [RedisAppModule] }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    try {
      await store.ping();
      // The store's connection and the event channel's own.
      await waitUntil('the store connections to open', 5_000, async () => (await connections()) >= 2);
      await app.close();
      // QUIT answers before the socket closes: both follow within moments.
      await waitUntil('the store connections to close', 5_000, async () => (await connections()) === 0);
      await waitUntil('the store client to end', 5_000, () => Promise.resolve(store.redis.status === 'end'));
    } finally {
      await deletePrefix(admin, name);
      admin.disconnect();
    }
  });
});
