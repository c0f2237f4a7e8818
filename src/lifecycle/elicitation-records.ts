import { Inject, Injectable } from '@nestjs/common';
import { idOf, parseElicitationId, type ElicitationId } from '../core/elicitation-id.js';
import type { ElicitationKind } from '../core/elicitation-kinds.js';
import { InjectLifecycleOptions, type ElicitationLifecycleOptions } from '../options/lifecycle-options.js';
import type {
  ElicitationData,
  ElicitationExtendResult,
  ElicitationOutcome,
  ElicitationRecord,
  ElicitationStatusView,
  TransitionResult,
} from '../core/elicitation.types.js';
import { ElicitationInputError } from '../errors/elicitation-input.error.js';
import { ElicitationAudit } from '../observability/elicitation-audit.js';
import { ELICITATION_OBSERVED_STORE } from '../observability/observed-store.js';
import type { ElicitationStore } from '../stores/elicitation-store.js';
import { isPlainObject, typeOfAsk } from './create-input.validation.js';
import { ElicitationAnswers, type AskForKept } from './elicitation-answers.js';
import { ElicitationTransitions } from './elicitation-transitions.js';
import { approvalProgress, ElicitationApprovals } from './elicitation-approvals.js';
import { approvalOfPage } from './approval-plan.js';
import { OpenQuestions, type OpenQuestionsPage, type OpenQuestionsRequest } from './open-questions.js';
import { pageUrl } from './page-urls.js';

/** An approval, or an approver's page of one: neither is given more time. */
function isApprovalPart(record: Pick<ElicitationRecord, 'kind' | 'type'>): boolean {
  return record.kind === 'approval' || approvalOfPage(record.type) !== undefined;
}

/** A record's lifetime as created, in milliseconds (an `extend` keeps the expiry it had in `extendedFrom`). */
function originalLifetime(record: Pick<ElicitationRecord, 'createdAt' | 'expiresAt' | 'extendedFrom'>): number {
  return (record.extendedFrom ?? record.expiresAt) - record.createdAt;
}

/**
 * The lifecycle as the features use it beyond the public API (the internal port the pages and the MCP binding inject;
 * `ElicitationService` is the public façade over it): records read by a checked id, the answers a page or a tool
 * completes, hosted-form attempts, "Need more time?", page URLs, the link rung's lookup, the answer a `requireAnswer`
 * takes without asking, and the shutdown signal. Internal: never exported.
 */
@Injectable()
export class ElicitationRecords {
  /**
   * The records of a user under an askKey, newest first, as the store gives them: its askKey index (`findByAskKey`),
   * or, for a store without one, the user's records filtered. Chosen once, here.
   */
  private readonly asked: (userId: string, askKey: string, now: number) => Promise<ElicitationRecord[]>;
  /** A user's open questions, a page per store query (the inbox). */
  private readonly open: OpenQuestions;

  constructor(
    @InjectLifecycleOptions() private readonly options: ElicitationLifecycleOptions,
    @Inject(ELICITATION_OBSERVED_STORE) private readonly store: ElicitationStore,
    private readonly audit: ElicitationAudit,
    private readonly transitions: ElicitationTransitions,
    private readonly answers: ElicitationAnswers,
    private readonly approvals: ElicitationApprovals,
  ) {
    this.asked = store.findByAskKey
      ? store.findByAskKey.bind(store)
      : async (userId, askKey, now) => (await store.listByUser(userId, now)).filter((r) => r.askKey === askKey).reverse();
    this.open = new OpenQuestions(store, options);
  }

  /** Aborted, with an `ElicitationShutdownError` as its reason, when the module starts to shut down. */
  get shutdownSignal(): AbortSignal {
    return this.transitions.shutdownSignal;
  }

  /**
   * The whole record in its at-rest form (a completed answer still sealed): server side only, never send it to a
   * browser or an MCP client. Expires an overdue pending record on the way; `undefined` for an unknown id.
   */
  get(id: ElicitationId): Promise<ElicitationRecord | undefined> {
    return this.transitions.current(id);
  }

  /** `get` of an id as a tool or a client gave it: checked here (`parseElicitationId`); `undefined` for a malformed one. */
  read(id: string): Promise<ElicitationRecord | undefined> {
    const checked = parseElicitationId(id);
    return checked === undefined ? Promise.resolve(undefined) : this.transitions.current(checked);
  }

