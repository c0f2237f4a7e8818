import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { Redis, type Command } from 'ioredis';
import { RedisElicitationStore } from '../../src/redis/redis.store.js';
import type { ElicitationEvent } from '../../src/core/elicitation.types.js';
import { ElicitationStoreUnavailableError } from '../../src/errors/elicitation-store-unavailable.error.js';
import { ElicitationEvents, lifecycleEvent } from '../../src/events/elicitation-events.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { keySpace } from '../../src/redis/redis.key-space.js';
import { ElicitationStore } from '../../src/stores/elicitation-store.js';
import { deletePrefix, describeRedis, REDIS_URL } from '../support/redis.js';
import { keyed } from '../support/store-keys.js';
import { compileElicitation } from '../support/testing-module.js';
import { describeElicitationStoreContract, pendingRecord, SHARED_STORE_OFFERS } from '../support/store-contract.js';

const RUN = `test-${randomUUID().slice(0, 8)}`;
let client: Redis;
let n = 0;

describeRedis('RedisElicitationStore on a real Redis', () => {
  beforeAll(() => {
    client = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    await deletePrefix(client, RUN);
    await client.quit();
  });

  describeElicitationStoreContract(
    'RedisElicitationStore',
    () => keyed(new RedisElicitationStore(client, { keyPrefix: `${RUN}-${++n}` })),
    {
      offers: [...SHARED_STORE_OFFERS, 'listOpen', 'addNotices', 'claimNotices', 'settleNotice', 'noticeStats'],
    },
  );

  describe('Redis specifics', () => {
    it('lets exactly one of 200 concurrent completions win', async () => {
      const store = keyed(new RedisElicitationStore(client, { keyPrefix: `${RUN}-race` }));
      const record = pendingRecord();
      await store.create(record);
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          store.finish(record.id, { status: 'completed', data: { n: i }, now: record.createdAt + 1, purgeAt: record.createdAt + 10_000 }),
        ),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      const winner = results.find((r) => r.ok) as { ok: true; record: { data?: unknown } };
      expect((await store.get(record.id, record.createdAt + 2))!.data).toEqual(winner.record.data);
    });

    it('keeps every key of a prefix in one hash slot and gives records a TTL', async () => {
      const prefix = `${RUN}-slot`;
      const store = keyed(new RedisElicitationStore(client, { keyPrefix: prefix, graceMs: 60_000 }));
      const now = Date.now();
      const record = pendingRecord({ createdAt: now, expiresAt: now + 5_000, purgeAt: now + 10_000, userId: 'slot-user', type: 't' });
      await store.create(record);
      await store.finish(record.id, { status: 'completed', data: { a: 1 }, now: now + 1, purgeAt: now + 10_000 });
      const keys: string[] = [];
      let cursor = '0';
      do {
        const [next, found] = await client.scan(cursor, 'MATCH', `{${prefix}}*`, 'COUNT', 1000);
        cursor = next;
        keys.push(...found);
      } while (cursor !== '0');
      expect(keys.length).toBe(4); // record, user index, completed index, deadlines
      const slots = new Set(await Promise.all(keys.map((k) => client.call('CLUSTER', 'KEYSLOT', k).catch(() => null))));
      if (![...slots].includes(null)) expect(slots.size).toBe(1);
      const ttl = await client.pttl(keySpace(prefix).record(record.id));
      expect(ttl).toBeGreaterThan(60_000);
      expect(ttl).toBeLessThanOrEqual(70_000);
    });

    it('uses one round trip per operation', async () => {
      const store = keyed(new RedisElicitationStore(client, { keyPrefix: `${RUN}-rt` }));
      const sent: string[] = [];
      const original = client.sendCommand.bind(client);
      client.sendCommand = (command: Command) => {
        sent.push(command.name);
        return original(command);
      };
      try {
        const record = pendingRecord({ askKey: 'rt-ask' });
        const ops: Array<[string, () => Promise<unknown>]> = [
          ['create', () => store.create(record)],
          ['get', () => store.get(record.id, record.createdAt)],
          [
            'finish',
            () => store.finish(record.id, { status: 'completed', data: { k: 1 }, now: record.createdAt + 1, purgeAt: record.purgeAt }),
          ],
          ['findLatestCompleted', () => store.findLatestCompleted(record.userId, record.type, record.createdAt + 2)],
          // Refused here (the record finished): the same one script either way.
          [
            'extend',
            () => store.extend(record.id, { expiresAt: record.expiresAt + 1, purgeAt: record.purgeAt + 1, now: record.createdAt + 2 }),
          ],
          ['listByUser', () => store.listByUser(record.userId, record.createdAt + 2)],
          ['findByAskKey', () => store.findByAskKey(record.userId, 'rt-ask', record.createdAt + 2)],
          ['listOpen', () => store.listOpen(record.userId, record.createdAt + 2, { limit: 10 })],
          [
            'addNotices',
            () => store.addNotices([{ id: `rt-${randomUUID()}`, elicitationId: record.id, dueAt: 1, forgetAt: 100, body: '{}' }], 2),
          ],
          ['claimNotices', () => store.claimNotices('rt', 2, 10, 10)],
          ['settleNotice', () => store.settleNotice('rt-none', 'rt', { kind: 'delivered' }, 2)],
          ['noticeStats', () => store.noticeStats(2)],
        ];
        for (const [name, op] of ops) {
          await op(); // first call may load the script (NOSCRIPT → EVAL); count the steady state
          sent.length = 0;
          await op().catch(() => undefined);
          expect([name, sent.length]).toEqual([name, 1]);
        }
      } finally {
        client.sendCommand = original;
      }
    });

    it('carries events between instances over the event stream, never back to the sender', async () => {
      const prefix = `${RUN}-bus`;
      const a = keyed(new RedisElicitationStore(REDIS_URL, { keyPrefix: prefix }));
      const b = keyed(new RedisElicitationStore(REDIS_URL, { keyPrefix: prefix }));
      const seenByA: ElicitationEvent[] = [];
      const seenByB: ElicitationEvent[] = [];
      const channelA = await a.openEventChannel((e) => seenByA.push(e));
      const channelB = await b.openEventChannel((e) => seenByB.push(e));
      try {
        const event: ElicitationEvent = {
          type: 'completed',
          elicitationId: randomUUID(),
          userId: 'u',
          kind: 'api-key',
          elicitationType: 't',
          at: 1,
        };
        await channelB.publish(event);
        const deadline = Date.now() + 2_000;
        while (seenByA.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
        expect(seenByA).toEqual([event]);
        expect(seenByB).toEqual([]);
      } finally {
        await channelA.close();
        await channelB.close();
        await a.onModuleDestroy();
        await b.onModuleDestroy();
      }
    });

    it('appends the events of the records it creates and finishes from its scripts, says so, and they arrive once, never back to the sender', async () => {
      const prefix = `${RUN}-script-event`;
      const a = keyed(new RedisElicitationStore(REDIS_URL, { keyPrefix: prefix }));
      const b = keyed(new RedisElicitationStore(REDIS_URL, { keyPrefix: prefix }));
      const seenByA: ElicitationEvent[] = [];
      const seenByB: ElicitationEvent[] = [];
      const channelA = await a.openEventChannel((e) => seenByA.push(e));
      const channelB = await b.openEventChannel((e) => seenByB.push(e));
      /** Every message appended to the stream. */
      const messages = async () => (await client.xrange(keySpace(prefix).events, '-', '+')).map(([, fields]) => fields[1]);
      const settle = async (count: number) => {
        const deadline = Date.now() + 2_000;
        while (seenByB.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
        await new Promise((r) => setTimeout(r, 100)); // room for a duplicate to show up
      };
      try {
        const withSession = pendingRecord({ sessionId: 'session-1', taskId: 'task-1', userId: 'event-user', type: 'event-type' });
        const without = pendingRecord();
        // Appended by the scripts, which say so: the module publishes nothing after them.
        expect(await a.create(withSession)).toEqual({ result: 'created', eventSent: true });
        expect(await a.create(without)).toEqual({ result: 'created', eventSent: true });
        const created = [withSession, without].map((r) => lifecycleEvent('created', r, r.createdAt));
        await settle(2);
        expect(seenByB).toEqual(created);
        expect(await messages()).toHaveLength(2);
        const now = withSession.createdAt + 1;
        const done = await a.finish(withSession.id, { status: 'completed', data: { k: 1 }, now, purgeAt: now + 1_000 });
        expect(done).toMatchObject({ ok: true, eventSent: true });
        const completed: ElicitationEvent = {
          type: 'completed',
          elicitationId: withSession.id,
          userId: 'event-user',
          kind: 'api-key',
          elicitationType: 'event-type',
          sessionId: 'session-1',
          taskId: 'task-1',
          at: now,
        };
        await settle(3);
        expect(seenByB).toEqual([...created, completed]);
        expect(await messages()).toHaveLength(3);

        // A refused finish appends nothing, and says it sent nothing.
        const refused = await a.finish(withSession.id, { status: 'declined', now: now + 1, purgeAt: now + 1_000 });
        expect(refused).toMatchObject({ ok: false });
        expect(refused).not.toHaveProperty('eventSent');
        const declined = await a.finish(without.id, { status: 'declined', now: now + 2, purgeAt: now + 1_000 });
        expect(declined).toMatchObject({ ok: true, eventSent: true });
        const declinedEvent: ElicitationEvent = {
          type: 'declined',
          elicitationId: without.id,
          userId: without.userId,
          kind: without.kind,
          elicitationType: without.type,
          at: now + 2,
        };
        // Events no script appended (here a made-up one) still go out through the channel.
        const other: ElicitationEvent = { ...declinedEvent, type: 'cancelled', elicitationId: randomUUID(), at: 7 };
        await channelA.publish(other);
        await settle(5);
        expect(seenByB).toEqual([...created, completed, declinedEvent, other]);
        expect(await messages()).toHaveLength(5);
        expect(seenByA).toEqual([]);
      } finally {
        await channelA.close();
        await channelB.close();
        await a.onModuleDestroy();
        await b.onModuleDestroy();
      }
    });

    it('through the module: each move puts one event on the stream in its one round trip, and the other instance hears it once', async () => {
      const prefix = `${RUN}-module-events`;
      const [own, other] = [new Redis(REDIS_URL), new Redis(REDIS_URL)];
      const refs: TestingModule[] = [];
      try {
        const heard: [ElicitationEvent[], ElicitationEvent[]] = [[], []];
        for (const [i, redis] of [own, other].entries()) {
          const store = new RedisElicitationStore(redis, { keyPrefix: prefix });
          const ref = await compileElicitation({ store, encryptionKey: Buffer.alloc(32, 7), ttlMs: 60_000 });
          refs.push(ref);
          ref.get(ElicitationEvents).subscribe((event) => heard[i].push(event));
          // Resolves once the store's start-up work (the askKey index's upgrade) is over: the connection is quiet.
          await ref.get(ElicitationStore).findByAskKey?.('nobody', 'nothing', Date.now());
        }
        const service = refs[0].get(ElicitationService);
        /** The commands A's connection sends while `run` runs. */
        const commands = async (run: () => Promise<unknown>): Promise<string[]> => {
          const sent: string[] = [];
          const original = own.sendCommand.bind(own);
          own.sendCommand = (command: Command) => {
            sent.push(command.name.toLowerCase());
            return original(command);
          };
          try {
            await run();
          } finally {
            own.sendCommand = original;
          }
          return sent;
        };
        /** Created, extended, completed; created, expired by the sweep: each move with the commands it sent. */
        const moves = async () => {
          const first = await service.createUrlElicitation({ kind: 'api-key', message: 'Key?', userId: 'alice' });
          const second = await service.createUrlElicitation({ kind: 'api-key', message: 'Key?', userId: 'bob' });
          const afterBob = Date.now();
          const extended = await commands(() => service.extend(first.elicitationId));
          const completed = await commands(() => service.complete(first.elicitationId, { apiKey: 'k' }));
          // Carol's expires at least 2 ms after bob's, so the sweep at bob's expiry (+1 ms) leaves hers pending.
          while (Date.now() < afterBob + 2) await new Promise((r) => setTimeout(r, 1));
          const created = await commands(() => service.createUrlElicitation({ kind: 'api-key', message: 'Key?', userId: 'carol' }));
          const swept = await commands(() => service.sweep(second.expiresAt.getTime() + 1));
          return { ids: [first.elicitationId, second.elicitationId], sent: [extended, completed, created, swept] };
        };
        await moves(); // every script loaded once (EVALSHA → NOSCRIPT → EVAL); then counted
        await service.sweep(Date.now() + 120_000); // nothing of the warm-up left pending
        const stream = keySpace(prefix).events;
        const [lastId] = (await client.xrevrange(stream, '+', '-', 'COUNT', 1))[0];
        heard[0].length = heard[1].length = 0;
        const { ids, sent } = await moves();
        // Each move is its one round trip (extend reads the record first, as it always did): no publish after it.
        expect(sent).toEqual([['hmget', 'evalsha'], ['evalsha'], ['evalsha'], ['evalsha']]);
        // One entry per move on the stream...
        const appended = (await client.xrange(stream, `(${lastId}`, '+')).map(([, fields]) => {
          const { event } = JSON.parse(fields[1]) as { event: { type: string; elicitationId: string } };
          return [event.type, event.elicitationId];
        });
        const third = appended.find(([type, id]) => type === 'created' && !ids.includes(id))?.[1];
        const expected = [
          ['created', ids[0]],
          ['created', ids[1]],
          ['extended', ids[0]],
          ['completed', ids[0]],
          ['created', third],
          ['expired', ids[1]],
        ];
        expect(appended).toEqual(expected);
        // ...heard once here, and once on the other instance.
        const deadline = Date.now() + 2_000;
        while (heard[1].length < expected.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
        await new Promise((r) => setTimeout(r, 100)); // room for a second copy
        for (const events of heard) expect(events.map((e) => [e.type, e.elicitationId])).toEqual(expected);
      } finally {
        for (const ref of refs) await ref.close();
        await Promise.all([own.quit(), other.quit()]);
        await deletePrefix(client, prefix);
      }
    });

    it('publishes through the channels only when several are open on one store', async () => {
      const prefix = `${RUN}-two-channels`;
      const a = keyed(new RedisElicitationStore(REDIS_URL, { keyPrefix: prefix }));
      const b = keyed(new RedisElicitationStore(REDIS_URL, { keyPrefix: prefix }));
      const seen: ElicitationEvent[][] = [[], [], []];
      const channels = [
        await a.openEventChannel((e) => seen[0].push(e)),
        await a.openEventChannel((e) => seen[1].push(e)),
        await b.openEventChannel((e) => seen[2].push(e)),
      ];
      try {
        // The scripts append nothing, and the results say nothing was sent: each module publishes its own.
        const record = pendingRecord();
        expect(await a.create(record)).toBe('created');
        const now = record.createdAt + 1;
        expect(await a.finish(record.id, { status: 'cancelled', now, purgeAt: now + 1_000 })).toEqual({
          ok: true,
          record: expect.anything(),
        });
        expect(await client.exists(keySpace(prefix).events)).toBe(0);
        const event: ElicitationEvent = {
          type: 'cancelled',
          elicitationId: record.id,
          userId: record.userId,
          kind: record.kind,
          elicitationType: record.type,
          at: now,
        };
        await channels[0].publish(event);
        const deadline = Date.now() + 2_000;
        while ((seen[1].length === 0 || seen[2].length === 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
        await new Promise((r) => setTimeout(r, 100));
        expect(seen).toEqual([[], [event], [event]]);
      } finally {
        for (const c of channels) await c.close();
        await a.onModuleDestroy();
        await b.onModuleDestroy();
      }
    });

    it('returns from finish the record it stored', async () => {
      const store = keyed(new RedisElicitationStore(client, { keyPrefix: `${RUN}-finish-record` }));
      const now = Date.now();
      const cases = [
        {
          record: pendingRecord({ createdAt: now, expiresAt: now + 5_000, purgeAt: now + 10_000, sessionId: 's' }),
          change: { status: 'completed' as const, data: { apiKey: 'k', nested: { a: [1, 2] } } },
        },
        {
          record: pendingRecord({
            createdAt: now,
            expiresAt: now + 5_000,
            purgeAt: now + 10_000,
            metadata: { form: { schema: { type: 'object' } }, 'q"uote': '\u00e9\u2028' },
          }),
          change: { status: 'declined' as const },
        },
        {
          record: pendingRecord({ createdAt: now - 10_000, expiresAt: now - 1, purgeAt: now + 1_000 }),
          change: { status: 'expired' as const },
        },
      ];
      for (const { record, change } of cases) {
        await store.create(record);
        const result = await store.finish(record.id, { ...change, now, purgeAt: now + 20_000 });
        expect(result.ok).toBe(true);
        const stored = await store.get(record.id, now);
        expect((result as { record: unknown }).record).toEqual(stored);
        expect(stored).toEqual({ ...record, ...change, finishedAt: now, purgeAt: now + 20_000 });
      }
    });

    it('keeps a finished record for at least graceMs past its purgeAt, and extends the TTL for a later one', async () => {
      const prefix = `${RUN}-ttl`;
      const store = keyed(new RedisElicitationStore(client, { keyPrefix: prefix, graceMs: 60_000 }));
      const now = Date.now();
      const early = pendingRecord({ createdAt: now, expiresAt: now + 5_000, purgeAt: now + 10_000 });
      const late = pendingRecord({ createdAt: now - 10_000, expiresAt: now - 1, purgeAt: now + 1_000 });
      await store.create(early);
      await store.create(late);
      await store.finish(early.id, { status: 'completed', data: { a: 1 }, now: now + 1, purgeAt: now + 2_000 });
      const earlyTtl = await client.pttl(keySpace(prefix).record(early.id));
      expect(earlyTtl).toBeGreaterThan(2_000 + 60_000 - 1_000);
      expect(earlyTtl).toBeLessThanOrEqual(10_000 + 60_000);
      await store.finish(late.id, { status: 'expired', now, purgeAt: now + 100_000 });
      const lateTtl = await client.pttl(keySpace(prefix).record(late.id));
      expect(lateTtl).toBeGreaterThan(100_000 + 60_000 - 1_000);
      expect(lateTtl).toBeLessThanOrEqual(100_000 + 60_000);
    });

    it('extends the TTL of an extended record and of the keys that list it to its new purgeAt plus graceMs', async () => {
      const prefix = `${RUN}-extend-ttl`;
      const keys = keySpace(prefix);
      const store = keyed(new RedisElicitationStore(client, { keyPrefix: prefix, graceMs: 10_000 }));
      const now = Date.now();
      const record = pendingRecord({ createdAt: now, expiresAt: now + 5_000, purgeAt: now + 8_000 });
      await store.create(record);
      expect(await client.pttl(keys.record(record.id))).toBeLessThanOrEqual(18_000);
      const result = await store.extend(record.id, { expiresAt: now + 65_000, purgeAt: now + 68_000, now: now + 1 });
      expect(result.ok).toBe(true);
      for (const key of [keys.record(record.id), keys.deadlines, keys.pending]) {
        expect(await client.pttl(key)).toBeGreaterThan(70_000);
      }
      expect(Number(await client.zscore(keys.deadlines, record.id))).toBe(now + 65_000);
      await deletePrefix(client, prefix);
    });

    it('keeps the askKey index in step with its records (hashed name, TTL, purge) and apart per key prefix', async () => {
      const prefix = `${RUN}-asked`;
      const keys = keySpace(prefix);
      const store = keyed(new RedisElicitationStore(client, { keyPrefix: prefix, graceMs: 10_000 }));
      const other = keyed(new RedisElicitationStore(client, { keyPrefix: `${prefix}-other`, graceMs: 10_000 }));
      const now = Date.now();
      const askKey = `ask-${randomUUID()}`;
      const record = pendingRecord({ userId: 'asked-user', askKey, createdAt: now, expiresAt: now + 5_000, purgeAt: now + 8_000 });
      await store.create(record);
      const indexes = await client.keys(`${keys.base}:a:*`);
      expect(indexes).toHaveLength(1);
      const index = indexes[0] ?? '';
      expect(index).not.toContain('asked-user');
      expect(index).not.toContain(askKey);
      expect(await client.zrange(index, '0', '-1')).toEqual([record.id]);
      expect(await client.pttl(index)).toBeGreaterThan(17_000);
      // Another prefix on the same Redis sees none of it.
      expect(await other.findByAskKey('asked-user', askKey, now)).toEqual([]);
      expect((await store.findByAskKey('asked-user', askKey, now)).map((r) => r.id)).toEqual([record.id]);
      // Expired later than its first purgeAt: the index lives as long as the record.
      await store.finish(record.id, { status: 'expired', now: now + 1, purgeAt: now + 65_000 });
      expect(await client.pttl(index)).toBeGreaterThan(70_000);
      // Purged by the sweep: its entry leaves the index.
      await store.sweep(now + 65_000, 0);
      expect(await client.zrange(index, '0', '-1')).toEqual([]);
      expect(await store.findByAskKey('asked-user', askKey, now + 65_001)).toEqual([]);
      await deletePrefix(client, prefix);
    });

    it('finds the latest answer of a user whose id is not ASCII', async () => {
      const store = keyed(new RedisElicitationStore(client, { keyPrefix: `${RUN}-utf8` }));
      const record = pendingRecord({ userId: 'jos\u00e9-\u{1F600}', type: 'api-key-\u00fc' });
      await store.create(record);
      const now = record.createdAt + 1;
      await store.finish(record.id, { status: 'completed', data: { apiKey: 'k' }, now, purgeAt: now + 1_000 });
      expect(await store.findLatestCompleted(record.userId, record.type, now + 1)).toMatchObject({ id: record.id, data: { apiKey: 'k' } });
      expect(await store.consume(record.id, now + 2)).toMatchObject({ id: record.id });
      expect(await store.findLatestCompleted(record.userId, record.type, now + 3)).toBeUndefined();
    });

    it('counts pending records per user exactly, whatever the user ids look like', async () => {
      const store = keyed(new RedisElicitationStore(client, { keyPrefix: `${RUN}-pending-ids` }));
      const quota = { perUserLimit: 100, windowMs: 60_000, maxPendingPerUser: 2, maxPending: 7 };
      const users = ['x', 'x:', 'x:y', '1:x', '2:x:', 'x;'];
      for (const userId of users) expect(await store.create(pendingRecord({ userId }), quota)).toBe('created');
      expect(await store.create(pendingRecord({ userId: 'x' }), quota)).toBe('created');
      expect(await store.create(pendingRecord({ userId: 'x' }), quota)).toBe('user-pending-limit');
      expect(await store.create(pendingRecord({ userId: 'x:y' }), quota)).toBe('pending-limit');
    });

    it('closes only the connections it created', async () => {
      const own = keyed(new RedisElicitationStore(REDIS_URL, { keyPrefix: `${RUN}-own` }));
      await own.ping();
      await own.onModuleDestroy();
      for (let i = 0; i < 100 && own.redis.status !== 'end'; i++) await new Promise((r) => setTimeout(r, 10));
      expect(own.redis.status).toBe('end');
      const shared = keyed(new RedisElicitationStore(client, { keyPrefix: `${RUN}-shared` }));
      await shared.onModuleDestroy();
      expect(client.status).toBe('ready');
    });

    it('refuses a key prefix with braces', () => {
      expect(() => new RedisElicitationStore(client, { keyPrefix: 'a{b}' })).toThrow(/keyPrefix/);
    });

    it('reports an unreachable Redis as ElicitationStoreUnavailableError, quickly', async () => {
      const down = keyed(
        new RedisElicitationStore({ host: '127.0.0.1', port: 1, retryStrategy: () => null }, { keyPrefix: `${RUN}-down` }),
      );
      const started = Date.now();
      const error = await down.get(randomUUID(), Date.now()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ElicitationStoreUnavailableError);
      expect(Date.now() - started).toBeLessThan(5_000);
      await down.onModuleDestroy();
    });
  });
});
