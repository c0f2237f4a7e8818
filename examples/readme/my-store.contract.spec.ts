import { afterAll, beforeEach, describe, expect, it } from '@jest/globals'; // or from 'vitest'
import { MemoryElicitationStore } from 'nestjs-mcp-elicitation/store';
import { describeElicitationStoreContract } from 'nestjs-mcp-elicitation/testing';

/** Your store: here one that builds on the memory store, so the example runs as it is. */
class MyStore extends MemoryElicitationStore {}

describeElicitationStoreContract(
  'MyStore',
  () => new MyStore(),
  { describe, it, expect, beforeEach, afterAll },
  {
    offers: [
      ...['peekHits', 'findByAskKey', 'extend', 'createTask', 'getTask', 'getTasks', 'putTask', 'keepCallState', 'takeCallState'],
      ...['listOpen', 'addNotices', 'claimNotices', 'settleNotice', 'noticeStats'],
      ...['addPasskey', 'getPasskey', 'listPasskeys', 'removePasskey', 'usePasskey', 'lastAuditLink', 'appendAuditLink', 'readAuditLinks'],
    ] as const,
  },
);
