import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { Observable } from 'rxjs';
import { ELICITATION_ID_PATTERN, ELICITATION_RESOLVED_OPTIONS } from './elicitation.constants.js';
import type { ResolvedElicitationOptions } from './elicitation-options.interface.js';
import type {
  ElicitationData,
  ElicitationEvent,
  ElicitationKind,
  ElicitationOutcome,
  ElicitationRecord,
  ElicitationStatusView,
  ElicitationSummary,
  FinalStatus,
  TransitionResult,
  WaitOutcome,
} from './elicitation.types.js';
import { ElicitationInputError } from './errors/elicitation-input.error.js';
import { ElicitationQuotaError } from './errors/elicitation-quota.error.js';
import { assertSafeExternalUrl } from './security/url-policy.js';
import { SecretBox } from './security/secret-box.js';
import { buildForm, isFormDefinition, type FormDefinition } from './forms/define-form.js';
import type { FormSchema } from './forms/form-schema.js';
import { ElicitationNotFoundException } from './errors/elicitation-not-found.exception.js';
import { ElicitationEvents, type ElicitationEventListener } from './events/elicitation-events.js';
import { ElicitationStore, type CreateQuota } from './stores/elicitation-store.js';

const KINDS: readonly ElicitationKind[] = ['api-key', 'confirm', 'form', 'external'];
/** Largest hosted-form schema, as JSON (kept apart from the metadata cap). */
const MAX_FORM_SCHEMA_BYTES = 32 * 1024;
const MAX_MESSAGE_LENGTH = 2000;
const MAX_TYPE_LENGTH = 200;
const MAX_TIMER_MS = 2_147_483_647;
/** Metadata keys the confirm page reads, all optional strings. */
const CONFIRM_METADATA_KEYS = ['title', 'warning', 'confirmLabel', 'cancelLabel'] as const;

/** Arguments of `createUrlElicitation`. */
export interface CreateUrlElicitationInput {
  /**
   * Which page collects the answer: `api-key` (a secret), `confirm` (yes/no), or `external`: our page checks
   * the browser user, then sends them on to `url` (e.g. a third party's OAuth consent page); your callback
   * route completes the elicitation with `complete(id, data)`.
   */
  kind: ElicitationKind;
  /** For `kind: 'external'`: the third-party URL, checked against the `externalUrlPolicy` (UnsafeUrlError). */
  url?: string;
  /**
   * For `kind: 'form'`: the form the hosted page renders and validates (`defineForm`/`formFromClass`, or a
   * raw schema, linted here). The completed answer is the validated content.
   */
  form?: FormDefinition<unknown> | FormSchema;
  /** Why you ask, shown on the page. Plain text (rendered escaped), at most 2000 characters. */
  message: string;
  /** The verified user the elicitation is for; only this user may answer it. */
  userId: string;
  /** What the answer is for, for `findByUserAndType`, e.g. `api-key-github`. @default the kind */
  type?: string;
  /**
   * Page settings and your own data (never secrets), at most `limits.maxMetadataBytes` as JSON. The confirm
   * page reads `title`, `warning`, `confirmLabel` and `cancelLabel`; `secretFields: string[]` names answer
   * fields that are secrets (never shown again on a page). Every answer is encrypted at rest.
   */
  metadata?: Record<string, unknown>;
  /** Lifetime of this elicitation in milliseconds. @default the module's `ttlMs` */
  ttlMs?: number;
  /** The MCP session that asks, kept for routing the completion notification. Never put in the URL. */
  session?: string;
}

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

/** Options of `waitForCompletion`. */
export interface WaitOptions {
  /** Longest wait in milliseconds; resolves `{ status: 'timeout' }` then. @default until the elicitation expires */
  timeoutMs?: number;
  /** Aborting rejects the wait with the signal's reason; the elicitation itself is left as it is. */
  signal?: AbortSignal;
}

/** Options of the reads that can deliver a secret once. */
export interface ReadOptions {
  /** Read-once delivery: remove the answer from the store as it is read. @default false */
  consume?: boolean;
}

interface Waiter {
  settle(outcome: WaitOutcome): void;
}

