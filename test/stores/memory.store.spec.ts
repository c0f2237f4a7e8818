import { describe, expect, it } from '@jest/globals';
import type { ElicitationRecord } from '../../src/core/elicitation.types.js';
import { MemoryElicitationStore } from '../../src/stores/memory.store.js';
import { describeElicitationStoreContract, pendingRecord } from '../support/store-contract.js';

describeElicitationStoreContract('MemoryElicitationStore', () => new MemoryElicitationStore(), {
  offers: [
    'peekHits',
    'findByAskKey',
    'extend',
    'createTask',
    'getTask',
    'getTasks',
    'putTask',
    'keepCallState',
    'takeCallState',
    'listOpen',
    'addNotices',
    'claimNotices',
    'settleNotice',
    'noticeStats',
    'addPasskey',
    'getPasskey',
    'listPasskeys',
    'removePasskey',
    'usePasskey',
    'lastAuditLink',
    'appendAuditLink',
    'readAuditLinks',
  ],
});

describe('MemoryElicitationStore specifics', () => {
  it('drops indexes when records are purged, so nothing grows without bound', async () => {
    const store = new MemoryElicitationStore();
    const base = 1_800_000_000_000;
    for (let i = 0; i < 1000; i++) {
      const r = pendingRecord({ userId: `u${i % 10}`, type: `t${i % 7}`, createdAt: base, expiresAt: base + 10, purgeAt: base + 20 });
      await store.create(r);
    }
    expect(store.size).toBe(1000);
    await store.sweep(base + 10, 5);
    expect(store.size).toBe(1000);
    await store.sweep(base + 15, 5);
    expect(store.size).toBe(0);
    expect(await store.listByUser('u1', base + 16)).toEqual([]);
    expect(store['index'].size).toBe(0);
    expect(store['deadlines'].size).toBe(0);
  });

  it('drops the askKey index with its records, whether the sweep or a late read forgets them', async () => {
    const store = new MemoryElicitationStore();
    const base = 1_800_000_000_000;
    const swept = pendingRecord({ askKey: 'k1', createdAt: base, expiresAt: base + 10, purgeAt: base + 20 });
    const readLate = pendingRecord({ askKey: 'k2', createdAt: base, expiresAt: base + 1_000_000, purgeAt: base + 2_000_000 });
    await store.create(swept);
    await store.create(readLate);
    expect(store['asked'].get('u1')?.size).toBe(2);
    await store.sweep(base + 10, 5);
    await store.sweep(base + 15, 5);
    expect(await store.findByAskKey('u1', 'k1', base + 16)).toEqual([]);
    expect(await store.findByAskKey('u1', 'k2', base + 2_000_000)).toEqual([]);
    expect(store['asked'].size).toBe(0);
  });

  it('sweeps in time proportional to due records: only the due ones and those sharing the bucket of now are looked at', async () => {
    const store = new MemoryElicitationStore();
    const base = 1_800_000_000_000;
    // One record per 100 ms from base + 10 s on: ten per one-second bucket.
    for (let i = 0; i < 1_000; i++) await store.create(pendingRecord({ createdAt: base, expiresAt: base + 10_000 + 100 * i }));
    const touched = watchStatusReads(store['records']);
    expect(await store.sweep(base + 9_999, 60_000)).toEqual([]);
    expect(touched.size).toBe(0);
    // Due: the 20 records of the first two buckets and 5 of the third; the other 5 of the third are looked at.
    const expired = await store.sweep(base + 12_400, 60_000);
    expect(expired).toHaveLength(25);
    expect(touched.size).toBe(30);
    touched.clear();
    expect(await store.sweep(base + 12_450, 60_000)).toEqual([]);
    expect(touched.size).toBe(5);
    expect(store['deadlines'].size).toBe(1_000);
  });

  it('skips the stale entries of finished and forgotten records, and never touches a record that took over an id', async () => {
    const store = new MemoryElicitationStore();
    const base = 1_800_000_000_000;
    const early = pendingRecord({ createdAt: base, expiresAt: base + 10_000, purgeAt: base + 20_000 });
    const finished = pendingRecord({ createdAt: base, expiresAt: base + 10_000 });
    await store.create(early);
    await store.create(finished);
    await store.finish(finished.id, { status: 'declined', now: base + 1, purgeAt: base + 5_000 });
    // Read past its purgeAt while still pending: forgotten lazily; then a new record takes the same id.
    expect(await store.get(early.id, base + 20_000)).toBeUndefined();
    const successor = pendingRecord({ id: early.id, createdAt: base + 20_000, expiresAt: base + 80_000 });
    await store.create(successor);
    // The purge entry of `finished` is due first, then both of the stale entries at base + 10 s.
    expect(await store.sweep(base + 30_000, 1_000)).toEqual([]);
    expect(store.size).toBe(1);
    expect((await store.get(early.id, base + 30_000))!.expiresAt).toBe(base + 80_000);
    expect(await store.get(finished.id, base + 30_000)).toBeUndefined();
    expect(store['pendingTotal']).toBe(1);
    expect((await store.sweep(base + 80_000, 1_000)).map((r) => r.id)).toEqual([early.id]);
    expect(store['pendingTotal']).toBe(0);
    expect(store['pendingByUser'].size).toBe(0);
    await store.sweep(base + 81_000, 1_000);
    expect(store.size).toBe(0);
    expect(store['deadlines'].size).toBe(0);
  });

  it('expires and purges in one sweep when the retention ends within it', async () => {
    const store = new MemoryElicitationStore();
    const base = 1_800_000_000_000;
    const r = pendingRecord({ createdAt: base, expiresAt: base + 10 });
    await store.create(r);
    expect((await store.sweep(base + 20, 0)).map((x) => x.id)).toEqual([r.id]);
    expect(store.size).toBe(0);
    expect(store['deadlines'].size).toBe(0);
  });

  it('drops ended counter windows in the sweep, without a scan of the live ones', async () => {
    const store = new MemoryElicitationStore();
    const base = 1_800_000_000_000;
    for (let i = 0; i < 100; i++) await store.hit(`k${i}`, 60_000, base + i * 1_000);
    await store.hit('k0', 60_000, base + 60_000); // a second window of k0: its first entry turns stale
    const counters = store['counters'];
    expect(counters.size).toBe(100);
    await store.sweep(base + 59_999, 5);
    expect(counters.size).toBe(100);
    await store.sweep(base + 60_000, 5); // the windows of k1…k59 end at base + 60 s (aligned to the minute)
    expect(counters.size).toBe(41);
    expect((await store.hit('k0', 60_000, base + 60_001)).count).toBe(2);
    await store.sweep(base + 120_000, 5);
    expect(counters.size).toBe(0);
    expect(store['counterEnds'].size).toBe(0);
  });

  it('refuses a duplicate id instead of overwriting', async () => {
    const store = new MemoryElicitationStore();
    const r = pendingRecord();
    await store.create(r);
    await expect(store.create({ ...r, userId: 'mallory' })).rejects.toThrow(/collision/);
    expect((await store.get(r.id, r.createdAt))!.userId).toBe('u1');
  });
});

/** Records the ids of the stored records whose `status` is read (the first thing a sweep reads of a record). */
function watchStatusReads(records: Map<string, ElicitationRecord>): Set<string> {
  const touched = new Set<string>();
  for (const record of records.values()) {
    let status = record.status;
    Object.defineProperty(record, 'status', {
      enumerable: true,
      get: () => {
        touched.add(record.id);
        return status;
      },
      set: (value: ElicitationRecord['status']) => {
        status = value;
      },
    });
  }
  return touched;
}
