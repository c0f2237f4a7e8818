export { describeElicitationStoreContract, pendingRecord, type ContractTestApi } from './store-contract.js';
