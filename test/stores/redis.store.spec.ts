import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { RedisElicitationStore } from '../../src/redis/redis.store.js';
import type { ElicitationEvent } from '../../src/elicitation.types.js';
import { ElicitationStoreUnavailableError } from '../../src/errors/elicitation-store-unavailable.error.js';
import { deletePrefix, describeRedis, REDIS_URL } from '../support/redis.js';
import { describeElicitationStoreContract, pendingRecord } from './store-contract.js';

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

  describeElicitationStoreContract('RedisElicitationStore', () => new RedisElicitationStore(client, { keyPrefix: `${RUN}-${++n}` }));

  describe('Redis specifics', () => {
    it('lets exactly one of 200 concurrent completions win', async () => {
      const store = new RedisElicitationStore(client, { keyPrefix: `${RUN}-race` });
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
      const store = new RedisElicitationStore(client, { keyPrefix: prefix, graceMs: 60_000 });
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
      const ttl = await client.pttl(`{${prefix}}:r:${record.id}`);
      expect(ttl).toBeGreaterThan(60_000);
      expect(ttl).toBeLessThanOrEqual(70_000);
    });

    it('uses one round trip per operation', async () => {
      const store = new RedisElicitationStore(client, { keyPrefix: `${RUN}-rt` });
      const sent: string[] = [];
      const original = client.sendCommand.bind(client);
      client.sendCommand = ((command: { name: string }) => {
        sent.push(command.name);
        return original(command as never);
      }) as typeof client.sendCommand;
      try {
        const record = pendingRecord();
        const ops: Array<[string, () => Promise<unknown>]> = [
          ['create', () => store.create(record)],
          ['get', () => store.get(record.id, record.createdAt)],
          ['finish', () => store.finish(record.id, { status: 'completed', data: { k: 1 }, now: record.createdAt + 1, purgeAt: record.purgeAt })],
          ['findLatestCompleted', () => store.findLatestCompleted(record.userId, record.type, record.createdAt + 2)],
          ['listByUser', () => store.listByUser(record.userId, record.createdAt + 2)],
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

    it('carries events between instances over pub/sub, never back to the sender', async () => {
      const prefix = `${RUN}-bus`;
      const a = new RedisElicitationStore(REDIS_URL, { keyPrefix: prefix });
      const b = new RedisElicitationStore(REDIS_URL, { keyPrefix: prefix });
      const seenByA: ElicitationEvent[] = [];
      const seenByB: ElicitationEvent[] = [];
      const channelA = await a.openEventChannel((e) => seenByA.push(e));
      const channelB = await b.openEventChannel((e) => seenByB.push(e));
      try {
        const event: ElicitationEvent = { type: 'completed', elicitationId: randomUUID(), userId: 'u', kind: 'api-key', elicitationType: 't', at: 1 };
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

    it('closes only the connections it created', async () => {
      const own = new RedisElicitationStore(REDIS_URL, { keyPrefix: `${RUN}-own` });
      await own.ping();
      await own.onModuleDestroy();
      for (let i = 0; i < 100 && own.redis.status !== 'end'; i++) await new Promise((r) => setTimeout(r, 10));
      expect(own.redis.status).toBe('end');
      const shared = new RedisElicitationStore(client, { keyPrefix: `${RUN}-shared` });
      await shared.onModuleDestroy();
      expect(client.status).toBe('ready');
    });

    it('refuses a key prefix with braces', () => {
      expect(() => new RedisElicitationStore(client, { keyPrefix: 'a{b}' })).toThrow(/keyPrefix/);
    });

    it('reports an unreachable Redis as ElicitationStoreUnavailableError, quickly', async () => {
      const down = new RedisElicitationStore({ host: '127.0.0.1', port: 1, retryStrategy: () => null }, { keyPrefix: `${RUN}-down` });
      const started = Date.now();
      const error = await down.get(randomUUID(), Date.now()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ElicitationStoreUnavailableError);
      expect(Date.now() - started).toBeLessThan(5_000);
      await down.onModuleDestroy();
    });
  });
});
