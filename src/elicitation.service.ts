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
import { ElicitationNotFoundException } from './errors/elicitation-not-found.exception.js';
import { ElicitationEvents, type ElicitationEventListener } from './events/elicitation-events.js';
import { ElicitationStore } from './stores/elicitation-store.js';

const KINDS: readonly ElicitationKind[] = ['api-key', 'confirm'];
const MAX_MESSAGE_LENGTH = 2000;
const MAX_TYPE_LENGTH = 200;
const MAX_TIMER_MS = 2_147_483_647;
/** Metadata keys the confirm page reads, all optional strings. */
const CONFIRM_METADATA_KEYS = ['title', 'warning', 'confirmLabel', 'cancelLabel'] as const;

/** Arguments of `createUrlElicitation`. */
export interface CreateUrlElicitationInput {
  /** Which page collects the answer: `api-key` (a secret) or `confirm` (yes/no). */
  kind: ElicitationKind;
  /** Why you ask, shown on the page. Plain text (rendered escaped), at most 2000 characters. */
  message: string;
  /** The verified user the elicitation is for; only this user may answer it. */
  userId: string;
  /** What the answer is for, for `findByUserAndType`, e.g. `api-key-github`. @default the kind */
  type?: string;
  /**
   * Page settings and your own data (never secrets). The confirm page reads `title`, `warning`,
   * `confirmLabel` and `cancelLabel`.
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

  constructor(
    @Inject(ELICITATION_RESOLVED_OPTIONS) private readonly options: ResolvedElicitationOptions,
    private readonly store: ElicitationStore,
    private readonly events: ElicitationEvents,
  ) {
    this.unsubscribe = events.subscribe((event) => this.wakeWaiters(event));
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
    await this.store.create(record);
    this.publish('created', record, record.createdAt);
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
  ): Promise<ElicitationOutcome<T> | { status: 'pending' } | undefined> {
    const record = await this.getRecord(id);
    if (!record) return undefined;
    return record.status === 'pending' ? { status: 'pending' } : toOutcome<T>(record);
  }

  /** The latest completed answer of `userId` for `type` that is still retained. */
  async findByUserAndType<T extends ElicitationData = ElicitationData>(
    userId: string,
    type: string,
  ): Promise<StoredAnswer<T> | undefined> {
    const record = await this.store.findLatestCompleted(userId, type, Date.now());
    return (
      record && { elicitationId: record.id, data: (record.data ?? {}) as T, completedAt: new Date(record.finishedAt!) }
    );
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
  complete(id: string, data: ElicitationData): Promise<TransitionResult> {
    return this.transition(id, 'completed', data);
  }

  /** The user refused. Same exactly-once rule as `complete`. */
  decline(id: string): Promise<TransitionResult> {
    return this.transition(id, 'declined');
  }

  /** The server (or the tool) withdrew the request. Same exactly-once rule as `complete`. */
  cancel(id: string): Promise<TransitionResult> {
    return this.transition(id, 'cancelled');
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
      waiter.settle(toOutcome(record));
    } else {
      const untilExpiry = record.expiresAt - Date.now();
      const expiresFirst = timeoutMs === undefined || untilExpiry <= timeoutMs;
      timer = setTimeout(
        () => {
          if (!expiresFirst) return waiter.settle({ status: 'timeout' });
          this.getRecord(id).then(
            (r) => waiter.settle(r && r.status !== 'pending' ? toOutcome(r) : { status: 'expired' }),
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

  private async transition(
    id: string,
    status: FinalStatus,
    data?: ElicitationData,
    now: number = Date.now(),
  ): Promise<TransitionResult> {
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
        const outcome: WaitOutcome = record?.status === 'completed' ? toOutcome(record) : { status: 'expired' };
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

function toOutcome<T extends ElicitationData>(record: ElicitationRecord): ElicitationOutcome<T> {
  if (record.status === 'completed') return { status: 'completed', data: (record.data ?? {}) as T };
  return { status: record.status as Exclude<FinalStatus, 'completed'> };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
