/**
 * Issue #15, part 1, with real demo processes on one real Redis: instances sharing a store never silently disagree
 * on `encryptionKey`.
 * (a) Redis without ELICITATION_ENCRYPTION_KEY: start-up fails naming encryptionKey and how to make one (the memory
 *     store still starts without one, with its warning);
 * (b) a second instance whose key shares nothing with the first refuses to start, naming both key ids, no key;
 * (c) one holding only an older key of the running ones starts with a warning;
 * (d) the README's rotation in two deploys neither refuses nor warns;
 * (e) with the shared key, a page rendered on A and posted on B answers 200 and the answer stored on B is read on A;
 * (f) what one instance cannot open (a warned configuration) is a readable 503 page and status, and a readable tool
 *     error naming the key id, never an uncaught error.
 * Without a Redis the suite is skipped with a message, unless REQUIRE_REDIS=1.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { Redis } from 'ioredis';
import request from 'supertest';
import { startDemoProcess, type DemoProcess } from '../../examples/demo/demo-process.js';
import { PAGE_MESSAGES } from '../../src/messages/default-messages.js';
import { keyIdOf } from '../../src/security/key-ids.js';
import { deletePrefix, describeRedis, REDIS_URL } from '../../test/support/redis.js';
import { connectClient, textOf, type TestClient } from '../support/mcp-client.js';
import { csrfFor, postForm } from '../support/page-form.js';

const RUN = `e2e-keyring-${randomUUID().slice(0, 8)}`;
const [K1, K2] = [randomBytes(32), randomBytes(32)];
const [ID1, ID2] = [K1, K2].map(keyIdOf);
const COOKIE = { Cookie: 'demo_user=alice' };
/** Every spelling of the keys that must never be printed. */
const KEY_SPELLINGS = [K1, K2].flatMap((k) => [k.toString('base64'), k.toString('hex')]);

/** The demo's ELICITATION_ENCRYPTION_KEY for a ring (comma-separated, the first key seals). */
const ring = (...keys: Buffer[]) => keys.map((k) => k.toString('base64')).join(',');

/** The environment of a demo instance on this run's Redis prefix `prefix`, with `key` ('' for none). */
const redisEnv = (prefix: string, key: string) => ({
  ELICITATION_STORE: 'redis',
  REDIS_URL,
  ELICITATION_REDIS_PREFIX: `${RUN}-${prefix}`,
  ELICITATION_ENCRYPTION_KEY: key,
});

/** The warnings a demo printed about encryptionKey (Nest's WARN lines). */
const keyWarnings = (demo: DemoProcess) =>
  demo
    .output()
    .split('\n')
    .filter((line) => line.includes('WARN') && line.includes('encryptionKey'));

async function requiredUrl(client: TestClient, service: string): Promise<{ id: string; path: string }> {
  const error = await client.client.callTool({ name: 'connect-service', arguments: { service } }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UrlElicitationRequiredError);
  const [el] = (error as UrlElicitationRequiredError).elicitations;
  return { id: el.elicitationId, path: new URL(el.url).pathname };
}

