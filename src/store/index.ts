/**
 * `nestjs-mcp-elicitation/store`: what writing a store takes. The contract (`ElicitationStore`, the abstract class
 * that is also the injection token, and its two halves), what its methods take and return, the record types they
 * carry, the error that makes pages answer 503, and the memory store to build on. An app that only passes `store:`
 * needs none of this beyond `ElicitationStore` and `MemoryElicitationStore`, which the main entry exports too.
 *
 * This folder is the entry point and nothing else: named re-exports of `stores/`, where the code is. Every subpath
 * `nestjs-mcp-elicitation/<name>` has its entry at `src/<name>/index.ts` (the package's exports map, the `tsconfig.json`
 * paths and Jest's module mapper rely on it), so this one is named for the subpath, not for the folder it exports from.
 */
export {
  ElicitationStore,
  type CounterHit,
  type CreatedReport,
  type CreateQuota,
  type CreateResult,
  type ElicitationCounterStore,
  type ElicitationEventChannel,
  type ElicitationEventChannelOptions,
  type ElicitationEventContext,
  type ElicitationRecordStore,
  type ElicitationStoreKeys,
  type EventSentReport,
  type ExtendChange,
  type FinishChange,
  type KeyRingEntry,
  type SweepReport,
} from '../stores/elicitation-store.js';
export { MemoryElicitationStore } from '../stores/memory.store.js';
export type { AddPasskeyResult, ElicitationPasskeyStore, PasskeyResealStep, StoredPasskey } from '../stores/passkey-store.js';
export type { AuditLink, ElicitationAuditChainStore } from '../stores/audit-chain-store.js';
export type {
  ElicitationInboxStore,
  ElicitationNoticeStore,
  NewNotice,
  NoticeOutboxStats,
  NoticeOutcome,
  OpenPage,
  OpenPageRequest,
  StoredNotice,
} from '../stores/notice-store.js';
export type {
  CreateTaskResult,
  ElicitationTaskStore,
  PutTaskResult,
  StoredTask,
  TaskLease,
  TaskLimit,
  TaskStatus,
} from '../stores/task-store.js';
export type {
  ElicitationData,
  ElicitationEvent,
  ElicitationRecord,
  ExtendResult,
  FinalStatus,
  TransitionResult,
} from '../core/elicitation.types.js';
export { ElicitationStoreUnavailableError } from '../errors/elicitation-store-unavailable.error.js';
