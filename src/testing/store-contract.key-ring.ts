import { randomUUID } from 'node:crypto';
import type { ElicitationRecordStore, KeyRingEntry } from '../stores/elicitation-store.js';
import { T0, type ContractGroupApi } from './contract-test-api.js';

/** The key-ring group of the record contract: run when `offers` lists `announceKeyRing`. */
export function keyRingTests({ itIfOffered, expect }: ContractGroupApi<ElicitationRecordStore>): void {
  /** Entries in a comparable form: plain arrays, ordered by instance id. */
  const rings = (entries: readonly KeyRingEntry[]) =>
    entries.map((e) => ({ instanceId: e.instanceId, keyIds: [...e.keyIds] })).sort((x, y) => (x.instanceId < y.instanceId ? -1 : 1));

  itIfOffered(
    'announceKeyRing',
    'keeps each announced key ring until its time passes, replaced by the next announcement',
    async (store) => {
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

  itIfOffered('announceKeyRing', 'records every one of many concurrent key-ring announcements', async (store) => {
    if (!store.announceKeyRing) throw new Error('the store offers no announceKeyRing, but options.offers lists it');
    const entries = Array.from({ length: 20 }, (_, i) => ({
      instanceId: `i${String(i).padStart(2, '0')}-${randomUUID()}`,
      keyIds: ['0a1b2c3d'],
    }));
    await Promise.all(entries.map((entry) => store.announceKeyRing!(entry, T0, 60_000)));
    const last = { instanceId: `z-${randomUUID()}`, keyIds: ['4e5f6a7b', '0a1b2c3d'] };
    expect(rings(await store.announceKeyRing(last, T0 + 1, 60_000))).toEqual(rings([...entries, last]));
  });
}
