import { randomUUID } from 'node:crypto';
import type { ElicitationRecord } from '../core/elicitation.types.js';
import type { ElicitationRecordStore } from '../stores/elicitation-store.js';
import { pendingRecord, RETENTION, T0, TTL, swept, type ContractGroupApi } from './contract-test-api.js';

/** The extend group of the record contract ("Need more time?"): run when `offers` lists `extend`. */
export function extendTests({ itIfOffered, expect }: ContractGroupApi<ElicitationRecordStore>): void {
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

  itIfOffered('extend', 'extends a pending record once: new expiresAt and purgeAt, extendedAt and extendedFrom kept', async (store) => {
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
  });

  itIfOffered('extend', 'refuses to extend an unknown, purged, finished or overdue record, changing nothing', async (store) => {
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

  itIfOffered('extend', 'lets exactly one of 20 concurrent extensions win', async (store) => {
    const extend = extendOf(store);
    const record = pendingRecord();
    await store.create(record);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => extend(record.id, moreTime(record, T0 + 1, TTL + i))));
    const winners = results.filter((r) => r.ok);
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => !r.ok && r.reason === 'already-extended')).toHaveLength(19);
    expect((await store.get(record.id, T0 + 2))!.expiresAt).toBe(winners[0].record.expiresAt);
  });

  itIfOffered('extend', 'keeps an extended record pending past its old expiry: sweep, get and finish follow the new one', async (store) => {
    const extend = extendOf(store);
    const record = pendingRecord();
    const other = pendingRecord();
    for (const r of [record, other]) await store.create(r);
    const change = moreTime(record, T0 + 1);
    expect((await extend(record.id, change)).ok).toBe(true);
    // The old expiry and the old purgeAt pass: still pending, still there (swept seconds after the old expiry, and
    // right at another's).
    const first = await swept(store, record.expiresAt + 2_000, RETENTION);
    expect(first.map((r) => r.id)).toEqual([other.id]);
    const soon = pendingRecord({ createdAt: T0 + 3_000 });
    await store.create(soon);
    expect((await extend(soon.id, moreTime(soon, T0 + 3_001))).ok).toBe(true);
    expect(await swept(store, soon.expiresAt + 1, RETENTION)).toEqual([]);
    expect((await store.get(soon.id, soon.expiresAt + 2))!.status).toBe('pending');
    expect((await store.get(record.id, record.purgeAt + 1))!.status).toBe('pending');
    expect(await swept(store, record.purgeAt + 1, RETENTION)).toEqual([]);
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
    const due = await swept(store, change.expiresAt, RETENTION);
    expect(due.map((r) => r.id)).toEqual([record.id]);
    expect((await store.get(soon.id, change.expiresAt))!.status).toBe('pending');
    expect(due[0]).toMatchObject({ status: 'expired', finishedAt: change.expiresAt, purgeAt: change.expiresAt + RETENTION });
    expect(await swept(store, change.expiresAt + 1, RETENTION)).toEqual([]);
    expect((await store.get(record.id, change.expiresAt + 1))!.status).toBe('expired');
  });
}
