import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { ELICITATION_RESOLVED_OPTIONS } from './elicitation.constants.js';
import type { ResolvedElicitationOptions } from './elicitation-options.interface.js';
import type {
  ElicitationData,
  ElicitationExtendResult,
  ElicitationKind,
  ElicitationOutcome,
  ElicitationRecord,
  ElicitationStatusView,
  ElicitationSummary,
  TransitionResult,
  WaitOutcome,
} from './elicitation.types.js';
import { ElicitationInputError } from './errors/elicitation-input.error.js';
import { ElicitationQuotaError } from './errors/elicitation-quota.error.js';
import { ElicitationShutdownError } from './errors/elicitation-shutdown.error.js';
import {
  attachKindData,
  buildPendingRecord,
  isPlainObject,
  typeOfAsk,
  type CreateUrlElicitationInput,
} from './service/create-input.validation.js';
import { ElicitationAnswers, type AskForKept } from './service/elicitation-answers.js';
import { ElicitationTransitions, isElicitationId } from './service/elicitation-transitions.js';
import type { ElicitationWaitOptions } from './service/elicitation-waiters.js';
import { ElicitationAudit } from './observability/elicitation-audit.js';
import { ElicitationTelemetry } from './observability/elicitation-telemetry.js';
import { ELICITATION_OBSERVED_STORE } from './observability/observed-store.js';
import { ElicitationStore, type CreateQuota } from './stores/elicitation-store.js';

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

/** A record's lifetime as created, in milliseconds (an `extend` keeps the expiry it had in `extendedFrom`). */
function originalLifetime(record: Pick<ElicitationRecord, 'createdAt' | 'expiresAt' | 'extendedFrom'>): number {
  return (record.extendedFrom ?? record.expiresAt) - record.createdAt;
}

/**
 * The expiry "Need more time?" gives `record`: `extendMs` later (by default its original lifetime later), but never
 * more than twice its original lifetime after its creation.
 */
function extendedExpiry(record: Pick<ElicitationRecord, 'createdAt' | 'expiresAt' | 'extendedFrom'>, extendMs?: number): number {
  const lifetime = originalLifetime(record);
  return Math.min(record.expiresAt + (extendMs ?? lifetime), record.createdAt + 2 * lifetime);
}

/**
 * Creates elicitations, moves them through their lifecycle (`pending` → `completed` | `declined` |
 * `cancelled` | `expired`, exactly once) and lets tools wait for the outcome. Transport-agnostic: the
 * pages and the MCP binding both go through it.
 */
@Injectable()
export class ElicitationService implements OnModuleDestroy {
  /** The abuse limits `create` enforces (per-user rate per minute, pending caps). */
  private readonly quota: CreateQuota;
  /** Aborted (with an `ElicitationShutdownError`) when the module starts to shut down. */
  private readonly shutdown = new AbortController();

  constructor(
    @Inject(ELICITATION_RESOLVED_OPTIONS) private readonly options: ResolvedElicitationOptions,
    @Inject(ELICITATION_OBSERVED_STORE) private readonly store: ElicitationStore,
    private readonly telemetry: ElicitationTelemetry,
    private readonly audit: ElicitationAudit,
    private readonly transitions: ElicitationTransitions,
    private readonly answers: ElicitationAnswers,
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
    return this.shutdown.signal.aborted;
  }

  /**
   * Aborted, with an `ElicitationShutdownError` as its reason, when the module starts to shut down.
   * @internal for the MCP binding, which ends the questions it pushed to a client with it
   */
  get shutdownSignal(): AbortSignal {
    return this.shutdown.signal;
  }

  /**
   * True when `id` has the shape of an elicitation id (checked before any store access).
   * @internal for the pages, which check an id once per request
   */
  isValidId(id: unknown): id is string {
    return isElicitationId(id);
  }

  /**
   * The page URL of an elicitation.
   * @internal for the MCP binding
   */
  urlFor(id: string, kind: ElicitationKind): string {
    return `${this.options.baseUrl}/${this.options.routePrefix}/${id}/${kind}`;
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
    const created = await this.store.create(record, this.quota);
    if (created !== 'created') throw new ElicitationQuotaError(created);
    this.telemetry.created(record.kind, 'url');
    this.audit.record({ event: 'created', elicitationId: record.id, kind: record.kind, userId: record.userId });
    this.transitions.publish('created', record, record.createdAt);
    return { elicitationId: record.id, url: this.urlFor(record.id, record.kind), expiresAt: new Date(record.expiresAt) };
  }

