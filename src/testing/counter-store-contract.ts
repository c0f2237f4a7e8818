import { randomUUID } from 'node:crypto';
import type { ElicitationCounterStore } from '../stores/elicitation-store.js';
import { itIfOffered, itOffersExactly, type ContractSuiteOptions, type ContractTestApi } from './contract-test-api.js';

/**
 * The behaviour every `ElicitationCounterStore` must have. Run it against your own store in your own test runner:
 *
 * ```ts
 * import { describe, it, expect, beforeEach, afterAll } from '@jest/globals';
 * import { describeElicitationCounterStoreContract } from 'nestjs-mcp-elicitation/testing';
 * describeElicitationCounterStoreContract('MyStore', () => new MyStore(), { describe, it, expect, beforeEach, afterAll }, { offers: ['peekHits'] });
 * ```
 *
 * `makeStore` runs before every test; give each test a fresh store (or a fresh key prefix). The test of
 * `peekHits` runs when `options.offers` lists it, and is reported as skipped otherwise.
 */
export function describeElicitationCounterStoreContract(
  name: string,
  makeStore: () => ElicitationCounterStore | Promise<ElicitationCounterStore>,
  api: ContractTestApi,
  options: ContractSuiteOptions = {},
): void {
  api.describe(`${name} (ElicitationCounterStore contract)`, () => {
    counterStoreTests(makeStore, api, options.offers);
    if (options.afterAll) api.afterAll(options.afterAll);
  });
}

/** Registers the tests of the counter contract in the enclosing `describe`. */
export function counterStoreTests(
  makeStore: () => ElicitationCounterStore | Promise<ElicitationCounterStore>,
  api: ContractTestApi,
  offers: ContractSuiteOptions['offers'],
): void {
  const { it, expect, beforeEach } = api;
  let store: ElicitationCounterStore;
  beforeEach(async () => {
    store = await makeStore();
  });

  itOffersExactly(api, offers, ['peekHits'], () => store);

  it('counts hits in a fixed window per key', async () => {
    const key = `ip-${randomUUID()}`;
    const now = Date.now();
    const first = await store.hit(key, 60_000, now);
    const second = await store.hit(key, 60_000, now + 1);
    expect([first.count, second.count]).toEqual([1, 2]);
    expect(second.resetAt).toBeGreaterThan(now);
    expect(second.resetAt).toBeLessThanOrEqual(now + 60_001);
    expect((await store.hit(`${key}-other`, 60_000, now)).count).toBe(1);
  });

  itIfOffered(api, offers, 'peekHits', 'peeks at a hit count without counting (when the store offers peekHits)', async () => {
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
