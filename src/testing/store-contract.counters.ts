import { randomUUID } from 'node:crypto';
import type { ElicitationCounterStore } from '../stores/elicitation-store.js';
import type { ContractGroupApi } from './contract-test-api.js';

/** The counters group: fixed-window hits per key, counted atomically under concurrency, and `peekHits` (when offered). */
export function counterTests({ it, itIfOffered, expect }: ContractGroupApi<ElicitationCounterStore>): void {
  it('counts hits in a fixed window per key', async (store) => {
    const key = `ip-${randomUUID()}`;
    const now = Date.now();
    const first = await store.hit(key, 60_000, now);
    const second = await store.hit(key, 60_000, now + 1);
    expect([first.count, second.count]).toEqual([1, 2]);
    expect(second.resetAt).toBeGreaterThan(now);
    expect(second.resetAt).toBeLessThanOrEqual(now + 60_001);
    expect((await store.hit(`${key}-other`, 60_000, now)).count).toBe(1);
  });

  it('counts concurrent hits on one key atomically: each gets its own count, exactly one the first', async (store) => {
    // The claim of an answer (one approval runs a tool once) is the first hit of a counter: it rests on this, not on peekHits.
    const key = `claim-${randomUUID()}`;
    const now = Date.now();
    const counts = (await Promise.all(Array.from({ length: 20 }, () => store.hit(key, 60_000, now)))).map((h) => h.count);
    expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  itIfOffered('peekHits', 'peeks at a hit count without counting (when the store offers peekHits)', async (store) => {
    if (!store.peekHits) throw new Error('the store offers no peekHits, but options.offers lists it');
    const key = `peek-${randomUUID()}`;
    const now = Date.now();
    expect(await store.peekHits(key, 60_000, now)).toBe(0);
    await store.hit(key, 60_000, now);
    await store.hit(key, 60_000, now);
    expect(await store.peekHits(key, 60_000, now + 1)).toBe(2);
    expect(await store.peekHits(key, 60_000, now + 1)).toBe(2);
    expect((await store.hit(key, 60_000, now + 2)).count).toBe(3);
    // Another window of the same key starts from nothing.
    expect(await store.peekHits(key, 60_000, now + 60_000)).toBe(0);
  });
}