  /** The public status of an elicitation (no submitted data), or `undefined` when unknown. */
  async getStatus(id: string): Promise<ElicitationStatusView | undefined> {
    const record = await this.getRecord(id);
    return (
      record && {
        elicitationId: record.id,
        status: record.status,
        createdAt: new Date(record.createdAt).toISOString(),
        expiresAt: new Date(record.expiresAt).toISOString(),
        completed: record.status === 'completed',
      }
    );
  }

  /**
   * The whole record in its at-rest form (a completed answer still sealed): server side only, never send it
   * to a browser or an MCP client. Expires an overdue pending record on the way. `undefined` for unknown or
   * malformed ids.
   * @internal for the pages; applications read through `getStatus`, `getResult` and `list`
   */
  getRecord(id: string): Promise<ElicitationRecord | undefined> {
    return this.transitions.current(id);
  }

  /**
   * How an elicitation ended (with the data for `completed`), `{ status: 'pending' }`, or `undefined` when unknown.
   * Throws `ElicitationKeyError` when the record or its answer was sealed under a key this instance lacks.
   */
  async getResult<T extends ElicitationData = ElicitationData>(
    id: string,
    { consume = false }: ElicitationReadOptions = {},
  ): Promise<ElicitationOutcome<T> | { status: 'pending' } | undefined> {
    const record = await this.getRecord(id);
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

  /**
   * The answer a `requireAnswer` would take without asking: the user's latest of the ask's type, or what the
   * feature that keeps the kind's answers finds (for `oauth`, a valid token of the vault, refreshed when due). The
   * record's id comes with it.
   * @internal for the MCP binding
   */
  async keptAnswer<T extends ElicitationData = ElicitationData>(
    userId: string,
    ask: AskForKept,
  ): Promise<{ elicitationId: string; data: T } | undefined> {
    const keeper = ask.kind && this.answers.keeperOf(ask.kind);
    if (!keeper) return this.findByUserAndType<T>(userId, typeOfAsk(ask));
    const found = await keeper.kept(userId, ask);
    return found && { elicitationId: found.elicitationId, data: found.data as T };
  }

  /**
   * Completes a `file` elicitation with what its page received (`{ name, type, size, sha256 }` with `content`, base64,
   * or `ref`, the `uploadSink`'s reference): sealed in every store (the memory store too: a file is no small answer to
   * keep in the clear), within `limits.maxUploadBytes` as base64 (not `maxResultBytes`).
   * @internal for the file page
   */
  async completeFile(id: string, answer: ElicitationData): Promise<TransitionResult> {
    const json = JSON.stringify(answer);
    // base64 takes 4 bytes per 3; the name, type, size and digest around it stay well under 4 KiB.
    const max = Math.ceil(this.options.limits.maxUploadBytes / 3) * 4 + 4096;
    if (Buffer.byteLength(json) > max)
      throw new ElicitationInputError('data', `is larger than limits.maxUploadBytes (${max} bytes as JSON)`);
    const result = await this.transitions.finish(id, 'completed', { json, seal: true });
    if (result.ok) result.record.data = answer;
    return result;
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
   * The retained elicitations of `userId` created under `askKey` (see `ElicitationRecord.askKey`), newest
   * first, an overdue pending one shown as expired; answers left sealed.
   * @internal for the MCP binding's link rung
   */
  async findAsked(userId: string, askKey: string): Promise<ElicitationRecord[]> {
    const now = Date.now();
    const records = await this.store.listByUser(userId, now);
    return records
      .filter((r) => r.askKey === askKey)
      .map((r) => (r.status === 'pending' && now >= r.expiresAt ? { ...r, status: 'expired' as const } : r))
      .reverse();
  }

  /**
   * Completes a pending elicitation with the user's answer. Exactly one call wins; a later one gets
   * `{ ok: false, reason: 'already-finished' }` and the first answer stays.
   */
  async complete(id: string, data: ElicitationData): Promise<TransitionResult> {
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

  /** The user refused. Same exactly-once rule as `complete`. */
  decline(id: string): Promise<TransitionResult> {
    return this.transitions.finish(id, 'declined');
  }

  /** The server (or the tool) withdrew the request. Same exactly-once rule as `complete`. */
  cancel(id: string): Promise<TransitionResult> {
    return this.transitions.finish(id, 'cancelled');
  }

  /**
   * The expiry "Need more time?" would give `record` now, or `undefined` when it cannot have more (the store has no
   * `extend`, it was extended before, or it is at twice its original lifetime already).
   * @internal for the pages, which offer the button only then
   */
  extensionOf(record: Pick<ElicitationRecord, 'createdAt' | 'expiresAt' | 'extendedFrom' | 'extendedAt'>): number | undefined {
    if (!this.store.extend || record.extendedAt !== undefined) return undefined;
    const expiresAt = extendedExpiry(record, this.options.extendMs);
    return expiresAt > record.expiresAt ? expiresAt : undefined;
  }

  /**
   * "Need more time?": gives a pending elicitation more time, once. Its expiry moves on by `extendMs` (the module
   * option; by default the elicitation's own lifetime), but never past twice its original lifetime after its
   * creation. Resolves `{ ok: true, record }` with the new `expiresAt`, or `{ ok: false, reason }`: `not-found`,
   * `already-finished`, `expired`, `already-extended` (it was extended before), `unsupported` (the store has no
   * `extend`). Waits for the elicitation follow the new expiry, here and (through the `extended` event) on the
   * other instances, and so do the status route and the page.
   */
  async extend(id: string): Promise<ElicitationExtendResult> {
    if (!this.store.extend) return { ok: false, reason: 'unsupported' };
    if (!this.isValidId(id)) return { ok: false, reason: 'not-found' };
    const now = Date.now();
    const record = await this.store.get(id, now);
    if (!record) return { ok: false, reason: 'not-found' };
    if (record.status !== 'pending') return { ok: false, reason: 'already-finished', status: record.status, record };
    if (now >= record.expiresAt) return this.refusedExtension(id, now, record);
    if (record.extendedAt !== undefined) return { ok: false, reason: 'already-extended', record };
    const expiresAt = extendedExpiry(record, this.options.extendMs);
    const result = await this.store.extend(id, { expiresAt, purgeAt: record.purgeAt + (expiresAt - record.expiresAt), now });
    if (result.ok) {
      this.audit.record({ event: 'extended', elicitationId: id, kind: result.record.kind, userId: result.record.userId });
      this.transitions.extended(result.record, now);
    } else if (result.reason === 'expired') {
      return this.refusedExtension(id, now, result.record);
    }
    return result;
  }

  /**
   * Counts one invalid answer to a hosted form (kind 'form'); the `limits.maxFormAttempts`-th declines the elicitation.
   * @internal for the hosted form page
   */
  async recordInvalidFormAttempt(record: ElicitationRecord): Promise<{ attemptsLeft: number; declined?: TransitionResult }> {
    // One window that spans the record's whole life, the same on every instance and before and after an
    // `extend`: the stores align fixed windows to multiples of windowMs, so a window of twice the record's
    // original lifetime read at the latest expiry it can reach never rolls over (and is forgotten after
    // it), whereas "the time left", or the expiry an extension moves, would start a new count.
    const longest = 2 * Math.max(originalLifetime(record), 1);
    const { count } = await this.store.hit(`form-attempts:${record.id}`, longest, record.createdAt + longest);
    const max = this.options.limits.maxFormAttempts;
    if (count >= max) return { attemptsLeft: 0, declined: await this.decline(record.id) };
    return { attemptsLeft: max - count };
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
    const expired = await this.store.sweep(now, this.options.retentionMs);
    for (const record of expired) this.transitions.finished('expired', record, now);
    return expired.length;
  }

  /**
   * Nest calls it when the app shuts down: from then on `isShuttingDown` is true, every waiting
   * `waitForCompletion` rejects with `ElicitationShutdownError`, and so do new waits and creations; the MCP
   * binding ends the questions it pushed to clients the same way.
   */
  onModuleDestroy(): void {
    this.shutdown.abort(new ElicitationShutdownError());
    this.transitions.close();
  }

  /** The refusal of an extension that came too late: the overdue record expired (once), or how it ended meanwhile. */
  private async refusedExtension(id: string, now: number, record: ElicitationRecord): Promise<ElicitationExtendResult> {
    const current = (await this.transitions.expire(id, now)) ?? record;
    if (current.status === 'pending' || current.status === 'expired') return { ok: false, reason: 'expired', record: current };
    return { ok: false, reason: 'already-finished', status: current.status, record: current };
  }

  /** A read-once read took this record's answer out of the store. */
  private consumed(record: ElicitationRecord): void {
    this.audit.record({ event: 'answer.consumed', elicitationId: record.id, kind: record.kind, userId: record.userId });
  }
}