/**
 * Creates elicitations, moves them through their lifecycle (`pending` → `completed` | `declined` |
 * `cancelled` | `expired`, exactly once) and lets tools wait for the outcome. Transport-agnostic: the
 * pages and the MCP binding both go through it.
 */
@Injectable()
export class ElicitationService implements OnModuleDestroy {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private readonly unsubscribe: () => void;
  private readonly box: SecretBox;
  /** The abuse limits `create` enforces (per-user rate per minute, pending caps). */
  private readonly quota: CreateQuota;

  constructor(
    @Inject(ELICITATION_RESOLVED_OPTIONS) private readonly options: ResolvedElicitationOptions,
    private readonly store: ElicitationStore,
    private readonly events: ElicitationEvents,
  ) {
    this.unsubscribe = events.subscribe((event) => this.wakeWaiters(event));
    this.box = new SecretBox(options.encryptionKeys);
    const { limits } = options;
    this.quota = {
      perUserLimit: limits.createPerMinute,
      windowMs: 60_000,
      maxPendingPerUser: limits.maxPendingPerUser,
      maxPending: limits.maxPending,
    };
  }

  /** Every lifecycle event, as an RxJS stream. Events never carry submitted data. */
  get events$(): Observable<ElicitationEvent> {
    return this.events.events$;
  }

  /** Calls `listener` for every lifecycle event until the returned function is called. */
  onEvent(listener: ElicitationEventListener): () => void {
    return this.events.subscribe(listener);
  }

  /** True when `id` has the shape of an elicitation id (checked before any store access). */
  isValidId(id: unknown): id is string {
    return typeof id === 'string' && ELICITATION_ID_PATTERN.test(id);
  }

  /** The page URL of an elicitation. */
  urlFor(id: string, kind: ElicitationKind): string {
    return `${this.options.baseUrl}/${this.options.routePrefix}/${id}/${kind}`;
  }

  /** Creates a pending URL-mode elicitation for `userId` and returns its page URL. */
  async createUrlElicitation(input: CreateUrlElicitationInput): Promise<CreatedElicitation> {
    const record = this.buildRecord(input, Date.now());
    await this.attachKindData(record, input);
    const created = await this.store.create(record, this.quota);
    if (created !== 'created') throw new ElicitationQuotaError(created);
    this.publish('created', record, record.createdAt);
    return { elicitationId: record.id, url: this.urlFor(record.id, record.kind), expiresAt: new Date(record.expiresAt) };
  }

