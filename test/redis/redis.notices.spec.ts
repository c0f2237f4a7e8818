/**
 * The Redis store's outbox and inbox beyond the contract: two instances on two connections claiming at once never
 * get the same notice; every outbox key has a TTL and lives in the prefix's hash slot; `listOpen` reads the records
 * of every name of a rotated key ring.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { RedisElicitationStore } from '../../src/redis/redis.store.js';
import type { NewNotice, StoredNotice } from '../../src/stores/notice-store.js';
import { deletePrefix, describeRedis, REDIS_URL, scanKeys } from '../support/redis.js';
import { keyed, TEST_ENCRYPTION_KEY } from '../support/store-keys.js';
import { pendingRecord } from '../support/store-contract.js';

const RUN = `test-notices-${randomUUID().slice(0, 8)}`;

describeRedis('RedisElicitationStore outbox and inbox on a real Redis', () => {
  let client: Redis;

  beforeAll(() => {
    client = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    await deletePrefix(client, RUN);
    await client.quit();
  });

  it('gives each of 200 notices to one of two instances claiming at once on two connections, while the leases hold', async () => {
    const prefix = `${RUN}-race`;
    const connections = [new Redis(REDIS_URL), new Redis(REDIS_URL)];
    const [a, b] = connections.map((redis) => keyed(new RedisElicitationStore(redis, { keyPrefix: prefix })));
    try {
      const now = Date.now();
      const notices: NewNotice[] = Array.from({ length: 200 }, (_, i) => ({
        id: `n_${i}_${randomUUID()}`,
        elicitationId: randomUUID(),
        dueAt: now - 1_000 + (i % 17),
        forgetAt: now + 600_000,
        body: `{"i":${i}}`,
      }));
      expect(await a.addNotices(notices, now)).toBe(200);
      /** Claims in small batches until nothing is due, each claim at a later time within the lease. */
      const claimer = async (store: RedisElicitationStore, owner: string): Promise<StoredNotice[]> => {
        const mine: StoredNotice[] = [];
        for (let round = 0; round < 500; round++) {
          const got = await store.claimNotices(owner, now + round, 3, 60_000);
          if (got.length === 0) break;
          mine.push(...got);
        }
        return mine;
      };
      const [ofA, ofB] = await Promise.all([claimer(a, 'a'), claimer(b, 'b')]);
      const ids = [...ofA, ...ofB].map((n) => n.id);
      expect(ids).toHaveLength(200);
      expect(new Set(ids).size).toBe(200);
      expect(ofA.length).toBeGreaterThan(0);
      expect(ofB.length).toBeGreaterThan(0);
      for (const n of ofA) expect([n.owner, n.attempts]).toEqual(['a', 1]);
      for (const n of ofB) expect([n.owner, n.attempts]).toEqual(['b', 1]);
      // Fenced by the lease: the other instance settles nothing of a's, a settles its own.
      expect(await b.settleNotice(ofA[0].id, 'b', { kind: 'delivered' }, now + 600)).toBe(false);
      expect(await a.settleNotice(ofA[0].id, 'a', { kind: 'delivered' }, now + 600)).toBe(true);
      expect(await b.noticeStats(now + 600)).toMatchObject({ pending: 199, failed: 0, delivered: 1 });
    } finally {
      await Promise.all(connections.map((c) => c.quit()));
      await deletePrefix(client, prefix);
    }
  });

  it('keeps the outbox in the prefix hash tag, every key with a TTL, and forgets it past forgetAt', async () => {
    const prefix = `${RUN}-keys`;
    const store = keyed(new RedisElicitationStore(client, { keyPrefix: prefix, graceMs: 60_000 }));
    const now = Date.now();
    const notice = (i: number): NewNotice => ({ id: `k${i}`, elicitationId: randomUUID(), dueAt: now, forgetAt: now + 10_000, body: '{}' });
    await store.addNotices([notice(1), notice(2), notice(3)], now);
    const [d, f] = await store.claimNotices('a', now, 2, 1_000);
    await store.settleNotice(d.id, 'a', { kind: 'delivered' }, now + 1);
    await store.settleNotice(f.id, 'a', { kind: 'failed', error: 'HTTP 410' }, now + 1);
    const keys = (await scanKeys(client, `{${prefix}}*`)).sort();
    const base = `{${prefix}}:v2`;
    // The failed and the unclaimed notice, the pending and forget sets, the delivered counter.
    expect(keys).toEqual([`${base}:n:k3`, `${base}:n:${f.id}`, `${base}:nc`, `${base}:nd`, `${base}:nf`].sort());
    for (const key of keys) {
      const ttl = await client.pttl(key);
      expect([key, ttl > 60_000 && ttl <= 2 * 70_000]).toEqual([key, true]);
    }
    expect(await store.noticeStats(now + 2)).toEqual({ pending: 1, failed: 1, delivered: 1, oldestDueAt: now });
    expect(await store.noticeStats(now + 10_000)).toEqual({ pending: 0, failed: 0, delivered: 1 });
    expect((await scanKeys(client, `{${prefix}}*`)).sort()).toEqual([`${base}:nc`]);
    await deletePrefix(client, prefix);
  });

  it("lists a user's open records under every key of a rotated ring", async () => {
    const prefix = `${RUN}-ring`;
    const before = keyed(new RedisElicitationStore(client, { keyPrefix: prefix }));
    const after = keyed(new RedisElicitationStore(client, { keyPrefix: prefix }), [randomBytes(32), TEST_ENCRYPTION_KEY]);
    const now = Date.now();
    const old = pendingRecord({ userId: 'ring-user', createdAt: now - 2, expiresAt: now + 60_000, purgeAt: now + 90_000 });
    const fresh = pendingRecord({ userId: 'ring-user', createdAt: now - 1, expiresAt: now + 60_000, purgeAt: now + 90_000 });
    await before.create(old);
    await after.create(fresh);
    const page = await after.listOpen('ring-user', now, { limit: 1 });
    expect(page.records).toEqual([fresh]);
    const next = await after.listOpen('ring-user', now, { limit: 1, after: page.next });
    expect(next.records).toEqual([old]);
    expect(next.next).toBeUndefined();
    await deletePrefix(client, prefix);
  });
});
