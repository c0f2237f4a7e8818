import { afterAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { ElicitationStore } from '../../src/stores/elicitation-store.js';
import { describeElicitationStoreContract as describeContract } from '../../src/testing/store-contract.js';

export { pendingRecord } from '../../src/testing/store-contract.js';

/** The shipped store contract suite (`nestjs-mcp-elicitation/testing`), bound to jest. */
export function describeElicitationStoreContract(
  name: string,
  makeStore: () => ElicitationStore | Promise<ElicitationStore>,
  hooks: { afterAll?: () => Promise<void> | void } = {},
): void {
  describeContract(name, makeStore, { describe, it, expect, beforeEach, afterAll }, hooks);
}
