import { ElicitationAuditChain, type AuditExportOptions } from '../observability/audit-chain.js';
import type { ReceiptCheck } from '../proofs/decision-proof.js';
import { ElicitationPasskeys, type PasskeyListing } from './elicitation-passkeys.js';
import { approvalPlanOf } from './approval-plan.js';
import { passkeyActionOf } from './passkey-action.js';
import { ElicitationApprovals, type ApprovalTally } from './elicitation-approvals.js';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { parseElicitationId } from '../core/elicitation-id.js';
import { InjectLifecycleOptions, type ElicitationLifecycleOptions } from '../options/lifecycle-options.js';
import type {
  ElicitationData,
  ElicitationExtendResult,
  ElicitationOutcome,
  ElicitationRecord,
  ElicitationStatus,
  ElicitationStatusView,
  ElicitationSummary,
  TransitionResult,
  WaitOutcome,
} from '../core/elicitation.types.js';
import { ElicitationQuotaError } from '../errors/elicitation-quota.error.js';
import { ElicitationShutdownError } from '../errors/elicitation-shutdown.error.js';
import { attachKindData, buildPendingRecord, type CreateUrlElicitationInput } from './create-input.validation.js';
import { ElicitationAnswers } from './elicitation-answers.js';
import { NoticeOutbox } from '../notify/notice-outbox.js';
import { ElicitationRecords } from './elicitation-records.js';
import { ElicitationTransitions } from './elicitation-transitions.js';
import type { OpenQuestionsPage, OpenQuestionsRequest } from './open-questions.js';
import { pageUrl } from './page-urls.js';
import type { ElicitationWaitOptions } from './elicitation-waiters.js';
import { ElicitationAudit } from '../observability/elicitation-audit.js';
import { ElicitationTelemetry } from '../observability/elicitation-telemetry.js';
import { ELICITATION_OBSERVED_STORE } from '../observability/observed-store.js';
import { createResultOf, ElicitationStore, sweepReportOf, type CreateQuota } from '../stores/elicitation-store.js';

/** What `createUrlElicitation` returns. */
export interface CreatedElicitation {
  elicitationId: string;
  /** The page to send the user to. It carries the id and nothing else. */
  url: string;
  /** When the elicitation expires. */
  expiresAt: Date;
}

/** A completed answer found by `findByUserAndType`. */
export interface StoredAnswer<T extends ElicitationData = ElicitationData> {
  elicitationId: string;
  data: T;
  completedAt: Date;
}

/** Options of the reads that can deliver a secret once. */
export interface ElicitationReadOptions {
  /** Read-once delivery: remove the answer from the store as it is read. @default false */
  consume?: boolean;
}

/** What a move of an id of the wrong shape resolves, without a store access. */
function notFound(): Promise<TransitionResult> {
  return Promise.resolve({ ok: false, reason: 'not-found' });
}

/**
 * Creates elicitations, moves them through their lifecycle (`pending` → `completed` | `declined` |
 * `cancelled` | `expired`, exactly once) and lets tools wait for the outcome. Transport-agnostic: the
 * pages and the MCP binding both go through it, on its internal port (`ElicitationRecords`): this class is the
 * public API only.
 */
@Injectable()
export class ElicitationService implements OnModuleDestroy {
  /** The abuse limits `create` enforces (per-user rate per minute, pending caps). */
  private readonly quota: CreateQuota;

  constructor(
    @InjectLifecycleOptions() private readonly options: ElicitationLifecycleOptions,
    @Inject(ELICITATION_OBSERVED_STORE) private readonly store: ElicitationStore,
    private readonly telemetry: ElicitationTelemetry,
    private readonly audit: ElicitationAudit,
    private readonly transitions: ElicitationTransitions,
    private readonly answers: ElicitationAnswers,
    private readonly records: ElicitationRecords,
    private readonly notices: NoticeOutbox,
    private readonly approvals: ElicitationApprovals,
    private readonly passkeys: ElicitationPasskeys,
    private readonly chain: ElicitationAuditChain,
  ) {
    const { limits } = options;
    this.quota = {
      perUserLimit: limits.createPerMinute,
      windowMs: 60_000,
      maxPendingPerUser: limits.maxPendingPerUser,
      maxPending: limits.maxPending,
    };
  }

  /**
   * True once the module began to shut down (Nest's `onModuleDestroy`, on `app.close()` or a signal with
   * `enableShutdownHooks`): waits end with `ElicitationShutdownError`, the pages and the status route answer 503,
   * and the health indicator reports down.
   */
  get isShuttingDown(): boolean {
    return this.transitions.shutdownSignal.aborted;
  }

  /** Creates a pending URL-mode elicitation for `userId` and returns its page URL. */
  createUrlElicitation(input: CreateUrlElicitationInput): Promise<CreatedElicitation> {
    return this.telemetry.inSpan('elicitation.create', { 'elicitation.mode': 'url' }, () => this.create(input));
  }