  /** The public status of an elicitation (no submitted data), or `undefined` when unknown (`ElicitationService.getStatus`). */
  async status(id: ElicitationId): Promise<ElicitationStatusView | undefined> {
    const current = await this.transitions.current(id);
    const record = current && (await this.approvals.settle(current));
    const tally = record?.kind === 'approval' ? await this.approvals.tally(record) : undefined;
    const approved = tally?.decisions.filter((d) => d.decision === 'approved').length;
    return (
      record && {
        elicitationId: record.id,
        status: record.status,
        createdAt: new Date(record.createdAt).toISOString(),
        expiresAt: new Date(record.expiresAt).toISOString(),
        completed: record.status === 'completed',
        ...(tally && { approvals: { approved: approved!, required: tally.quorum } }),
      }
    );
  }

  /** An approval's message for its requester, with where it stands ("1 of 2 approvals: alice approved; waiting for bob"). */
  async approvalMessage(id: string, message: string): Promise<string> {
    const record = await this.read(id);
    if (record?.kind !== 'approval') return message;
    return `${message}\n\n${approvalProgress(await this.approvals.tally(record))}`;
  }

  /** A page of `userId`'s open questions, newest first (`ElicitationService.listOpen`, the inbox). */
  listOpen(userId: string, page?: OpenQuestionsRequest): Promise<OpenQuestionsPage> {
    return this.open.list(userId, page);
  }

  /** The page URL of an elicitation. */
  urlFor(id: string, kind: ElicitationKind): string {
    return pageUrl(this.options, id, kind);
  }

  /**
   * Completes a pending elicitation with the user's answer (`ElicitationService.complete`): exactly one call wins; a
   * later one gets `{ ok: false, reason: 'already-finished' }` with the first answer.
   */
  async complete(id: ElicitationId, data: ElicitationData): Promise<TransitionResult> {
    if (!isPlainObject(data)) throw new ElicitationInputError('data', 'must be a plain object');
    const json = JSON.stringify(data);
    if (Buffer.byteLength(json) > this.options.limits.maxResultBytes) {
      throw new ElicitationInputError('data', `is larger than limits.maxResultBytes (${this.options.limits.maxResultBytes} bytes)`);
    }
    const result = await this.transitions.finish(id, 'completed', { json });
    // Callers get the answer as given, never its sealed form.
    if (result.ok) result.record.data = data;
    else if (result.reason === 'already-finished' && result.record.data) result.record.data = this.answers.reveal(result.record);
    return result;
  }

  /**
   * Completes a `file` elicitation with what its page received (`{ name, type, size, sha256 }` with `content`, base64,
   * or `ref`, the `uploadSink`'s reference): sealed in every store (the memory store too: a file is no small answer to
   * keep in the clear), within `limits.maxUploadBytes` as base64 (not `maxResultBytes`).
   */
  async completeFile(id: ElicitationId, answer: ElicitationData): Promise<TransitionResult> {
    const json = JSON.stringify(answer);
    // base64 takes 4 bytes per 3; the name, type, size and digest around it stay well under 4 KiB.
    const max = Math.ceil(this.options.limits.maxUploadBytes / 3) * 4 + 4096;
    if (Buffer.byteLength(json) > max)
      throw new ElicitationInputError('data', `is larger than limits.maxUploadBytes (${max} bytes as JSON)`);
    const result = await this.transitions.finish(id, 'completed', { json, seal: true });
    if (result.ok) result.record.data = answer;
    return result;
  }

  /** The user refused. Same exactly-once rule as `complete`. */
  decline(id: ElicitationId): Promise<TransitionResult> {
    return this.transitions.finish(id, 'declined');
  }

  /** The server (or the tool) withdrew the request. Same exactly-once rule as `complete`. */
  cancel(id: ElicitationId): Promise<TransitionResult> {
    return this.transitions.finish(id, 'cancelled');
  }

  /**
   * Counts one invalid answer to a hosted form (kind 'form'); the `limits.maxFormAttempts`-th declines the elicitation.
   */
  async recordInvalidFormAttempt(record: ElicitationRecord): Promise<{ attemptsLeft: number; declined?: TransitionResult }> {
    // One window that spans the record's whole life, the same on every instance and before and after an
    // `extend`: the stores align fixed windows to multiples of windowMs, so a window of twice the record's
    // original lifetime read at the latest expiry it can reach never rolls over (and is forgotten after
    // it), whereas "the time left", or the expiry an extension moves, would start a new count.
    const longest = 2 * Math.max(originalLifetime(record), 1);
    const { count } = await this.store.hit(`form-attempts:${record.id}`, longest, record.createdAt + longest);
    const max = this.options.limits.maxFormAttempts;
    if (count >= max) return { attemptsLeft: 0, declined: await this.decline(idOf(record)) };
    return { attemptsLeft: max - count };
  }

