import type { ElicitationRecordStore } from '../stores/elicitation-store.js';
import { contractGroupApi, itOffersExactly, type ContractSuiteOptions, type ContractTestApi } from './contract-test-api.js';
import { askedTests } from './store-contract.asked.js';
import { approvalTests } from './store-contract.approvals.js';
import { eventTests } from './store-contract.events.js';
import { extendTests } from './store-contract.extend.js';
import { keyRingTests } from './store-contract.key-ring.js';
import { recordTests } from './store-contract.records.js';
import { taskTests } from './store-contract.tasks.js';
import { inboxTests, noticeTests } from './store-contract.notices.js';
import { callStateTests } from './store-contract.call-states.js';
import { passkeyTests } from './store-contract.passkeys.js';
import { auditChainTests } from './store-contract.audit-chain.js';

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
 * `findByAskKey`, `extend`, `ping`, `openEventChannel`, `announceKeyRing`, the tasks (`createTask`, `getTask`,
 * `putTask`), the passkeys (`addPasskey`…) and the audit chains (`appendAuditLink`…) run when `options.offers` lists
 * them, and are reported as skipped otherwise.
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

/**
 * Registers the tests of the record contract in the enclosing `describe`, a file per group: records (and `ping`),
 * asked (`findByAskKey`), extend, key ring, events, tasks, call states, the inbox and the outbox, approvals, passkeys,
 * audit chains.
 */
export function recordStoreTests(
  makeStore: () => ElicitationRecordStore | Promise<ElicitationRecordStore>,
  api: ContractTestApi,
  offers: ContractSuiteOptions['offers'],
): void {
  const group = contractGroupApi(api, offers, makeStore);
  itOffersExactly(
    api,
    offers,
    [
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
    group.store,
  );
  recordTests(group);
  askedTests(group);
  extendTests(group);
  keyRingTests(group);
  eventTests(group);
  taskTests(group);
  callStateTests(group);
  inboxTests(group);
  noticeTests(group);
  approvalTests(group);
  passkeyTests(group);
  auditChainTests(group);
}