  /** `createUrlElicitation`'s work, in its span. */
  private async create(input: CreateUrlElicitationInput): Promise<CreatedElicitation> {
    if (this.isShuttingDown) throw new ElicitationShutdownError();
    const record = buildPendingRecord(input, this.options, Date.now());
    const attaching = attachKindData(record, input, this.options);
    if (attaching) await attaching;
    if (passkeyActionOf(record) || approvalPlanOf(record)?.passkey) this.passkeys.assertUsable();
    // Before the record: an instance that dies between the two loses no notice (one for a record never created is dropped).
    await this.notices.plan(record);
    const answer = await this.store.create(record, this.quota);
    const created = createResultOf(answer);
    if (created !== 'created') throw new ElicitationQuotaError(created);
    this.telemetry.created(record.kind, 'url');
    this.audit.record({ event: 'created', elicitationId: record.id, kind: record.kind, userId: record.userId });
    this.transitions.publish('created', record, record.createdAt, typeof answer === 'string' ? {} : answer);
    // An approval's pages, one per approver, each created as any elicitation is (checks, quotas, notices).
    if (record.kind === 'approval') await this.approvals.openPages(record, (page) => this.create(page));
    return { elicitationId: record.id, url: pageUrl(this.options, record.id, record.kind), expiresAt: new Date(record.expiresAt) };
  }

  /**
   * An approval (`kind: 'approval'`, `requestApproval`) and its decisions: who approved or rejected and when, oldest
   * first, who has not decided, the quorum, the action's hash. `undefined` for an unknown id or another kind.
   */
  async getApproval(id: string): Promise<(ApprovalTally & { status: ElicitationStatus }) | undefined> {
    const read = await this.records.read(id);
    if (read?.kind !== 'approval') return undefined;
    const record = await this.approvals.settle(read);
    return { status: record.status, ...(await this.approvals.tally(record, { receipts: true })) };
  }

  /**
   * Checks a passkey decision's receipt (from the audit record or the chained export) again, against the public key
   * the store keeps for its passkey: valid, or the first thing that does not hold. Trusts no record's status.
   */
  verifyReceipt(receipt: unknown): Promise<ReceiptCheck> {
    return this.passkeys.verifyReceipt(receipt);
  }

  /**
   * The chained audit of the approvals' decisions as JSON Lines (`stream` `approvals`, from `fromSeq`, at most
   * `limit` lines); `verifyAuditChain` names its first broken link. Empty with a store that keeps no chain.
   */
  exportAudit(options?: AuditExportOptions): Promise<string> {
    return this.chain.export(options);
  }

  /** A user's passkeys (id, name, when added and last used), oldest first: for an app's own account page. */
  listPasskeys(userId: string): Promise<PasskeyListing[]> {
    return this.passkeys.list(userId);
  }

  /** Removes a user's passkey (its public key stays, so its receipts still verify); false when they have none such. */
  removePasskey(userId: string, credentialId: string): Promise<boolean> {
    return this.passkeys.remove(userId, credentialId);
  }

  /** The public status of an elicitation (no submitted data), or `undefined` when unknown. */
  getStatus(id: string): Promise<ElicitationStatusView | undefined> {
    const checked = parseElicitationId(id);
    return checked === undefined ? Promise.resolve(undefined) : this.records.status(checked);
  }

  /**
   * How an elicitation ended (with the data for `completed`), `{ status: 'pending' }`, or `undefined` when unknown.
   * Throws `ElicitationKeyError` when the record or its answer was sealed under a key this instance lacks.
   */
  async getResult<T extends ElicitationData = ElicitationData>(
    id: string,
    { consume = false }: ElicitationReadOptions = {},
  ): Promise<ElicitationOutcome<T> | { status: 'pending' } | undefined> {
    const read = await this.records.read(id);
    // An approval still pending is moved on from its pages' decisions here too (an instance died between them).
    const record = read && (await this.approvals.settle(read));
    if (!record) return undefined;
    if (record.status === 'pending') return { status: 'pending' };
    if (consume && record.status === 'completed') {
      this.answers.assertOpenable(record);
      const taken = await this.store.consume(id, Date.now());
      // Consumed already (by another reader): the answer is gone.
      if (taken) this.consumed(taken);
      return taken ? this.answers.outcome<T>(taken) : undefined;
    }
    if (record.status === 'completed' && record.consumedAt !== undefined) return undefined;
    return this.answers.outcome<T>(record);
  }

  /**
   * The latest completed answer of `userId` for `type` that is still retained. Throws `ElicitationKeyError` when the
   * record or its answer was sealed under a key this instance lacks (a read-once read then leaves the answer stored).
   */
  async findByUserAndType<T extends ElicitationData = ElicitationData>(
    userId: string,
    type: string,
    { consume = false }: ElicitationReadOptions = {},
  ): Promise<StoredAnswer<T> | undefined> {
    const now = Date.now();
    let record = await this.store.findLatestCompleted(userId, type, now);
    if (record && consume) this.answers.assertOpenable(record);
    if (record && consume) {
      record = await this.store.consume(record.id, now);
      if (record) this.consumed(record);
    }
    return record && { elicitationId: record.id, data: this.answers.reveal(record) as T, completedAt: new Date(record.finishedAt!) };
  }

