import type { ElicitationStore } from '../stores/elicitation-store.js';
import type { ContractSuiteOptions, ContractTestApi } from './contract-test-api.js';
import { counterStoreTests } from './counter-store-contract.js';
import { recordStoreTests } from './record-store-contract.js';

export { pendingRecord } from './contract-test-api.js';

/**
 * The behaviour every `ElicitationStore` must have, races included: the record and counter contracts
 * (`describeElicitationRecordStoreContract`, `describeElicitationCounterStoreContract`) on one store, the
 * suite the built-in stores pass. Run it against your own store in your own test runner:
 *
 * ```ts
 * import { describe, it, expect, beforeEach, afterAll } from '@jest/globals';
 * import { describeElicitationStoreContract } from 'nestjs-mcp-elicitation/testing';
 * describeElicitationStoreContract('MyStore', () => new MyStore(), { describe, it, expect, beforeEach, afterAll }, { offers: ['peekHits'] });
 * ```
 *
 * `makeStore` runs before every test; give each test a fresh store (or a fresh key prefix). The tests of the
 * optional members (`peekHits`, `findByAskKey`, `extend`, `ping`, `openEventChannel`, `announceKeyRing`) run for those `options.offers` lists, and are
 * reported as skipped for the others.
 */
export function describeElicitationStoreContract(
  name: string,
  makeStore: () => ElicitationStore | Promise<ElicitationStore>,
  api: ContractTestApi,
  options: ContractSuiteOptions = {},
): void {
  api.describe(`${name} (ElicitationStore contract)`, () => {
    api.describe('records (ElicitationRecordStore)', () => recordStoreTests(makeStore, api, options.offers));
    api.describe('counters (ElicitationCounterStore)', () => counterStoreTests(makeStore, api, options.offers));
    if (options.afterAll) api.afterAll(options.afterAll);
  });
}