  /** What only some kinds carry: the checked external target, or the hosted form's schema. */
  private async attachKindData(record: ElicitationRecord, input: CreateUrlElicitationInput): Promise<void> {
    if ((input.url !== undefined) !== (record.kind === 'external')) {
      throw new ElicitationInputError(
        'url',
        record.kind === 'external' ? 'is required for kind "external"' : 'is only for kind "external"',
      );
    }
    if ((input.form !== undefined) !== (record.kind === 'form')) {
      throw new ElicitationInputError('form', record.kind === 'form' ? 'is required for kind "form"' : 'is only for kind "form"');
    }
    if (record.kind === 'external') {
      if (typeof input.url !== 'string') throw new ElicitationInputError('url', 'must be a URL string');
      record.metadata.targetUrl = (await assertSafeExternalUrl(input.url, this.options.externalUrlPolicy)).href;
    } else if (record.kind === 'form') {
      const form = isFormDefinition(input.form) ? input.form : buildForm(input.form!);
      if (Buffer.byteLength(JSON.stringify(form.schema)) > MAX_FORM_SCHEMA_BYTES) {
        throw new ElicitationInputError('form', `has a schema larger than ${MAX_FORM_SCHEMA_BYTES} bytes`);
      }
      record.metadata.form = { schema: form.schema, secretFields: [...form.secretFields] };
    }
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
   * The whole record, with submitted data: server side only, never send it to a browser or an MCP
   * client. Expires an overdue pending record on the way. `undefined` for unknown or malformed ids.
   */
  async getRecord(id: string): Promise<ElicitationRecord | undefined> {
    if (!this.isValidId(id)) return undefined;
    const now = Date.now();
    const record = await this.store.get(id, now);
    if (record?.status === 'pending' && now >= record.expiresAt) return this.expire(record.id, now);
    return record;
  }

  /** How an elicitation ended (with the data for `completed`), `{ status: 'pending' }`, or `undefined` when unknown. */
  async getResult<T extends ElicitationData = ElicitationData>(
    id: string,
    { consume = false }: ReadOptions = {},
  ): Promise<ElicitationOutcome<T> | { status: 'pending' } | undefined> {
    const record = await this.getRecord(id);
    if (!record) return undefined;
    if (record.status === 'pending') return { status: 'pending' };
    if (consume && record.status === 'completed') {
      const taken = await this.store.consume(id, Date.now());
      // Consumed already (by another reader): the answer is gone.
      return taken ? this.outcome<T>(taken) : undefined;
    }
    if (record.status === 'completed' && record.consumedAt !== undefined) return undefined;
    return this.outcome<T>(record);
  }

  /** The latest completed answer of `userId` for `type` that is still retained. */
  async findByUserAndType<T extends ElicitationData = ElicitationData>(
    userId: string,
    type: string,
    { consume = false }: ReadOptions = {},
  ): Promise<StoredAnswer<T> | undefined> {
    const now = Date.now();
    let record = await this.store.findLatestCompleted(userId, type, now);
    if (record && consume) record = await this.store.consume(record.id, now);
    return record && { elicitationId: record.id, data: this.reveal(record) as T, completedAt: new Date(record.finishedAt!) };
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
   * Completes a pending elicitation with the user's answer. Exactly one call wins; a later one gets
   * `{ ok: false, reason: 'already-finished' }` and the first answer stays.
   */
  async complete(id: string, data: ElicitationData): Promise<TransitionResult> {
    if (!isPlainObject(data)) throw new ElicitationInputError('data', 'must be a plain object');
    const json = JSON.stringify(data);
    if (Buffer.byteLength(json) > this.options.limits.maxResultBytes) {
      throw new ElicitationInputError('data', `is larger than limits.maxResultBytes (${this.options.limits.maxResultBytes} bytes)`);
    }
    if (!this.isValidId(id)) return { ok: false, reason: 'not-found' };
    // Every answer is sealed at rest (bound to its elicitation id): secrets need it, and sealing them all
    // spares a read to find out which ones are secret.
    const result = await this.transition(id, 'completed', { $sealed: this.box.seal(json, id) });
    // Callers get the answer as given, never its sealed form.
    if (result.ok) result.record.data = data;
    else if (result.reason === 'already-finished' && result.record.data) result.record.data = this.reveal(result.record);
    return result;
  }

  /** The user refused. Same exactly-once rule as `complete`. */
  decline(id: string): Promise<TransitionResult> {
    return this.transition(id, 'declined');
  }

  /** The server (or the tool) withdrew the request. Same exactly-once rule as `complete`. */
  cancel(id: string): Promise<TransitionResult> {
    return this.transition(id, 'cancelled');
  }

  /** Counts one invalid answer to a hosted form (kind 'form'); the `limits.maxFormAttempts`-th declines the elicitation. */
  async recordInvalidFormAttempt(record: ElicitationRecord): Promise<{ attemptsLeft: number; declined?: TransitionResult }> {
    // One window that spans the record's whole life, the same on every instance: the stores align fixed
    // windows to multiples of windowMs, so a window of the record's lifetime read at its expiry never
    // rolls over (and is forgotten after expiry), whereas "the time left" would start a new count each post.
    const lifetime = Math.max(record.expiresAt - record.createdAt, 1);
    const { count } = await this.store.hit(`form-attempts:${record.id}`, lifetime, record.expiresAt);
    const max = this.options.limits.maxFormAttempts;
    if (count >= max) return { attemptsLeft: 0, declined: await this.decline(record.id) };
    return { attemptsLeft: max - count };
  }

  /**
   * Resolves when the elicitation leaves `pending` (with the data when completed), or with
   * `{ status: 'timeout' }` when `timeoutMs` passes first. Lets a tool pause and resume inside one call.
   */
  async waitForCompletion<T extends ElicitationData = ElicitationData>(
    id: string,
    { timeoutMs, signal }: WaitOptions = {},
  ): Promise<WaitOutcome<T>> {
    signal?.throwIfAborted();
    let waiter!: Waiter;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    let done = false;
    const settled = new Promise<WaitOutcome>((resolve, reject) => {
      const finish = (fn: () => void) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (onAbort) signal?.removeEventListener('abort', onAbort);
        const set = this.waiters.get(id);
        set?.delete(waiter);
        if (set?.size === 0) this.waiters.delete(id);
        fn();
      };
      waiter = { settle: (outcome) => finish(() => resolve(outcome)) };
      onAbort = () => finish(() => reject(signal!.reason));
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    // Register before reading, so a transition between the read and the registration is not missed.
    let set = this.waiters.get(id);
    if (!set) this.waiters.set(id, (set = new Set()));
    set.add(waiter);

    const record = await this.getRecord(id).catch((error) => {
      waiter.settle({ status: 'timeout' });
      throw error;
    });
    if (!record) {
      waiter.settle({ status: 'timeout' });
      throw new ElicitationNotFoundException();
    }
    if (done) {
      // Settled (aborted, or woken by an event) while the record was being read.
    } else if (record.status !== 'pending') {
      waiter.settle(this.outcome(record));
    } else {
      const untilExpiry = record.expiresAt - Date.now();
      const expiresFirst = timeoutMs === undefined || untilExpiry <= timeoutMs;
      timer = setTimeout(
        () => {
          if (!expiresFirst) return waiter.settle({ status: 'timeout' });
          this.getRecord(id).then(
            (r) => waiter.settle(r && r.status !== 'pending' ? this.outcome(r) : { status: 'expired' }),
            () => waiter.settle({ status: 'expired' }),
          );
        },
        Math.min(Math.max(expiresFirst ? untilExpiry : timeoutMs!, 0), MAX_TIMER_MS),
      );
      // A waiting tool call must not keep the process alive on shutdown (onModuleDestroy settles it).
      timer.unref();
    }
    return settled as Promise<WaitOutcome<T>>;
  }

  /**
   * Expires every overdue pending elicitation (publishing `expired` for each) and forgets records past
   * their retention. Called by the cleanup scheduler; resolves the number expired.
   */
  async sweep(now: number = Date.now()): Promise<number> {
    const expired = await this.store.sweep(now, this.options.retentionMs);
    for (const record of expired) this.publish('expired', record, now);
    return expired.length;
  }

  onModuleDestroy(): void {
    this.unsubscribe();
    for (const set of this.waiters.values()) for (const w of set) w.settle({ status: 'timeout' });
    this.waiters.clear();
  }

  private async transition(id: string, status: FinalStatus, data?: ElicitationData, now: number = Date.now()): Promise<TransitionResult> {
    if (!this.isValidId(id)) return { ok: false, reason: 'not-found' };
    const result = await this.store.finish(id, { status, data, now, purgeAt: now + this.options.retentionMs });
    if (result.ok) {
      this.publish(status, result.record, now);
    } else if (result.reason === 'expired') {
      const expired = await this.expire(id, now);
      if (expired && expired.status !== 'expired') {
        return { ok: false, reason: 'already-finished', status: expired.status as FinalStatus, record: expired };
      }
    }
    return result;
  }

  /** Moves an overdue record to `expired` (once) and returns its current state. */
  private async expire(id: string, now: number): Promise<ElicitationRecord | undefined> {
    const result = await this.store.finish(id, { status: 'expired', now, purgeAt: now + this.options.retentionMs });
    if (result.ok) {
      this.publish('expired', result.record, now);
      return result.record;
    }
    return result.reason === 'not-found' ? undefined : result.record;
  }

  /** The outcome a tool sees, with the answer decrypted in process. */
  private outcome<T extends ElicitationData>(record: ElicitationRecord): ElicitationOutcome<T> {
    if (record.status === 'completed') return { status: 'completed', data: this.reveal(record) as T };
    return { status: record.status as Exclude<FinalStatus, 'completed'> };
  }

  /** A completed record's answer, decrypted when it was sealed. */
  private reveal(record: ElicitationRecord): ElicitationData {
    const data = record.data ?? {};
    const sealed = (data as { $sealed?: unknown }).$sealed;
    return typeof sealed === 'string' ? (JSON.parse(this.box.open(sealed, record.id)) as ElicitationData) : data;
  }

  private publish(type: ElicitationEvent['type'], record: ElicitationRecord, at: number): void {
    this.events.publish({
      type,
      elicitationId: record.id,
      userId: record.userId,
      kind: record.kind,
      elicitationType: record.type,
      sessionId: record.sessionId,
      at,
    });
  }

  private wakeWaiters(event: ElicitationEvent): void {
    if (event.type === 'created') return;
    const set = this.waiters.get(event.elicitationId);
    if (!set) return;
    if (event.type !== 'completed') {
      for (const w of [...set]) w.settle({ status: event.type });
      return;
    }
    // The event carries no data: read it once for all waiters of this id.
    this.store.get(event.elicitationId, Date.now()).then(
      (record) => {
        let outcome: WaitOutcome;
        try {
          outcome = record?.status === 'completed' ? this.outcome(record) : { status: 'expired' };
        } catch {
          outcome = { status: 'expired' };
        }
        for (const w of [...set]) w.settle(outcome);
      },
      () => undefined,
    );
  }

  private buildRecord(input: CreateUrlElicitationInput, now: number): ElicitationRecord {
    if (!input || typeof input !== 'object') throw new ElicitationInputError('input', 'must be an object');
    const { kind, message, userId, type = kind, metadata = {}, session } = input;
    if (!KINDS.includes(kind)) throw new ElicitationInputError('kind', `must be one of ${KINDS.join(', ')}`);
    if (typeof message !== 'string' || !message.trim() || message.length > MAX_MESSAGE_LENGTH) {
      throw new ElicitationInputError('message', `must be a non-empty string of at most ${MAX_MESSAGE_LENGTH} characters`);
    }
    if (typeof userId !== 'string' || !userId) {
      throw new ElicitationInputError('userId', 'must be the non-empty id of the verified user the elicitation is for');
    }
    if (typeof type !== 'string' || !type || type.length > MAX_TYPE_LENGTH) {
      throw new ElicitationInputError('type', `must be a non-empty string of at most ${MAX_TYPE_LENGTH} characters`);
    }
    if (!isPlainObject(metadata)) throw new ElicitationInputError('metadata', 'must be a plain object');
    let metadataJson: string;
    try {
      metadataJson = JSON.stringify(metadata);
    } catch {
      throw new ElicitationInputError('metadata', 'must be JSON-serialisable');
    }
    if (Buffer.byteLength(metadataJson) > this.options.limits.maxMetadataBytes) {
      throw new ElicitationInputError('metadata', `is larger than limits.maxMetadataBytes (${this.options.limits.maxMetadataBytes} bytes)`);
    }
    if (
      metadata.secretFields !== undefined &&
      (!Array.isArray(metadata.secretFields) || metadata.secretFields.some((f) => typeof f !== 'string'))
    ) {
      throw new ElicitationInputError('metadata.secretFields', 'must be an array of field names');
    }
    if (kind === 'confirm') {
      for (const key of CONFIRM_METADATA_KEYS) {
        const value = metadata[key];
        if (value !== undefined && (typeof value !== 'string' || value.length > 500)) {
          throw new ElicitationInputError(`metadata.${key}`, 'must be a string of at most 500 characters');
        }
      }
    }
    if (session !== undefined && (typeof session !== 'string' || !session)) {
      throw new ElicitationInputError('session', 'must be the MCP session id string');
    }
    const ttlMs = input.ttlMs ?? this.options.ttlMs;
    if (!Number.isInteger(ttlMs) || ttlMs <= 0 || ttlMs > MAX_TIMER_MS) {
      throw new ElicitationInputError('ttlMs', 'must be a positive whole number of milliseconds');
    }
    const expiresAt = now + ttlMs;
    const id = randomUUID();
    // Node builds the UUID string from pieces; matching it once flattens it to one 36-byte string,
    // which more than halves the heap a pending record holds (see bench/).
    ELICITATION_ID_PATTERN.test(id);
    return {
      id,
      kind,
      userId,
      type,
      message,
      metadata: { ...metadata },
      status: 'pending',
      createdAt: now,
      expiresAt,
      purgeAt: expiresAt + this.options.retentionMs,
      sessionId: session,
    };
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
