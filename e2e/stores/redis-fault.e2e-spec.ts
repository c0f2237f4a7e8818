/**
 * Fault test: the demo app on the Redis store, with a redis-server this file owns. Redis is stopped
 * while elicitations are in flight and started again on the same port and data directory (AOF with
 * fsync on every write, so nothing acknowledged is lost). While it is down the routes answer 503
 * quickly and the process keeps running; once it is back, nothing was lost and events flow again.
 *
 * Without redis-server the suite is skipped with a visible message, unless REQUIRE_REDIS=1, where it
 * runs and fails.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import request from 'supertest';
import { startDemoApp, type DemoApp } from '../../examples/demo/demo-app.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { csrfFor, postForm, type CsrfPair } from '../support/page-form.js';
import type { ElicitationEvent } from '../../src/core/elicitation.types.js';
import { ElicitationStoreUnavailableError } from '../../src/errors/elicitation-store-unavailable.error.js';
import { ElicitationEvents } from '../../src/events/elicitation-events.js';
import { RedisElicitationStore } from '../../src/redis/redis.store.js';
import type { ElicitationEventChannel } from '../../src/stores/elicitation-store.js';
import {
  describeWithRedisBinaries,
  freePort,
  HOST,
  sleep,
  startDurableRedis,
  stopProcess,
  waitUntil,
  within,
  type ServerProcess,
} from '../../test/support/redis-server.js';
import { keyed } from '../../test/support/store-keys.js';

const PREFIX = `fault-${randomUUID().slice(0, 8)}`;
/** The demo's encryptionKey, shared with the second "instance" of the pub/sub test. */
const ENCRYPTION_KEY = randomBytes(32);
const COOKIE = 'demo_user=alice';
const KEY_X = `sk-x-${randomUUID()}`;
const KEY_Y = `sk-y-${randomUUID()}`;
const KEY_Z = `sk-z-${randomUUID()}`;
const KEY_DURING_OUTAGE = `sk-outage-${randomUUID()}`;
/**
 * The store's own connection fails a command queued while Redis is down after its reconnect attempts
 * (maxRetriesPerRequest: 1), and after its 5 s commandTimeout at the latest.
 */
const FAIL_FAST_MS = 6_000;

const processExited = (child: { exitCode: number | null; signalCode: string | null }) =>
  child.exitCode !== null || child.signalCode !== null;

// ---------------------------------------------------------------------------------------------------
// The suite
// ---------------------------------------------------------------------------------------------------

