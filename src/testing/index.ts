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
export {
  createElicitationTestClient,
  type ElicitationTestClient,
  type ElicitationTestClientOptions,
  type TestCallOptions,
  type TestElicitAnswer,
  type TestElicitRequest,
  type TestToolResult,
} from './elicitation-test-client.js';
export { describeElicitationRecordStoreContract } from './record-store-contract.js';
export { describeElicitationStoreContract } from './store-contract.js';
export { submitPage, type PageFieldValue, type SubmitPageOptions, type SubmitPageResult } from './submit-page.js';
