/**
 * Personal data in Redis (#19 §5): after a whole lifecycle on two module instances sharing one Redis, no key
 * name, no stored value and no event on the event stream holds the user id, the type, the message, the answer or
 * the client IP in clear; every key has a TTL; the two instances share their indexes; a key rotation neither
 * loses an index nor restarts a count. Read off a real Redis with SCAN, XRANGE and PSUBSCRIBE (nothing is
 * published on pub/sub any more).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import type { TestingModule } from '@nestjs/testing';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { ElicitationRecords } from '../../src/lifecycle/elicitation-records.js';
import type { ElicitationEvent } from '../../src/core/elicitation.types.js';
import { ElicitationConfigError } from '../../src/errors/elicitation-config.error.js';
import { ElicitationEvents } from '../../src/events/elicitation-events.js';
import { keySpace } from '../../src/redis/redis.key-space.js';
import { RedisElicitationStore } from '../../src/redis/redis.store.js';
import { ElicitationStore } from '../../src/stores/elicitation-store.js';
import { deletePrefix, describeRedis, REDIS_URL, scanKeys } from '../support/redis.js';
import { keyed } from '../support/store-keys.js';
import { compileElicitation } from '../support/testing-module.js';
import { pendingRecord } from '../support/store-contract.js';

const RUN = `test-pii-${randomUUID().slice(0, 8)}`;
const USER = 'alice@example.com';
const TYPE = 'github-token';
const IP = '203.0.113.7';
const MESSAGE = 'Alice Liddell, paste the token of the wonderland repository';
const METADATA_TEXT = 'Liddell household';
const API_KEY = `sk-${randomUUID()}`;
/** What must appear nowhere in Redis (names, values, messages): each also as JSON would escape it. */
const FORBIDDEN = [USER, 'alice', TYPE, IP, 'Liddell', 'wonderland', METADATA_TEXT, API_KEY];
/** A keyed hash as the store writes it in a name: 128 bits in base64url. */
const NAME = '[A-Za-z0-9_-]{22}';

/** Everything a Redis key holds, as text (hash fields and values, set members and scores, a string, stream entries). */
async function contentOf(client: Redis, key: string): Promise<string> {
  const type = await client.type(key);
  if (type === 'hash') return JSON.stringify(await client.hgetall(key));
  if (type === 'zset') return JSON.stringify(await client.zrange(key, '0', '-1', 'WITHSCORES'));
  if (type === 'string') return (await client.get(key)) ?? '';
  if (type === 'stream') return JSON.stringify(await client.xrange(key, '-', '+'));
  throw new Error(`unexpected ${type} key ${key}`);
}

