import type { AuditLink, ElicitationAuditChainStore } from './audit-chain-store.js';
import type { ElicitationCallStateStore } from './call-state-store.js';
import { ElicitationStore } from './elicitation-store.js';
import type { ElicitationNoticeStore, NewNotice, NoticeOutboxStats, NoticeOutcome, StoredNotice } from './notice-store.js';
import type { AddPasskeyResult, ElicitationPasskeyStore, PasskeyResealStep, StoredPasskey } from './passkey-store.js';
import type { CreateTaskResult, ElicitationTaskStore, FinishedTaskLimit, PutTaskResult, StoredTask, TaskLimit } from './task-store.js';

/**
 * The parts a built-in store keeps beside its records, each an object of its own: tasks, calls' states, the outbox,
 * users' passkeys, the audit chains.
 */
export interface StoreParts {
  tasks: Required<ElicitationTaskStore>;
  callStates: ElicitationCallStateStore;
  notices: ElicitationNoticeStore;
  passkeys: ElicitationPasskeyStore;
  auditChain: ElicitationAuditChainStore;
}

/**
 * A store made of its records and its `parts`: the contract's methods of the optional groups (tasks, call states, the
 * outbox, passkeys, audit chains) are theirs, handed on here once for the memory, Redis and PostgreSQL stores. A store that bounds every call
 * (PostgreSQL) hands parts whose methods are bounded.
 */
export abstract class ComposedElicitationStore extends ElicitationStore {
  protected abstract readonly parts: StoreParts;

  override createTask(task: StoredTask, limit: TaskLimit): Promise<CreateTaskResult> {
    return this.parts.tasks.createTask(task, limit);
  }

  override getTask(id: string, now: number): Promise<StoredTask | undefined> {
    return this.parts.tasks.getTask(id, now);
  }

  override getTasks(ids: readonly string[], now: number): Promise<Array<StoredTask | undefined>> {
    return this.parts.tasks.getTasks(ids, now);
  }

  override putTask(task: StoredTask, now: number, finished?: FinishedTaskLimit): Promise<PutTaskResult> {
    return this.parts.tasks.putTask(task, now, finished);
  }

  override keepCallState(key: string, value: string, expiresAt: number): Promise<void> {
    return this.parts.callStates.keepCallState(key, value, expiresAt);
  }

  override takeCallState(key: string, now: number): Promise<string | undefined> {
    return this.parts.callStates.takeCallState(key, now);
  }

  override addNotices(notices: readonly NewNotice[], now: number): Promise<number> {
    return this.parts.notices.addNotices(notices, now);
  }

  override claimNotices(owner: string, now: number, limit: number, leaseMs: number): Promise<StoredNotice[]> {
    return this.parts.notices.claimNotices(owner, now, limit, leaseMs);
  }

  override settleNotice(id: string, owner: string, outcome: NoticeOutcome, now: number): Promise<boolean> {
    return this.parts.notices.settleNotice(id, owner, outcome, now);
  }

  override noticeStats(now: number): Promise<NoticeOutboxStats> {
    return this.parts.notices.noticeStats(now);
  }

  override addPasskey(passkey: StoredPasskey, maxPerUser: number): Promise<AddPasskeyResult> {
    return this.parts.passkeys.addPasskey(passkey, maxPerUser);
  }

  override getPasskey(id: string): Promise<StoredPasskey | undefined> {
    return this.parts.passkeys.getPasskey(id);
  }

  override listPasskeys(userId: string): Promise<StoredPasskey[]> {
    return this.parts.passkeys.listPasskeys(userId);
  }

  override removePasskey(userId: string, id: string, now: number): Promise<boolean> {
    return this.parts.passkeys.removePasskey(userId, id, now);
  }

  override usePasskey(id: string, expected: number, counter: number, now: number): Promise<boolean> {
    return this.parts.passkeys.usePasskey(id, expected, counter, now);
  }

  /** The passkeys part's own, where it seals them (Redis, PostgreSQL); nothing to move where it does not (memory). */
  override resealPasskeys(cursor: string | undefined, limit: number): Promise<PasskeyResealStep> {
    return this.parts.passkeys.resealPasskeys?.(cursor, limit) ?? Promise.resolve({ moved: 0, unreadable: 0 });
  }

  override lastAuditLink(stream: string): Promise<AuditLink | undefined> {
    return this.parts.auditChain.lastAuditLink(stream);
  }

  override appendAuditLink(link: AuditLink): Promise<boolean> {
    return this.parts.auditChain.appendAuditLink(link);
  }

  override readAuditLinks(stream: string, fromSeq: number, limit: number): Promise<AuditLink[]> {
    return this.parts.auditChain.readAuditLinks(stream, fromSeq, limit);
  }
}
