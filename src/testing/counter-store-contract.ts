import type { ElicitationCounterStore } from '../stores/elicitation-store.js';
import { contractGroupApi, itOffersExactly, type ContractSuiteOptions, type ContractTestApi } from './contract-test-api.js';
import { counterTests } from './store-contract.counters.js';

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
  const group = contractGroupApi(api, offers, makeStore);
  itOffersExactly(api, offers, ['peekHits'], group.store);
  counterTests(group);
}
