import { describe, expect, it } from '@jest/globals';
import { MemoryElicitationStore } from '../../src/stores/memory.store.js';
import { DeadlineHeap } from '../../src/stores/deadline-heap.js';
import { describeElicitationStoreContract, pendingRecord } from './store-contract.js';

describeElicitationStoreContract('MemoryElicitationStore', () => new MemoryElicitationStore());

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
    expect((store as any).index.size).toBe(0);
    expect((store as any).deadlines.size).toBe(0);
  });

  it('sweeps in time proportional to due records: a sweep with nothing due touches no record', async () => {
    const store = new MemoryElicitationStore();
    const base = 1_800_000_000_000;
    for (let i = 0; i < 10_000; i++) await store.create(pendingRecord({ createdAt: base, expiresAt: base + 1_000 + i }));
    const getSpy = jestSpyOnMapGet((store as any).records);
    await store.sweep(base + 999, 5);
    expect(getSpy.calls).toBe(0);
    await store.sweep(base + 1_009, 5);
    expect(getSpy.calls).toBe(10);
  });

  it('refuses a duplicate id instead of overwriting', async () => {
    const store = new MemoryElicitationStore();
    const r = pendingRecord();
    await store.create(r);
    await expect(store.create({ ...r, userId: 'mallory' })).rejects.toThrow(/collision/);
    expect((await store.get(r.id, r.createdAt))!.userId).toBe('u1');
  });
});

describe('DeadlineHeap', () => {
  it('pops ids in deadline order', () => {
    const heap = new DeadlineHeap();
    const values = Array.from({ length: 500 }, () => Math.floor(Math.random() * 10_000));
    values.forEach((v, i) => heap.push(v, `id${i}`));
    const popped: number[] = [];
    while (heap.size > 0) {
      popped.push(heap.peek());
      heap.pop();
    }
    expect(popped).toEqual([...values].sort((a, b) => a - b));
    expect(heap.peek()).toBe(Infinity);
  });
});

function jestSpyOnMapGet(map: Map<string, unknown>): { calls: number } {
  const counter = { calls: 0 };
  const original = map.get.bind(map);
  map.get = (key: string) => {
    counter.calls++;
    return original(key);
  };
  return counter;
}
