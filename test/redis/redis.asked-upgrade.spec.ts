/**
 * The asked index's upgrade on a real Redis: records written before the index existed (every field and index of
 * the record but the `a` field and its entry in `{prefix}:v2:a:<name>`, as the earlier CREATE wrote them) are filed
 * in it when a store starts, once per key prefix, so `findByAskKey` finds them; the marker guards it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { Redis, type Command } from 'ioredis';
import type { ElicitationRecord } from '../../src/core/elicitation.types.js';
import { ASKED_UPGRADE_BATCH } from '../../src/redis/redis.asked-upgrade.js';
import { keySpace } from '../../src/redis/redis.key-space.js';
import { RedisElicitationStore } from '../../src/redis/redis.store.js';
import { pendingRecord } from '../../src/testing/store-contract.js';
import { deletePrefix, describeRedis, REDIS_URL } from '../support/redis.js';
import { keyed } from '../support/store-keys.js';

const RUN = `test-asked-upgrade-${randomUUID().slice(0, 8)}`;

describeRedis('RedisElicitationStore: records written before the askKey index', () => {
  let client: Redis;
  let n = 0;
  const stores: RedisElicitationStore[] = [];

  beforeAll(() => {
    client = new Redis(REDIS_URL);
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.onModuleDestroy()));
  });
  afterAll(async () => {
    await deletePrefix(client, RUN);
    await client.quit();
  });

  /** A store on `prefix` over `redis` (the shared client by default), with its keys, as the module builds it. */
  function store(prefix: string, redis: Redis = client): RedisElicitationStore {
    const s = keyed(new RedisElicitationStore(redis, { keyPrefix: prefix, graceMs: 10_000 }));
    stores.push(s);
    return s;
  }

  /**
   * Writes `records` as a version before the index did: created by today's CREATE, then without what the index
   * added (the record's `a` field and the asked index keys).
   */
  async function writtenBefore(prefix: string, records: ElicitationRecord[]): Promise<void> {
    const writer = store(prefix);
    await Promise.all(records.map((r) => writer.create(r)));
    const keys = keySpace(prefix);
    for (const r of records) await client.hdel(keys.record(r.id), 'a');
    for (const index of await client.keys(`${keys.base}:a:*`)) await client.del(index);
  }

  /** The commands `redis` sends while `run` runs. */
  async function commandsOf(redis: Redis, run: () => Promise<unknown>): Promise<string[]> {
    const sent: string[] = [];
    const original = redis.sendCommand.bind(redis);
    redis.sendCommand = (command: Command) => {
      sent.push(command.name);
      return original(command);
    };
    try {
      await run();
    } finally {
      redis.sendCommand = original;
    }
    return sent;
  }

  it('files them when a store starts, so findByAskKey finds them, newest first, with their answers', async () => {
    const prefix = `${RUN}-${++n}`;
    const now = Date.now();
    const askKey = `ask-${randomUUID()}`;
    const at = (ms: number) => ({ createdAt: now + ms, expiresAt: now + ms + 60_000, purgeAt: now + ms + 90_000 });
    const older = pendingRecord({ userId: 'u1', askKey, ...at(1) });
    const newer = pendingRecord({ userId: 'u1', askKey, ...at(2) });
    const otherUser = pendingRecord({ userId: 'u2', askKey, ...at(3) });
    const noKey = pendingRecord({ userId: 'u1', ...at(4) });
    await writtenBefore(prefix, [older, newer, otherUser, noKey]);
    const writer = stores[0];
    await writer.finish(older.id, { status: 'completed', data: { apiKey: 'a' }, now: now + 5, purgeAt: now + 90_000 });
    const keys = keySpace(prefix);
    // What a version with the index but no upgrade would miss.
    expect(await writer.findByAskKey('u1', askKey, now + 6)).toEqual([]);

    const started = store(prefix);
    started.onModuleInit();
    const found = await started.findByAskKey('u1', askKey, now + 6);
    expect(found.map((r) => [r.id, r.status])).toEqual([
      [newer.id, 'pending'],
      [older.id, 'completed'],
    ]);
    expect(found[1]).toMatchObject({ data: { apiKey: 'a' }, askKey });
    expect((await started.findByAskKey('u2', askKey, now + 6)).map((r) => r.id)).toEqual([otherUser.id]);
    // Filed as CREATE files: the record names its index, which lives at least as long as the record.
    const index = await client.hget(keys.record(newer.id), 'a');
    expect(index).toEqual(expect.any(String));
    expect(await client.pttl(keys.asked(index!))).toBeGreaterThanOrEqual(await client.pttl(keys.record(newer.id)));
    expect(await client.hexists(keys.record(noKey.id), 'a')).toBe(0);
    // Then the index keeps up as for any record: the sweep that purges the answered one drops its entry.
    expect(await client.zrange(keys.asked(index!), '0', '-1')).toEqual([older.id, newer.id]);
    await started.sweep(now + 90_000, 0);
    expect(await client.zrange(keys.asked(index!), '0', '-1')).toEqual([newer.id]);
    // Done: the marker stays a year, so no start scans again.
    expect(await client.get(keys.askedUpgrade)).toBe('done');
    expect(await client.pttl(keys.askedUpgrade)).toBeGreaterThan(364 * 24 * 3_600_000);
  });

  it('runs once per key prefix: a later start costs one script call and files nothing', async () => {
    const prefix = `${RUN}-${++n}`;
    const askKey = `ask-${randomUUID()}`;
    const first = pendingRecord({ askKey });
    await writtenBefore(prefix, [first]);
    const once = store(prefix);
    once.onModuleInit();
    expect((await once.findByAskKey(first.userId, askKey, first.createdAt)).map((r) => r.id)).toEqual([first.id]);

    // A record without its index entry after that (none is written so today) is not looked for again.
    const later = pendingRecord({ askKey, createdAt: first.createdAt + 1 });
    await writtenBefore(prefix, [later]);
    const own = new Redis(REDIS_URL);
    await own.ping(); // connected: the handshake is not counted
    try {
      const again = store(prefix, own);
      const sent = await commandsOf(own, async () => {
        again.onModuleInit();
        await again.findByAskKey(later.userId, `ask-${randomUUID()}`, later.createdAt); // waits for the upgrade
      });
      expect(sent.map((c) => c.toLowerCase())).toEqual(['evalsha', 'evalsha']); // the start, then the lookup
      expect(await again.findByAskKey(later.userId, askKey, later.createdAt)).toEqual([]);
      // Started twice (two modules on one store): once.
      expect(await commandsOf(own, () => Promise.resolve(again.onModuleInit()))).toEqual([]);
    } finally {
      await own.quit();
    }
  });

  it('writes nothing into a prefix without records: the first start there finds nothing to file', async () => {
    const prefix = `${RUN}-${++n}`;
    const empty = store(prefix);
    empty.onModuleInit();
    expect(await empty.findByAskKey('u', 'k', Date.now())).toEqual([]);
    expect(await client.keys(`{${prefix}}*`)).toEqual([]);
    // Once records are there, a start walks them (here, written before the index) and files them.
    const record = pendingRecord({ askKey: `ask-${randomUUID()}` });
    await writtenBefore(prefix, [record]);
    const next = store(prefix);
    next.onModuleInit();
    expect((await next.findByAskKey(record.userId, record.askKey!, record.createdAt)).map((r) => r.id)).toEqual([record.id]);
    expect(await client.get(keySpace(prefix).askedUpgrade)).toBe('done');
  });

  it('leaves it to the instance holding the lease, and takes over once the lease ran out', async () => {
    const prefix = `${RUN}-${++n}`;
    const keys = keySpace(prefix);
    const record = pendingRecord({ askKey: `ask-${randomUUID()}` });
    await writtenBefore(prefix, [record]);
    // Another instance took the lease and stopped before it was done.
    expect(await client.set(keys.askedUpgrade, 'another-instance', 'PX', 300)).toBe('OK');
    const meanwhile = store(prefix);
    meanwhile.onModuleInit();
    expect(await meanwhile.findByAskKey(record.userId, record.askKey!, record.createdAt)).toEqual([]);
    expect(await client.get(keys.askedUpgrade)).toBe('another-instance');
    await new Promise((r) => setTimeout(r, 400));
    const after = store(prefix);
    after.onModuleInit();
    expect((await after.findByAskKey(record.userId, record.askKey!, record.createdAt)).map((r) => r.id)).toEqual([record.id]);
    expect(await client.get(keys.askedUpgrade)).toBe('done');
  });

  it(`files more records than one step reads (${ASKED_UPGRADE_BATCH}), each once`, async () => {
    const prefix = `${RUN}-${++n}`;
    const askKey = `ask-${randomUUID()}`;
    const now = Date.now();
    const records = Array.from({ length: 2 * ASKED_UPGRADE_BATCH + 7 }, (_, i) =>
      pendingRecord({
        userId: `u${i % 3}`,
        askKey: i % 2 ? askKey : undefined,
        createdAt: now + i,
        expiresAt: now + 60_000,
        purgeAt: now + 90_000,
      }),
    );
    await writtenBefore(prefix, records);
    const started = store(prefix);
    const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    try {
      started.onModuleInit();
      for (const user of ['u0', 'u1', 'u2']) {
        const expected = records
          .filter((r) => r.userId === user && r.askKey === askKey)
          .map((r) => r.id)
          .reverse();
        expect((await started.findByAskKey(user, askKey, now)).map((r) => r.id)).toEqual(expected);
      }
      const filed = records.filter((r) => r.askKey).length;
      expect(log.mock.calls.map(([m]) => String(m))).toContain(
        `Filed ${filed} record(s) written before the askKey index in it (once for ${keySpace(prefix).base}).`,
      );
    } finally {
      log.mockRestore();
    }
  });

  it('says so when Redis fails meanwhile, and findByAskKey answers for itself', async () => {
    const down = keyed(new RedisElicitationStore({ host: '127.0.0.1', port: 1, retryStrategy: () => null }, { keyPrefix: `${RUN}-down` }));
    stores.push(down);
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      down.onModuleInit();
      await expect(down.findByAskKey('u', 'k', Date.now())).rejects.toThrow(/findByAskKey/);
      expect(warn.mock.calls.map(([m]) => String(m))).toEqual([
        expect.stringMatching(
          /^Could not file the records written before the askKey index \(.+\): an instance that starts after 30 s does it\.$/,
        ),
      ]);
    } finally {
      warn.mockRestore();
    }
  });
});
