import { randomUUID } from 'node:crypto';
import type { ElicitationEvent, ElicitationRecord } from '../elicitation.types.js';
import type { ElicitationRecordStore, KeyRingEntry } from '../stores/elicitation-store.js';
import {
  itIfOffered,
  itOffersExactly,
  pendingRecord,
  RETENTION,
  T0,
  TTL,
  type ContractSuiteOptions,
  type ContractTestApi,
} from './contract-test-api.js';

/**
 * The behaviour every `ElicitationRecordStore` must have, races included: the suite the built-in stores pass.
 * Run it against your own store in your own test runner:
 *
 * ```ts
 * import { describe, it, expect, beforeEach, afterAll } from '@jest/globals';
 * import { describeElicitationRecordStoreContract } from 'nestjs-mcp-elicitation/testing';
 * describeElicitationRecordStoreContract('MyStore', () => new MyStore(), { describe, it, expect, beforeEach, afterAll }, { offers: ['ping'] });
 * ```
 *
 * `makeStore` runs before every test; give each test a fresh store (or a fresh key prefix). The tests of
 * `extend`, `ping`, `openEventChannel` and `announceKeyRing` run when `options.offers` lists them, and are reported as
 * skipped otherwise.
 */
export function describeElicitationRecordStoreContract(
  name: string,
  makeStore: () => ElicitationRecordStore | Promise<ElicitationRecordStore>,
  api: ContractTestApi,
  options: ContractSuiteOptions = {},
): void {
  api.describe(`${name} (ElicitationRecordStore contract)`, () => {
    recordStoreTests(makeStore, api, options.offers);
    if (options.afterAll) api.afterAll(options.afterAll);
  });
}

