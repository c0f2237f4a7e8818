export {
  pendingRecord,
  type ContractAssertion,
  type ContractIt,
  type ContractMatchers,
  type ContractSuiteOptions,
  type ContractTestApi,
  type ContractTestFn,
  type OptionalStoreMember,
} from './contract-test-api.js';
export { describeElicitationCounterStoreContract } from './counter-store-contract.js';
export { describeElicitationRecordStoreContract } from './record-store-contract.js';
export { describeElicitationStoreContract } from './store-contract.js';
