import { afterAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { ElicitationStore } from '../../src/stores/elicitation-store.js';
import type { ContractSuiteOptions } from '../../src/testing/contract-test-api.js';
import { describeElicitationStoreContract as describeContract } from '../../src/testing/store-contract.js';

export { pendingRecord } from '../../src/testing/contract-test-api.js';

/** Every optional member a store shared between instances offers (the Redis and the PostgreSQL store do, all of them). */
export const SHARED_STORE_OFFERS: NonNullable<ContractSuiteOptions['offers']> = [
  'peekHits',
  'findByAskKey',
  'extend',
  'ping',
  'openEventChannel',
  'announceKeyRing',
  'createTask',
  'getTask',
  'getTasks',
  'putTask',
  'keepCallState',
  'takeCallState',
  'addPasskey',
  'getPasskey',
  'listPasskeys',
  'removePasskey',
  'usePasskey',
  'lastAuditLink',
  'appendAuditLink',
  'readAuditLinks',
];

/** The shipped store contract suite (`nestjs-mcp-elicitation/testing`), bound to jest. */
export function describeElicitationStoreContract(
  name: string,
  makeStore: () => ElicitationStore | Promise<ElicitationStore>,
  options: ContractSuiteOptions = {},
): void {
  describeContract(name, makeStore, { describe, it, expect, beforeEach, afterAll }, options);
}