describeRedis('instances on one Redis agree on encryptionKey (demo processes)', () => {
  const running: DemoProcess[] = [];
  const clients: TestClient[] = [];

  const start = async (env: Record<string, string>) => {
    const demo = await startDemoProcess(env);
    running.push(demo);
    return demo;
  };
  /** The output of a demo process that failed to start (fails the test when it started). */
  const failure = async (env: Record<string, string>) => {
    const started = await startDemoProcess(env).then(
      (demo) => (running.push(demo), undefined),
      (error: unknown) => (error as Error).message,
    );
    if (started === undefined) throw new Error('the demo started');
    return started;
  };
  const connect = async (demo: DemoProcess) => {
    const client = await connectClient(demo.mcpUrl, { user: 'alice' });
    clients.push(client);
    return client;
  };

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
    await Promise.all(running.splice(0).map((p) => p.stop()));
  }, 30_000);
  afterAll(async () => {
    const redis = new Redis(REDIS_URL);
    await deletePrefix(redis, RUN);
    await redis.quit();
  });

  it('(a) refuses to start on Redis without ELICITATION_ENCRYPTION_KEY, naming encryptionKey and how to make one; memory starts', async () => {
    const output = await failure(redisEnv('a', ''));
    expect(output).toContain('exited with 1');
    expect(output).toContain('option "encryptionKey" is required with a store shared between processes');
    expect(output).toContain('Give every instance the same encryptionKey');
    expect(output).toContain('openssl rand -base64 32');
    expect(output).toContain('ELICITATION_STORE=redis needs ELICITATION_ENCRYPTION_KEY');
    // npm start: the memory store still runs without a key, with its warning.
    const memory = await start({ ELICITATION_STORE: 'memory', ELICITATION_ENCRYPTION_KEY: '' });
    expect(memory.output()).toContain('encryptionKey is not set');
    await request(memory.url).get('/demo/login').expect(200);
  }, 40_000);

  it('(b) refuses to start a second instance whose key shares nothing with the running one, naming key ids, never keys', async () => {
    await start(redisEnv('b', ring(K1)));
    const output = await failure(redisEnv('b', ring(K2)));
    expect(output).toContain('option "encryptionKey" shares no key with the other instances on this store');
    expect(output).toContain(`this instance's key ids are [${ID2}]`);
    expect(output).toContain(`1 live instance with [${ID1}]`);
    for (const spelling of KEY_SPELLINGS) expect(output).not.toContain(spelling);
  }, 40_000);

  it('(c) starts an instance holding only an older key of the running one, with a warning naming the key ids', async () => {
    const a = await start(redisEnv('c', ring(K2, K1)));
    const b = await start(redisEnv('c', ring(K1)));
    expect(keyWarnings(b)).toEqual([
      expect.stringContaining(`holds only an older key of other instances: 1 live instance with [${ID2}, ${ID1}]`),
    ]);
    expect(keyWarnings(a)).toEqual([]);
    for (const spelling of KEY_SPELLINGS) expect(b.output()).not.toContain(spelling);
  }, 40_000);

  it("(d) passes the README's rotation in two deploys with neither a refusal nor a warning", async () => {
    const old = await start(redisEnv('d', ring(K1)));
    const added = await start(redisEnv('d', ring(K1, K2)));
    await old.stop();
    const moved = await start(redisEnv('d', ring(K2, K1)));
    for (const demo of [old, added, moved]) expect(keyWarnings(demo)).toEqual([]);
  }, 40_000);

  it('(e) with the shared key: a page rendered on A is posted on B (200), and the answer stored on B is read on A', async () => {
    const [a, b] = await Promise.all([start(redisEnv('e', ring(K1))), start(redisEnv('e', ring(K1)))]);
    const client = await connect(a);
    const { path } = await requiredUrl(client, 'github');
    const pair = await csrfFor(a.url, path, COOKIE);
    const page = await postForm(b.url, path, { apiKey: 'sk-e2e-shared' }, pair, COOKIE);
    expect(page.status).toBe(200);
    expect(page.text).toContain('The API key was received');
    const retry = await client.client.callTool({ name: 'connect-service', arguments: { service: 'github' } });
    expect(textOf(retry)).toBe('Connected to github');
  }, 40_000);

  describe('(f) what an instance cannot open is readable, never an uncaught error', () => {
    /** A on [K1]; B on [K2, K1] (a warned configuration): B opens what A seals, A not what B seals. */
    const pair = async () => {
      const a = await start(redisEnv('f', ring(K1)));
      const b = await start(redisEnv('f', ring(K2, K1)));
      return { a, b };
    };

    it('a page and the status route on A of a record B created answer 503, readable, naming nothing secret', async () => {
      const { a, b } = await pair();
      const { id, path } = await requiredUrl(await connect(b), 'gitlab');
      const page = await request(a.url).get(path).set(COOKIE);
      expect(page.status).toBe(503);
      expect(page.headers['content-type']).toContain('text/html');
      expect(page.text).toContain(PAGE_MESSAGES.errors.keyMismatch.replace(/'/g, '&#x27;'));
      expect(page.text).not.toContain(ID2);
      const status = await request(a.url).get(`/elicit/${id}/status`);
      expect(status.status).toBe(503);
      expect(status.body).toMatchObject({ message: PAGE_MESSAGES.errors.keyMismatch });
      // The operator's side: A's log names the key id and encryptionKey, never a key.
      expect(a.output()).toContain(`under key id ${ID2}`);
      for (const spelling of KEY_SPELLINGS) expect(a.output()).not.toContain(spelling);
      // B, which holds the key, serves the same page.
      await request(b.url).get(path).set(COOKIE).expect(200);
    }, 40_000);

    it("a form rendered on B and posted on A answers 503 (A lacks B's key); the answer B stores is a readable tool error on A", async () => {
      const { a, b } = await pair();
      const client = await connect(a);
      const { path } = await requiredUrl(client, 'aws');
      // Rendered on B: its CSRF token is signed under K2, which A lacks.
      const fromB = await csrfFor(b.url, path, COOKIE);
      const refused = await postForm(a.url, path, { apiKey: 'sk-e2e-f' }, fromB, COOKIE);
      expect(refused.status).toBe(503);
      expect(refused.text).toContain('configuration problem on our side');
      // Rendered on A and posted on B: accepted, and B seals the answer under K2.
      const fromA = await csrfFor(a.url, path, COOKIE);
      expect((await postForm(b.url, path, { apiKey: 'sk-e2e-f' }, fromA, COOKIE)).status).toBe(200);
      const retry = await client.client.callTool({ name: 'connect-service', arguments: { service: 'aws' } });
      expect(retry.isError).toBe(true);
      expect(textOf(retry)).toContain(`under key id ${ID2}`);
      expect(textOf(retry)).toContain('encryptionKey');
      expect(textOf(retry)).not.toContain('sk-e2e-f');
    }, 40_000);
  });
});