  /** The retained elicitations of a user, oldest first, without submitted data. */
  async list(filter: { userId: string; status?: ElicitationRecord['status'] }): Promise<ElicitationSummary[]> {
    const now = Date.now();
    const records = await this.store.listByUser(filter.userId, now);
    return records
      .map((r) => (r.status === 'pending' && now >= r.expiresAt ? { ...r, status: 'expired' as const } : r))
      .filter((r) => !filter.status || r.status === filter.status)
      .map((r) => ({
        elicitationId: r.id,
        kind: r.kind,
        type: r.type,
        userId: r.userId,
        status: r.status,
        createdAt: r.createdAt,
        expiresAt: r.expiresAt,
        finishedAt: r.finishedAt,
      }));
  }

  /**
   * The user's open questions (pending, not expired), newest first, a page at a time (`limit`, 20 by default, 1 to
   * 100; `after`, the `next` of the page before): each with its message, page URL, when it was asked and expires, its
   * task and what asked (`askedBy`), never an answer. One store query per page (the store's `listOpen`, else its
   * `listByUser`). Throws `ElicitationInputError` for a bad `userId`, `limit` or `after`. The inbox page shows the same.
   */
  listOpen(userId: string, page?: OpenQuestionsRequest): Promise<OpenQuestionsPage> {
    return this.records.listOpen(userId, page);
  }

  /**
   * Completes a pending elicitation with the user's answer. Exactly one call wins; a later one gets
   * `{ ok: false, reason: 'already-finished' }` and the first answer stays.
   */
  complete(id: string, data: ElicitationData): Promise<TransitionResult> {
    const checked = parseElicitationId(id);
    return checked === undefined ? notFound() : this.records.complete(checked, data);
  }

  /** The user refused. Same exactly-once rule as `complete`. */
  decline(id: string): Promise<TransitionResult> {
    const checked = parseElicitationId(id);
    return checked === undefined ? notFound() : this.records.decline(checked);
  }

  /** The server (or the tool) withdrew the request. Same exactly-once rule as `complete`. */
  cancel(id: string): Promise<TransitionResult> {
    const checked = parseElicitationId(id);
    return checked === undefined ? notFound() : this.records.cancel(checked);
  }

  /**
   * "Need more time?": gives a pending elicitation more time, once. Its expiry moves on by `extendMs` (the module
   * option; by default the elicitation's own lifetime), but never past twice its original lifetime after its
   * creation. Resolves `{ ok: true, record }` with the new `expiresAt`, or `{ ok: false, reason }`: `not-found`,
   * `already-finished`, `expired`, `already-extended` (it was extended before), `unsupported` (the store has no
   * `extend`). Waits for the elicitation follow the new expiry, here and (through the `extended` event) on the
   * other instances, and so do the status route and the page.
   */
  extend(id: string): Promise<ElicitationExtendResult> {
    const checked = parseElicitationId(id);
    if (checked === undefined)
      return Promise.resolve(this.store.extend ? { ok: false, reason: 'not-found' } : { ok: false, reason: 'unsupported' });
    return this.records.extend(checked);
  }

  /**
   * Resolves when the elicitation leaves `pending` (with the data when completed), or with `{ status: 'timeout' }`
   * when `timeoutMs` passes first. Lets a tool pause and resume inside one call. Rejects with `ElicitationNotFoundError`
   * for an unknown id, with `ElicitationShutdownError` when the app shuts down first (the elicitation stays pending).
   */
  waitForCompletion<T extends ElicitationData = ElicitationData>(
    id: string,
    options: ElicitationWaitOptions = {},
  ): Promise<WaitOutcome<T>> {
    return this.transitions.wait(id, options) as Promise<WaitOutcome<T>>;
  }

  /**
   * Expires every overdue pending elicitation (publishing `expired` for each) and forgets records past
   * their retention. Called by the cleanup scheduler; resolves the number expired.
   */
  async sweep(now: number = Date.now()): Promise<number> {
    const { expired, eventSent } = sweepReportOf(await this.store.sweep(now, this.options.retentionMs));
    for (const record of expired) this.transitions.finished('expired', record, now, { eventSent });
    return expired.length;
  }

  /**
   * Nest calls it when the app shuts down: from then on `isShuttingDown` is true, every waiting
   * `waitForCompletion` rejects with `ElicitationShutdownError`, and so do new waits and creations; the MCP
   * binding ends the questions it pushed to clients the same way.
   */
  onModuleDestroy(): void {
    this.transitions.close();
  }

  /** A read-once read took this record's answer out of the store. */
  private consumed(record: ElicitationRecord): void {
    this.audit.record({ event: 'answer.consumed', elicitationId: record.id, kind: record.kind, userId: record.userId });
  }
}