describeWithRedisBinaries()('demo app on Redis: Redis goes down and comes back', () => {
  let dir: string | undefined;
  let port: number;
  let redisUrl: string;
  let redis: ServerProcess | undefined;
  let demo: DemoApp | undefined;
  let service: ElicitationService;
  let x: string;
  let y: string;
  const events: ElicitationEvent[] = [];
  const http = () => request(demo!.url);

  const createKey = () =>
    service.createUrlElicitation({ kind: 'api-key', message: 'Enter your GitHub API key', userId: 'alice', type: 'api-key-github' });
  /** CSRF pairs taken from a page render, by elicitation id (taken before the outage for Y). */
  const pairs = new Map<string, CsrfPair>();
  const pairFor = async (id: string) => pairs.get(id) ?? (await csrfFor(demo!.url, `/elicit/${id}/api-key`, { Cookie: COOKIE }));
  const submitKey = async (id: string, apiKey: string, status: number) => {
    const res = await postForm(demo!.url, `/elicit/${id}/api-key`, { apiKey }, await pairFor(id), { Cookie: COOKIE });
    expect([id, res.status]).toEqual([id, status]);
    return res;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'elicitation-redis-fault-'));
    port = await freePort();
    redisUrl = `redis://${HOST}:${port}`;
    redis = await startDurableRedis(port, dir);
    demo = await startDemoApp({
      port: 0,
      logger: false,
      store: 'redis',
      redisUrl,
      redisPrefix: PREFIX,
      encryptionKey: ENCRYPTION_KEY.toString('base64'),
    });
    service = demo.app.get(ElicitationService);
    demo.app.get(ElicitationEvents).subscribe((e) => events.push(e));
  }, 60_000);

  afterAll(async () => {
    if (demo) await within(15_000, 'app.close()', demo.app.close()).catch((e: unknown) => console.warn(`redis-fault: ${String(e)}`));
    if (redis) await stopProcess(redis.child);
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 40_000);

  it('before the outage: X is completed through the page, Y is pending, data is fsynced to the AOF', async () => {
    const admin = new Redis(redisUrl, { maxRetriesPerRequest: 0 });
    try {
      expect(await admin.config('GET', 'appendonly')).toEqual(['appendonly', 'yes']);
      expect(await admin.config('GET', 'appendfsync')).toEqual(['appendfsync', 'always']);
    } finally {
      admin.disconnect();
    }
    x = (await createKey()).elicitationId;
    const done = await submitKey(x, KEY_X, 200);
    expect(done.text).toContain('The API key was received');
    expect(await service.getResult(x)).toEqual({ status: 'completed', data: { apiKey: KEY_X } });
    y = (await createKey()).elicitationId;
    // The browser rendered Y's page before the outage: it holds a valid form (token + cookie).
    pairs.set(y, await csrfFor(demo!.url, `/elicit/${y}/api-key`, { Cookie: COOKIE }));
    expect((await http().get(`/elicit/${y}/status`).expect(200)).body).toMatchObject({ status: 'pending' });
  });

  describe('while Redis is down', () => {
    beforeAll(async () => {
      const child = redis!.child;
      await within(
        10_000,
        'redis-server exit after SIGTERM',
        new Promise<void>((resolve) => {
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
      );
      expect(processExited(child)).toBe(true);
    }, 20_000);

    it('the status route answers 503 with a readable JSON body', async () => {
      const started = Date.now();
      const res = await http().get(`/elicit/${x}/status`).expect(503);
      expect(Date.now() - started).toBeLessThan(FAIL_FAST_MS);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toMatchObject({ statusCode: 503, message: expect.stringMatching(/temporarily unavailable/i) });
      expect(res.text).not.toContain(KEY_X);
    });

    it('the page answers 503 with an HTML "temporarily unavailable" page', async () => {
      const res = await http().get(`/elicit/${y}/api-key`).set('Cookie', COOKIE).expect(503);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toMatch(/temporarily unavailable/i);
      expect(res.text).not.toContain('name="apiKey"');
    });

    it('a submitted page answers 503 and never echoes the submitted key', async () => {
      const res = await submitKey(y, KEY_DURING_OUTAGE, 503);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toMatch(/temporarily unavailable/i);
      expect(res.text).not.toContain(KEY_DURING_OUTAGE);
    });

    it('createUrlElicitation rejects with ElicitationStoreUnavailableError within a few seconds', async () => {
      const started = Date.now();
      const error = await createKey().then(
        () => new Error('createUrlElicitation resolved while Redis was down'),
        (e: unknown) => e,
      );
      const elapsed = Date.now() - started;
      expect(error).toBeInstanceOf(ElicitationStoreUnavailableError);
      expect(elapsed).toBeLessThan(FAIL_FAST_MS);
    });

    it('the process keeps serving routes that do not need Redis', async () => {
      const res = await http().get('/demo/login?user=alice').expect(200);
      expect(res.text).toContain('Signed in as <b>alice</b>');
    });
  });

  describe('after Redis is back on the same port and data directory', () => {
    beforeAll(async () => {
      redis = await startDurableRedis(port, dir!);
      await waitUntil('the status route to answer 200 again', 20_000, async () => (await http().get(`/elicit/${x}/status`)).status === 200);
    }, 40_000);

    it('lost no completion: X is still completed with its key', async () => {
      expect((await http().get(`/elicit/${x}/status`).expect(200)).body).toMatchObject({
        elicitationId: x,
        status: 'completed',
        completed: true,
      });
      expect(await service.getResult(x)).toEqual({ status: 'completed', data: { apiKey: KEY_X } });
      expect(await service.findByUserAndType('alice', 'api-key-github')).toMatchObject({ elicitationId: x, data: { apiKey: KEY_X } });
      await http().get(`/elicit/${x}/api-key`).set('Cookie', COOKIE).expect(409);
    });

    it('Y is still pending, and its page now completes it (the outage submission was not stored)', async () => {
      expect(await service.getResult(y)).toEqual({ status: 'pending' });
      await http().get(`/elicit/${y}/api-key`).set('Cookie', COOKIE).expect(200);
      const res = await submitKey(y, KEY_Y, 200);
      expect(res.text).toContain('The API key was received');
      expect(res.text).not.toContain(KEY_Y);
      expect(await service.getResult(y)).toEqual({ status: 'completed', data: { apiKey: KEY_Y } });
      expect(JSON.stringify(await service.list({ userId: 'alice' }))).not.toContain(KEY_DURING_OUTAGE);
    });

    it('the event bus recovered: waitForCompletion(Z) resolves once Z is completed through the page', async () => {
      const z = (await createKey()).elicitationId;
      const waiting = service.waitForCompletion(z, { timeoutMs: 10_000 });
      await sleep(50); // the waiter is registered and has read Z as pending
      await submitKey(z, KEY_Z, 200);
      await expect(within(5_000, 'waitForCompletion(Z)', waiting)).resolves.toEqual({ status: 'completed', data: { apiKey: KEY_Z } });
      expect(events.filter((e) => e.elicitationId === z).map((e) => e.type)).toEqual(['created', 'completed']);
    });

    it('events flow again between instances over the event stream, both ways', async () => {
      // A second "instance" sharing the prefix.
      const other = keyed(new RedisElicitationStore(redisUrl, { keyPrefix: PREFIX }), [ENCRYPTION_KEY]);
      const seenByOther: ElicitationEvent[] = [];
      let channel: ElicitationEventChannel | undefined;
      try {
        // No wait for the app's reader to be back: whenever it is, it reads on from the last event it read.
        channel = await other.openEventChannel((e) => seenByOther.push(e));

        // App → other: a page completion on the app reaches the other instance.
        const w = (await createKey()).elicitationId;
        await submitKey(w, `sk-w-${randomUUID()}`, 200);
        await waitUntil('the completion of W at the other instance', 5_000, () =>
          Promise.resolve(seenByOther.some((e) => e.elicitationId === w && e.type === 'completed')),
        );

        // Other → app: a completion made by the other instance wakes a tool waiting in the app.
        const v = (await createKey()).elicitationId;
        const waiting = service.waitForCompletion(v, { timeoutMs: 10_000 });
        await sleep(50);
        const now = Date.now();
        const finished = await other.finish(v, { status: 'completed', data: { apiKey: 'from-other' }, now, purgeAt: now + 60_000 });
        expect(finished.ok).toBe(true);
        const record = (finished as { record: { userId: string; kind: 'api-key'; type: string } }).record;
        await channel.publish({
          type: 'completed',
          elicitationId: v,
          userId: record.userId,
          kind: record.kind,
          elicitationType: record.type,
          at: now,
        });
        await expect(within(5_000, 'waitForCompletion(V)', waiting)).resolves.toEqual({
          status: 'completed',
          data: { apiKey: 'from-other' },
        });
        // The app did not make this transition: its listeners can only have heard of it from the stream.
        await waitUntil('the completion of V at the app', 5_000, () =>
          Promise.resolve(events.some((e) => e.elicitationId === v && e.type === 'completed')),
        );
      } finally {
        await channel?.close();
        await other.onModuleDestroy();
      }
    });
  });
});