  /**
   * The expiry "Need more time?" would give `record` now, or `undefined` when it cannot have more (the store has no
   * `extend`, it was extended before, or it is at twice its original lifetime already; an approval and its pages, whose
   * time is the tool's): the pages offer the button only then.
   */
  extensionOf(
    record: Pick<ElicitationRecord, 'kind' | 'type' | 'createdAt' | 'expiresAt' | 'extendedFrom' | 'extendedAt'>,
  ): number | undefined {
    if (!this.store.extend || record.extendedAt !== undefined || isApprovalPart(record)) return undefined;
    const expiresAt = this.extendedExpiry(record);
    return expiresAt > record.expiresAt ? expiresAt : undefined;
  }

  /** "Need more time?" (`ElicitationService.extend`, whose JSDoc says the rule) on a checked id. */
  async extend(id: ElicitationId): Promise<ElicitationExtendResult> {
    if (!this.store.extend) return { ok: false, reason: 'unsupported' };
    const now = Date.now();
    const record = await this.store.get(id, now);
    if (!record) return { ok: false, reason: 'not-found' };
    if (record.status !== 'pending') return { ok: false, reason: 'already-finished', status: record.status, record };
    // An approval's time is the tool's (`ttlMs`): a page of it outliving it would take a decision nobody counts.
    if (isApprovalPart(record)) return { ok: false, reason: 'unsupported' };
    if (now >= record.expiresAt) return this.refusedExtension(id, now, record);
    if (record.extendedAt !== undefined) return { ok: false, reason: 'already-extended', record };
    const expiresAt = this.extendedExpiry(record);
    const result = await this.store.extend(id, { expiresAt, purgeAt: record.purgeAt + (expiresAt - record.expiresAt), now });
    if (result.ok) {
      this.audit.record({ event: 'extended', elicitationId: id, kind: result.record.kind, userId: result.record.userId });
      this.transitions.extended(result.record, now, result);
      // The store's report stays here: callers get the result as the public API describes it.
      return { ok: true, record: result.record };
    }
    if (result.reason === 'expired') return this.refusedExtension(id, now, result.record);
    return result;
  }

  /**
   * The retained elicitations of `userId` created under `askKey` (see `ElicitationRecord.askKey`), newest first, an
   * overdue pending one shown as expired (with no `finishedAt`: the store still has it pending); answers left sealed
   * (the MCP binding's link rung). One store read: the store's askKey index, or the user's records on a store without.
   */
  async findAsked(userId: string, askKey: string): Promise<ElicitationRecord[]> {
    const now = Date.now();
    const records = await this.asked(userId, askKey, now);
    return records.map((r) => (r.status === 'pending' && now >= r.expiresAt ? { ...r, status: 'expired' as const } : r));
  }

  /**
   * The outcome a tool sees of a record `findAsked` found finished in the store (`finishedAt` set), without reading it
   * again: `undefined` for an answer consumed already, as `ElicitationService.getResult` answers it.
   */
  outcomeOfFinished<T extends ElicitationData>(record: ElicitationRecord): ElicitationOutcome<T> | undefined {
    if (record.status === 'completed' && record.consumedAt !== undefined) return undefined;
    return this.answers.outcome<T>(record);
  }

  /**
   * The answer a `requireAnswer` would take without asking: the user's latest of the ask's type, or what the feature
   * that keeps the kind's answers finds (for `oauth`, a valid token of the vault, refreshed when due). The record's id
   * comes with it.
   */
  async keptAnswer<T extends ElicitationData = ElicitationData>(
    userId: string,
    ask: AskForKept,
  ): Promise<{ elicitationId: string; data: T } | undefined> {
    const keeper = ask.kind && this.answers.keeperOf(ask.kind);
    if (keeper) {
      const found = await keeper.kept(userId, ask);
      return found && { elicitationId: found.elicitationId, data: found.data as T };
    }
    const record = await this.store.findLatestCompleted(userId, typeOfAsk(ask), Date.now());
    return record && { elicitationId: record.id, data: this.answers.reveal(record) as T };
  }

  /**
   * The expiry "Need more time?" gives `record`: `extendMs` later (by default its original lifetime later), but never
   * more than twice its original lifetime after its creation.
   */
  private extendedExpiry(record: Pick<ElicitationRecord, 'createdAt' | 'expiresAt' | 'extendedFrom'>): number {
    const lifetime = originalLifetime(record);
    return Math.min(record.expiresAt + (this.options.extendMs ?? lifetime), record.createdAt + 2 * lifetime);
  }

  /** The refusal of an extension that came too late: the overdue record expired (once), or how it ended meanwhile. */
  private async refusedExtension(id: string, now: number, record: ElicitationRecord): Promise<ElicitationExtendResult> {
    const current = (await this.transitions.expire(id, now)) ?? record;
    if (current.status === 'pending' || current.status === 'expired') return { ok: false, reason: 'expired', record: current };
    return { ok: false, reason: 'already-finished', status: current.status, record: current };
  }
}