async function until(what: string, condition: () => boolean, ms = 3_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describeRedis('RedisElicitationStore keeps personal data out of Redis', () => {
  let client: Redis;

  beforeAll(() => {
    client = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    await deletePrefix(client, RUN);
    await client.quit();
  });

  describe('a whole lifecycle on two instances sharing one Redis and one encryptionKey', () => {
    const prefix = `${RUN}-life`;
    const keys = keySpace(prefix);
    /** What was published on any pub/sub channel of the prefix (nothing: events travel on the stream). */
    const published: string[] = [];
    const seenByA: ElicitationEvent[] = [];
    const seenByB: ElicitationEvent[] = [];
    let tap: Redis;
    let a: TestingModule;
    let b: TestingModule;
    let answered = '';
    let declined = '';

    beforeAll(async () => {
      tap = new Redis(REDIS_URL);
      tap.on('pmessage', (_pattern: string, _channel: string, message: string) => published.push(message));
      // Every channel of the prefix, whatever its name.
      await tap.psubscribe(`{${prefix}}*`);
      const encryptionKey = randomBytes(32);
      const store = () => new RedisElicitationStore(REDIS_URL, { keyPrefix: prefix });
      a = await compileElicitation({ encryptionKey, store: store(), limits: { createPerMinute: 50, maxPendingPerUser: 5 } });
      b = await compileElicitation({ encryptionKey, store: store(), limits: { createPerMinute: 50, maxPendingPerUser: 5 } });
      a.get(ElicitationEvents).subscribe((e) => seenByA.push(e));
      b.get(ElicitationEvents).subscribe((e) => seenByB.push(e));

      const serviceA = a.get(ElicitationService);
      const serviceB = b.get(ElicitationService);
      const storeA = a.get(ElicitationStore);
      const ask = (kind: 'api-key' | 'confirm') =>
        serviceA.createUrlElicitation({
          kind,
          userId: USER,
          type: TYPE,
          message: MESSAGE,
          metadata: { title: METADATA_TEXT },
          session: `session-of-${USER}`,
        });
      answered = (await ask('api-key')).elicitationId;
      declined = (await ask('confirm')).elicitationId;
      const expiring = await serviceA.createUrlElicitation({ kind: 'confirm', userId: USER, type: TYPE, message: MESSAGE, ttlMs: 1_000 });

      // B lists and answers what A created (shared indexes); A finds B's answer by user and type.
      expect((await serviceB.list({ userId: USER })).map((s) => s.elicitationId).sort()).toEqual(
        [answered, declined, expiring.elicitationId].sort(),
      );
      expect((await serviceB.complete(answered, { apiKey: API_KEY })).ok).toBe(true);
      expect(await serviceA.findByUserAndType(USER, TYPE)).toMatchObject({ elicitationId: answered, data: { apiKey: API_KEY } });
      // The counters: a page throttle hit per IP, an invalid hosted-form attempt, and a peek.
      expect((await storeA.hit(`ip:${IP}`, 60_000, Date.now())).count).toBe(1);
      expect(await b.get(ElicitationStore).peekHits!(`ip:${IP}`, 60_000, Date.now())).toBe(1);
      const record = (await a.get(ElicitationRecords).read(declined))!;
      expect(await b.get(ElicitationRecords).recordInvalidFormAttempt(record)).toEqual({ attemptsLeft: 2 });
      expect((await serviceB.decline(declined)).ok).toBe(true);
      // An expiry by the sweep.
      expect(await serviceB.sweep(Date.now() + 2_000)).toBe(1);
      await until('the events at both instances', () => seenByA.length >= 6 && seenByB.length >= 6);
      await new Promise((r) => setTimeout(r, 100)); // room for a late message
    });

    afterAll(async () => {
      await tap.quit();
      await a.close();
      await b.close();
    });

    it('names no key after the user, the type or the IP, and stores none of them, nor the message or answer, in clear', async () => {
      const names = await scanKeys(client, `{${prefix}}*`);
      expect(names.length).toBeGreaterThanOrEqual(8);
      for (const name of names) {
        expect(name.startsWith(`${keys.base}:`)).toBe(true);
        const content = await contentOf(client, name);
        for (const clear of FORBIDDEN) {
          expect([name, name.includes(clear)]).toEqual([name, false]);
          expect([name, content.includes(clear), content.includes(JSON.stringify(clear).slice(1, -1))]).toEqual([name, false, false]);
        }
      }
      // The kinds of key the lifecycle left, each named by hashes where it used to name the user or the IP.
      const shapes = names.map((n) => n.slice(keys.base.length + 1).replace(/[0-9a-f-]{36}$/, '<id>'));
      expect(shapes).toEqual(expect.arrayContaining(['r:<id>', 'd', 'events', expect.stringMatching(new RegExp(`^u:${NAME}$`))]));
      expect(shapes).toContainEqual(expect.stringMatching(new RegExp(`^c:${NAME}$`)));
      expect(shapes).toContainEqual(expect.stringMatching(new RegExp(`^q:\\d+:${NAME}$`)));
      expect(shapes).toContainEqual(expect.stringMatching(new RegExp(`^h:\\d+:ip:${NAME}$`)));
      expect(shapes).toContainEqual(expect.stringMatching(new RegExp(`^h:\\d+:form-attempts:${NAME}$`)));
    });

    it('gives every key a TTL, the sets of everyone’s records one as long as their longest-lived record', async () => {
      const names = await scanKeys(client, `{${prefix}}*`);
      const ttls = new Map(await Promise.all(names.map(async (n) => [n, await client.pttl(n)] as const)));
      for (const [name, ttl] of ttls) expect([name, ttl > 0]).toEqual([name, true]);
      const longestRecord = Math.max(...names.filter((n) => n.includes(':r:')).map((n) => ttls.get(n)!));
      expect(ttls.get(keys.deadlines)).toBeGreaterThanOrEqual(longestRecord);
    });

    it('sends events that name no user, type or session in clear, and still hands listeners the whole event', async () => {
      const messages = (await client.xrange(keys.events, '-', '+')).map(([, fields]) => fields[1]);
      expect(messages.length).toBeGreaterThanOrEqual(6);
      expect(published).toEqual([]);
      for (const message of messages) {
        for (const clear of [...FORBIDDEN, 'session-of']) expect([message, message.includes(clear)]).toEqual([message, false]);
        expect(Object.keys((JSON.parse(message) as { event: object }).event)).toEqual(['type', 'elicitationId', 'sealed', 'at']);
      }
      // B heard of A's creations from the stream only, and A of B's completion: the events are whole.
      const created = seenByB.find((e) => e.type === 'created' && e.elicitationId === answered);
      expect(created).toEqual({
        type: 'created',
        elicitationId: answered,
        userId: USER,
        kind: 'api-key',
        elicitationType: TYPE,
        sessionId: `session-of-${USER}`,
        at: expect.any(Number),
      });
      expect(seenByA.find((e) => e.type === 'completed')).toMatchObject({ elicitationId: answered, userId: USER, elicitationType: TYPE });
      expect(seenByA.find((e) => e.type === 'expired')).toMatchObject({ userId: USER, elicitationType: TYPE });
    });
  });

  describe('keys', () => {
    const K1 = randomBytes(32);
    const K2 = randomBytes(32);
    const store = (prefix: string, ring: Buffer[]) => keyed(new RedisElicitationStore(client, { keyPrefix: prefix }), ring);

    it('finds, lists and counts across a key rotation: written under the first key, read under every key of the ring', async () => {
      const prefix = `${RUN}-rotation`;
      const before = store(prefix, [K1]);
      // Phase 1 of a rotation adds the new key last, phase 2 puts it first; instances of both phases run together.
      const phase1 = store(prefix, [K1, K2]);
      const phase2 = store(prefix, [K2, K1]);
      const quota = { perUserLimit: 100, windowMs: 60_000, maxPendingPerUser: 2, maxPending: 100 };
      const old = pendingRecord({ userId: USER, type: TYPE });
      expect(await before.create(old, quota)).toBe('created');
      const now = old.createdAt + 1;
      await before.finish(old.id, { status: 'completed', data: { k: 1 }, now, purgeAt: now + 30_000 });
      expect(await phase2.findLatestCompleted(USER, TYPE, now + 1)).toMatchObject({ id: old.id, data: { k: 1 } });

      const pending = pendingRecord({ userId: USER, type: TYPE, createdAt: now });
      expect(await phase2.create(pending, quota)).toBe('created');
      expect((await phase1.listByUser(USER, now)).map((r) => r.id)).toEqual([old.id, pending.id]);
      expect((await phase2.listByUser(USER, now)).map((r) => r.id)).toEqual([old.id, pending.id]);
      expect(await phase1.get(pending.id, now)).toEqual(await phase2.get(pending.id, now));
      // The pending count per user adds both names: a third pending record is one too many, on either phase.
      expect(await phase1.create(pendingRecord({ userId: USER, createdAt: now }), quota)).toBe('created');
      expect(await phase2.create(pendingRecord({ userId: USER, createdAt: now }), quota)).toBe('user-pending-limit');
      // A finish on either phase takes the record out of the index it was written to.
      await phase1.finish(pending.id, { status: 'completed', data: { k: 2 }, now: now + 2, purgeAt: now + 30_000 });
      expect(await phase2.findLatestCompleted(USER, TYPE, now + 3)).toMatchObject({ id: pending.id, data: { k: 2 } });
      expect(await phase2.consume(pending.id, now + 4)).toMatchObject({ id: pending.id });
      expect(await phase1.findLatestCompleted(USER, TYPE, now + 5)).toMatchObject({ id: old.id });

      // Counters: every hit counts once, on whichever phase, and both see the same count.
      const key = `request-state:${randomUUID()}`;
      const counts: number[] = [];
      for (const s of [phase1, phase2, phase1, phase2]) counts.push((await s.hit(key, 60_000, Date.now())).count);
      expect(counts).toEqual([1, 2, 3, 4]);
      expect(await phase1.peekHits(key, 60_000, Date.now())).toBe(4);
      expect(await phase2.peekHits(key, 60_000, Date.now())).toBe(4);
    });

    it('refuses to work without keys, or with a second key ring, and takes the same keys twice', async () => {
      const bare = new RedisElicitationStore(client, { keyPrefix: `${RUN}-bare` });
      await bare.ping();
      await expect(bare.get(randomUUID(), Date.now())).rejects.toThrow(ElicitationConfigError);
      await expect(bare.hit('ip:x', 1_000, Date.now())).rejects.toThrow(/no keys yet/);
      const ring = store(`${RUN}-bare`, [K1]);
      expect(() => keyed(ring, [K1])).not.toThrow();
      expect(() => keyed(ring, [K2])).toThrow(ElicitationConfigError);
    });

    it('gets its keys from the module, and refuses two modules with different encryptionKeys', async () => {
      const shared = new RedisElicitationStore(client, { keyPrefix: `${RUN}-module` });
      const first = await compileElicitation({ encryptionKey: K1, store: shared });
      const second = await compileElicitation({ encryptionKey: K1, store: shared });
      try {
        const { elicitationId } = await first.get(ElicitationService).createUrlElicitation({ kind: 'confirm', userId: USER, message: 'm' });
        const elsewhere = store(`${RUN}-module`, [K1]);
        expect(await elsewhere.get(elicitationId, Date.now())).toMatchObject({ userId: USER });
        expect(await second.get(ElicitationService).list({ userId: USER })).toHaveLength(1);
        await expect(compileElicitation({ encryptionKey: K2, store: shared })).rejects.toThrow(/another encryptionKey/);
      } finally {
        await first.close();
        await second.close();
      }
    });

    it('names a counter by a hash of its key, keeping only its leading lowercase word', async () => {
      const prefix = `${RUN}-counters`;
      const s = store(prefix, [K1]);
      await s.hit(`ip:${IP}`, 60_000, Date.now());
      await s.hit(USER, 60_000, Date.now());
      await s.hit(`Alice:${IP}`, 60_000, Date.now());
      const shapes = (await scanKeys(client, `{${prefix}}*`)).map((n) => n.slice(keySpace(prefix).base.length + 1));
      expect(shapes).toHaveLength(3);
      expect(shapes.filter((n) => new RegExp(`^h:\\d+:ip:${NAME}$`).test(n))).toHaveLength(1);
      expect(shapes.filter((n) => new RegExp(`^h:\\d+:${NAME}$`).test(n))).toHaveLength(2);
    });

    it('never reads the keys of the earlier layout, which named users in clear', async () => {
      const prefix = `${RUN}-layout`;
      const s = store(prefix, [K1]);
      const id = randomUUID();
      await client.hset(`{${prefix}}:r:${id}`, { v: `"elicitationId":"${id}","userId":"${USER}"`, j: '"message":"m"', s: 'pending' });
      await client.zadd(`{${prefix}}:u:${USER}`, 1, id);
      expect(await s.get(id, Date.now())).toBeUndefined();
      expect(await s.listByUser(USER, Date.now())).toEqual([]);
    });
  });
});