/** Registers the tests of the record contract in the enclosing `describe`. */
export function recordStoreTests(
  makeStore: () => ElicitationRecordStore | Promise<ElicitationRecordStore>,
  api: ContractTestApi,
  offers: ContractSuiteOptions['offers'],
): void {
  const { it, expect, beforeEach } = api;
  let store: ElicitationRecordStore;
  beforeEach(async () => {
    store = await makeStore();
  });

  itOffersExactly(api, offers, ['extend', 'ping', 'openEventChannel', 'announceKeyRing'], () => store);

  it('returns what was created, and undefined for unknown ids', async () => {
    const record = pendingRecord();
    await store.create(record);
    await expect(store.get(record.id, T0)).resolves.toEqual(record);
    await expect(store.get(randomUUID(), T0)).resolves.toBeUndefined();
  });

  it("keeps a record's askKey (the MCP link rung finds questions by it) through get, listByUser and finish", async () => {
    const record = pendingRecord({ askKey: 'k-' + randomUUID() });
    await store.create(record);
    expect((await store.get(record.id, T0))!.askKey).toBe(record.askKey);
    expect((await store.listByUser(record.userId, T0)).map((r) => r.askKey)).toEqual([record.askKey]);
    const finished = await store.finish(record.id, { status: 'declined', now: T0 + 1, purgeAt: T0 + 1 + RETENTION });
    expect(finished.ok && finished.record.askKey).toBe(record.askKey);
    expect((await store.get(record.id, T0 + 2))!.askKey).toBe(record.askKey);
  });

  it('hands out copies: mutating a returned record changes nothing stored', async () => {
    const record = pendingRecord();
    await store.create(record);
    const got = (await store.get(record.id, T0))!;
    got.status = 'completed';
    record.status = 'declined';
    expect((await store.get(record.id, T0))!.status).toBe('pending');
  });

  it('completes a pending record exactly once and keeps the first data', async () => {
    const record = pendingRecord();
    await store.create(record);
    const first = await store.finish(record.id, {
      status: 'completed',
      data: { apiKey: 'first' },
      now: T0 + 1,
      purgeAt: T0 + 1 + RETENTION,
    });
    expect(first.ok).toBe(true);
    const second = await store.finish(record.id, {
      status: 'completed',
      data: { apiKey: 'second' },
      now: T0 + 2,
      purgeAt: T0 + 2 + RETENTION,
    });
    expect(second).toMatchObject({ ok: false, reason: 'already-finished', status: 'completed' });
    const declined = await store.finish(record.id, { status: 'declined', now: T0 + 3, purgeAt: T0 + 3 + RETENTION });
    expect(declined).toMatchObject({ ok: false, reason: 'already-finished', status: 'completed' });
    const stored = (await store.get(record.id, T0 + 4))!;
    expect(stored).toMatchObject({ status: 'completed', data: { apiKey: 'first' }, finishedAt: T0 + 1, purgeAt: T0 + 1 + RETENTION });
  });

  it('lets exactly one of 100 concurrent completions win', async () => {
    const record = pendingRecord();
    await store.create(record);
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        store.finish(record.id, { status: 'completed', data: { n: i }, now: T0 + 1, purgeAt: T0 + RETENTION }),
      ),
    );
    const winners = results.filter((r) => r.ok);
    expect(winners).toHaveLength(1);
    const winner = winners[0];
    expect((await store.get(record.id, T0 + 2))!.data).toEqual(winner.record.data);
  });

  it('refuses to complete after expiresAt but allows the expired transition', async () => {
    const record = pendingRecord();
    await store.create(record);
    const late = await store.finish(record.id, {
      status: 'completed',
      data: { apiKey: 'x' },
      now: record.expiresAt,
      purgeAt: record.expiresAt + RETENTION,
    });
    expect(late).toMatchObject({ ok: false, reason: 'expired' });
    expect((await store.get(record.id, record.expiresAt))!.status).toBe('pending');
    const expired = await store.finish(record.id, { status: 'expired', now: record.expiresAt, purgeAt: record.expiresAt + RETENTION });
    expect(expired).toMatchObject({ ok: true, record: { status: 'expired' } });
  });

  it('answers not-found for unknown ids', async () => {
    await expect(store.finish(randomUUID(), { status: 'declined', now: T0, purgeAt: T0 + 1 })).resolves.toEqual({
      ok: false,
      reason: 'not-found',
    });
  });

  it('forgets records after purgeAt', async () => {
    const record = pendingRecord();
    await store.create(record);
    await store.finish(record.id, { status: 'declined', now: T0 + 1, purgeAt: T0 + 100 });
    expect(await store.get(record.id, T0 + 99)).toBeDefined();
    expect(await store.get(record.id, T0 + 100)).toBeUndefined();
  });

  it('finds the latest completed record per user and type, ignoring others', async () => {
    const user = `user-${randomUUID()}`;
    const older = pendingRecord({ userId: user, type: 'api-key-github' });
    const newer = pendingRecord({ userId: user, type: 'api-key-github', createdAt: T0 + 5 });
    const otherType = pendingRecord({ userId: user, type: 'api-key-gitlab' });
    const otherUser = pendingRecord({ userId: `${user}-x`, type: 'api-key-github' });
    const stillPending = pendingRecord({ userId: user, type: 'api-key-github', createdAt: T0 + 9 });
    for (const r of [older, newer, otherType, otherUser, stillPending]) await store.create(r);
    expect(await store.findLatestCompleted(user, 'api-key-github', T0 + 10)).toBeUndefined();
    await store.finish(older.id, { status: 'completed', data: { apiKey: 'old' }, now: T0 + 10, purgeAt: T0 + RETENTION });
    await store.finish(newer.id, { status: 'completed', data: { apiKey: 'new' }, now: T0 + 20, purgeAt: T0 + RETENTION });
    await store.finish(otherType.id, { status: 'completed', data: { apiKey: 'gitlab' }, now: T0 + 30, purgeAt: T0 + RETENTION });
    await store.finish(otherUser.id, { status: 'completed', data: { apiKey: 'someone-else' }, now: T0 + 40, purgeAt: T0 + RETENTION });
    const found = await store.findLatestCompleted(user, 'api-key-github', T0 + 50);
    expect(found).toMatchObject({ id: newer.id, data: { apiKey: 'new' } });
    expect(await store.findLatestCompleted(user, 'api-key-github', T0 + RETENTION)).toBeUndefined();
  });

  it("lists a user's records oldest first", async () => {
    const user = `user-${randomUUID()}`;
    const a = pendingRecord({ userId: user, createdAt: T0 + 2 });
    const b = pendingRecord({ userId: user, type: 'confirm', kind: 'confirm', createdAt: T0 + 1 });
    await store.create(a);
    await store.create(b);
    await store.create(pendingRecord({ userId: `${user}-other` }));
    const listed = await store.listByUser(user, T0 + 3);
    expect(listed.map((r) => r.id)).toEqual([b.id, a.id]);
    expect(await store.listByUser(`nobody-${randomUUID()}`, T0)).toEqual([]);
  });

  it('consumes a completed record once: data returned, then gone, and no longer found by type', async () => {
    const user = `user-${randomUUID()}`;
    const record = pendingRecord({ userId: user, type: 'api-key-x' });
    await store.create(record);
    expect(await store.consume(record.id, T0 + 1)).toBeUndefined(); // still pending
    await store.finish(record.id, { status: 'completed', data: { apiKey: 'once' }, now: T0 + 1, purgeAt: T0 + RETENTION });
    const results = await Promise.all([store.consume(record.id, T0 + 2), store.consume(record.id, T0 + 2)]);
    const delivered = results.filter((r) => r !== undefined);
    expect(delivered).toHaveLength(1);
    expect(delivered[0]).toMatchObject({ id: record.id, status: 'completed', data: { apiKey: 'once' } });
    const after = (await store.get(record.id, T0 + 3))!;
    expect(after).toMatchObject({ status: 'completed', consumedAt: T0 + 2 });
    expect(after.data).toBeUndefined();
    expect(await store.findLatestCompleted(user, 'api-key-x', T0 + 3)).toBeUndefined();
    expect(await store.consume(randomUUID(), T0)).toBeUndefined();
  });

  it('enforces the creation quota atomically, storing nothing when refused', async () => {
    const user = `user-${randomUUID()}`;
    const quota = { perUserLimit: 3, windowMs: 1_000, maxPendingPerUser: 100, maxPending: 1_000_000 };
    const attempts = Array.from({ length: 5 }, () => pendingRecord({ userId: user }));
    const results = await Promise.all(attempts.map((r) => store.create(r, quota)));
    expect(results.filter((r) => r === 'created')).toHaveLength(3);
    expect(results.filter((r) => r === 'rate-limited')).toHaveLength(2);
    expect(await store.listByUser(user, T0)).toHaveLength(3);
    // A new window allows creating again.
    expect(await store.create(pendingRecord({ userId: user, createdAt: T0 + 2_000 }), quota)).toBe('created');
  });

  it('caps pending records per user and frees a slot when one finishes', async () => {
    const user = `user-${randomUUID()}`;
    const quota = { perUserLimit: 100, windowMs: 60_000, maxPendingPerUser: 2, maxPending: 1_000_000 };
    const a = pendingRecord({ userId: user });
    await store.create(a, quota);
    await store.create(pendingRecord({ userId: user }), quota);
    const refused = pendingRecord({ userId: user });
    expect(await store.create(refused, quota)).toBe('user-pending-limit');
    expect(await store.get(refused.id, T0)).toBeUndefined();
    expect(await store.create(pendingRecord({ userId: `${user}-other` }), quota)).toBe('created');
    await store.finish(a.id, { status: 'declined', now: T0 + 1, purgeAt: T0 + RETENTION });
    expect(await store.create(pendingRecord({ userId: user }), quota)).toBe('created');
  });

  it('sweeps: expires due pending records once, forgets purged ones, leaves the rest', async () => {
    const due = pendingRecord({ expiresAt: T0 + 10, purgeAt: T0 + 10 + RETENTION });
    const notDue = pendingRecord({ expiresAt: T0 + 1000, purgeAt: T0 + 1000 + RETENTION });
    const finished = pendingRecord({ expiresAt: T0 + 10 });
    for (const r of [due, notDue, finished]) await store.create(r);
    await store.finish(finished.id, { status: 'completed', data: { k: 1 }, now: T0 + 5, purgeAt: T0 + 50 });

    const expired = await store.sweep(T0 + 20, RETENTION);
    expect(expired.map((r) => r.id)).toContain(due.id);
    expect(expired.map((r) => r.id)).not.toContain(finished.id);
    expect(expired.map((r) => r.id)).not.toContain(notDue.id);
    expect(expired.find((r) => r.id === due.id)).toMatchObject({ status: 'expired', finishedAt: T0 + 20, purgeAt: T0 + 20 + RETENTION });
    expect((await store.get(due.id, T0 + 21))!.status).toBe('expired');
    expect(await store.sweep(T0 + 21, RETENTION)).toEqual([]);

    await store.sweep(T0 + 60, RETENTION);
    expect(await store.get(finished.id, T0 + 40)).toBeUndefined();
    expect((await store.get(notDue.id, T0 + 60))!.status).toBe('pending');
  });

  /** The store's `extend`, which the tests below need. */
  const extendOf = (s: ElicitationRecordStore) => {
    if (!s.extend) throw new Error('the store offers no extend, but options.offers lists it');
    return s.extend.bind(s);
  };
  /** The change "Need more time?" makes to `record` at `now`: `by` more, its purgeAt moved on as much. */
  const moreTime = (record: ElicitationRecord, now: number, by = TTL) => ({
    expiresAt: record.expiresAt + by,
    purgeAt: record.purgeAt + by,
    now,
  });

  itIfOffered(
    api,
    offers,
    'extend',
    'extends a pending record once: new expiresAt and purgeAt, extendedAt and extendedFrom kept',
    async () => {
      const extend = extendOf(store);
      const record = pendingRecord();
      await store.create(record);
      const change = moreTime(record, T0 + 10);
      const result = await extend(record.id, change);
      const extended = {
        ...record,
        expiresAt: change.expiresAt,
        purgeAt: change.purgeAt,
        extendedAt: T0 + 10,
        extendedFrom: record.expiresAt,
      };
      expect(result).toEqual({ ok: true, record: extended });
      await expect(store.get(record.id, T0 + 11)).resolves.toEqual(extended);
      expect((await store.listByUser(record.userId, T0 + 11)).find((r) => r.id === record.id)).toEqual(extended);
      // Once only: a second extension is refused and changes nothing.
      const again = await extend(record.id, moreTime(extended, T0 + 20));
      expect(again).toEqual({ ok: false, reason: 'already-extended', record: extended });
      await expect(store.get(record.id, T0 + 21)).resolves.toEqual(extended);
    },
  );

  itIfOffered(api, offers, 'extend', 'refuses to extend an unknown, purged, finished or overdue record, changing nothing', async () => {
    const extend = extendOf(store);
    await expect(extend(randomUUID(), { expiresAt: T0 + TTL * 2, purgeAt: T0 + TTL * 3, now: T0 })).resolves.toEqual({
      ok: false,
      reason: 'not-found',
    });
    const finished = pendingRecord();
    await store.create(finished);
    await store.finish(finished.id, { status: 'declined', now: T0 + 1, purgeAt: T0 + 1 + RETENTION });
    const refused = await extend(finished.id, moreTime(finished, T0 + 2));
    expect(refused).toMatchObject({ ok: false, reason: 'already-finished', status: 'declined', record: { id: finished.id } });
    expect((await store.get(finished.id, T0 + 3))!.expiresAt).toBe(finished.expiresAt);
    // Purged: as unknown.
    await expect(extend(finished.id, moreTime(finished, T0 + 1 + RETENTION))).resolves.toEqual({ ok: false, reason: 'not-found' });

    const overdue = pendingRecord();
    await store.create(overdue);
    const late = await extend(overdue.id, moreTime(overdue, overdue.expiresAt));
    expect(late).toMatchObject({
      ok: false,
      reason: 'expired',
      record: { id: overdue.id, status: 'pending', expiresAt: overdue.expiresAt },
    });
    const stored = (await store.get(overdue.id, overdue.expiresAt))!;
    expect(stored.expiresAt).toBe(overdue.expiresAt);
    expect(stored.extendedAt).toBeUndefined();
  });

  itIfOffered(api, offers, 'extend', 'lets exactly one of 20 concurrent extensions win', async () => {
    const extend = extendOf(store);
    const record = pendingRecord();
    await store.create(record);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => extend(record.id, moreTime(record, T0 + 1, TTL + i))));
    const winners = results.filter((r) => r.ok);
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => !r.ok && r.reason === 'already-extended')).toHaveLength(19);
    expect((await store.get(record.id, T0 + 2))!.expiresAt).toBe(winners[0].record.expiresAt);
  });

  itIfOffered(
    api,
    offers,
    'extend',
    'keeps an extended record pending past its old expiry: sweep, get and finish follow the new one',
    async () => {
      const extend = extendOf(store);
      const record = pendingRecord();
      const other = pendingRecord();
      for (const r of [record, other]) await store.create(r);
      const change = moreTime(record, T0 + 1);
      expect((await extend(record.id, change)).ok).toBe(true);
      // The old expiry and the old purgeAt pass: still pending, still there (swept seconds after the old expiry, and
      // right at another's).
      const swept = await store.sweep(record.expiresAt + 2_000, RETENTION);
      expect(swept.map((r) => r.id)).toEqual([other.id]);
      const soon = pendingRecord({ createdAt: T0 + 3_000 });
      await store.create(soon);
      expect((await extend(soon.id, moreTime(soon, T0 + 3_001))).ok).toBe(true);
      expect(await store.sweep(soon.expiresAt + 1, RETENTION)).toEqual([]);
      expect((await store.get(soon.id, soon.expiresAt + 2))!.status).toBe('pending');
      expect((await store.get(record.id, record.purgeAt + 1))!.status).toBe('pending');
      expect(await store.sweep(record.purgeAt + 1, RETENTION)).toEqual([]);
      expect((await store.get(record.id, record.purgeAt + 2))!.status).toBe('pending');
      // A page may still be answered before the new expiry...
      const late = pendingRecord();
      await store.create(late);
      await extend(late.id, moreTime(late, T0 + 1));
      const answered = await store.finish(late.id, {
        status: 'completed',
        data: { k: 1 },
        now: late.expiresAt + 1,
        purgeAt: late.expiresAt + 1 + RETENTION,
      });
      expect(answered).toMatchObject({ ok: true, record: { status: 'completed' } });
      // ...and the sweep expires the record at its new expiry, once.
      const due = await store.sweep(change.expiresAt, RETENTION);
      expect(due.map((r) => r.id)).toEqual([record.id]);
      expect((await store.get(soon.id, change.expiresAt))!.status).toBe('pending');
      expect(due[0]).toMatchObject({ status: 'expired', finishedAt: change.expiresAt, purgeAt: change.expiresAt + RETENTION });
      expect(await store.sweep(change.expiresAt + 1, RETENTION)).toEqual([]);
      expect((await store.get(record.id, change.expiresAt + 1))!.status).toBe('expired');
    },
  );

  itIfOffered(api, offers, 'ping', 'answers ping while the backend is reachable', async () => {
    if (!store.ping) throw new Error('the store offers no ping, but options.offers lists it');
    await expect(store.ping()).resolves.toBeUndefined();
  });

  /** Entries in a comparable form: plain arrays, ordered by instance id. */
  const rings = (entries: readonly KeyRingEntry[]) =>
    entries.map((e) => ({ instanceId: e.instanceId, keyIds: [...e.keyIds] })).sort((x, y) => (x.instanceId < y.instanceId ? -1 : 1));

  itIfOffered(
    api,
    offers,
    'announceKeyRing',
    'keeps each announced key ring until its time passes, replaced by the next announcement',
    async () => {
      if (!store.announceKeyRing) throw new Error('the store offers no announceKeyRing, but options.offers lists it');
      const a = { instanceId: `a-${randomUUID()}`, keyIds: ['0a1b2c3d', '4e5f6a7b'] };
      const b = { instanceId: `b-${randomUUID()}`, keyIds: ['4e5f6a7b'] };
      expect(rings(await store.announceKeyRing(a, T0, 1_000))).toEqual([a]);
      expect(rings(await store.announceKeyRing(b, T0 + 500, 1_000))).toEqual([a, b]);
      // A announces again with another ring: its entry is replaced (not added to) and lives on.
      const rotated = { ...a, keyIds: ['4e5f6a7b', '0a1b2c3d'] };
      expect(rings(await store.announceKeyRing(rotated, T0 + 900, 1_000))).toEqual([rotated, b]);
      // B's time passes at T0 + 1500 (live while now is before it); A's runs to T0 + 1900.
      expect(rings(await store.announceKeyRing(a, T0 + 1_500, 1_000))).toEqual([a]);
      // A TTL of 0 removes the instance's entry.
      expect(rings(await store.announceKeyRing(b, T0 + 1_600, 1_000))).toEqual([a, b]);
      expect(rings(await store.announceKeyRing(a, T0 + 1_700, 0))).toEqual([b]);
      expect(await store.announceKeyRing(b, T0 + 1_800, 0)).toEqual([]);
    },
  );

  itIfOffered(api, offers, 'announceKeyRing', 'records every one of many concurrent key-ring announcements', async () => {
    if (!store.announceKeyRing) throw new Error('the store offers no announceKeyRing, but options.offers lists it');
    const entries = Array.from({ length: 20 }, (_, i) => ({
      instanceId: `i${String(i).padStart(2, '0')}-${randomUUID()}`,
      keyIds: ['0a1b2c3d'],
    }));
    await Promise.all(entries.map((entry) => store.announceKeyRing!(entry, T0, 60_000)));
    const last = { instanceId: `z-${randomUUID()}`, keyIds: ['4e5f6a7b', '0a1b2c3d'] };
    expect(rings(await store.announceKeyRing(last, T0 + 1, 60_000))).toEqual(rings([...entries, last]));
  });

  itIfOffered(api, offers, 'openEventChannel', 'carries an extended event with its new expiresAt', async () => {
    if (!store.openEventChannel) throw new Error('the store offers no openEventChannel, but options.offers lists it');
    const seen: ElicitationEvent[] = [];
    const sender = await store.openEventChannel(() => undefined);
    const other = await store.openEventChannel((e) => seen.push(e));
    try {
      const event: ElicitationEvent = {
        type: 'extended',
        elicitationId: randomUUID(),
        userId: 'u1',
        kind: 'confirm',
        elicitationType: 'deploy',
        at: T0,
        expiresAt: T0 + 2 * TTL,
      };
      await sender.publish(event);
      const deadline = Date.now() + 2_000;
      while (seen.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      expect(seen).toEqual([event]);
    } finally {
      await sender.close();
      await other.close();
    }
  });

  itIfOffered(api, offers, 'openEventChannel', 'carries events between channels, never back to the sender', async () => {
    if (!store.openEventChannel) throw new Error('the store offers no openEventChannel, but options.offers lists it');
    const seenBySender: ElicitationEvent[] = [];
    const seenByOther: ElicitationEvent[] = [];
    const sender = await store.openEventChannel((e) => seenBySender.push(e));
    const other = await store.openEventChannel((e) => seenByOther.push(e));
    try {
      const event: ElicitationEvent = {
        type: 'created',
        elicitationId: randomUUID(),
        userId: 'u1',
        kind: 'api-key',
        elicitationType: 'api-key',
        at: T0,
      };
      await sender.publish(event);
      const deadline = Date.now() + 2_000;
      while (seenByOther.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, 50)); // room for a duplicate, or an echo to the sender
      expect(seenByOther).toEqual([event]);
      expect(seenBySender).toEqual([]);
    } finally {
      await sender.close();
      await other.close();
    }
  });
}
