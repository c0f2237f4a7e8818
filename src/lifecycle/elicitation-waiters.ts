import { MAX_TIMER_MS } from '../options/elicitation.constants.js';
import type {
  ElicitationData,
  ElicitationEvent,
  ElicitationOutcome,
  ElicitationRecord,
  FinalStatus,
  WaitOutcome,
} from '../core/elicitation.types.js';
import { ElicitationNotFoundError } from '../errors/elicitation-not-found.error.js';
import { ElicitationShutdownError } from '../errors/elicitation-shutdown.error.js';

/** Options of `waitForCompletion`. */
export interface ElicitationWaitOptions {
  /** Longest wait in milliseconds; resolves `{ status: 'timeout' }` then. @default until the elicitation expires */
  timeoutMs?: number;
  /** Aborting rejects the wait with the signal's reason; the elicitation itself is left as it is. */
  signal?: AbortSignal;
}

/** What the waiter registry needs from the service that owns it. */
export interface ElicitationWaiterDeps {
  /** The record as a reader sees it now (an overdue pending one is expired on the way); `undefined` when unknown. */
  current(id: string): Promise<ElicitationRecord | undefined>;
  /** The stored record as it is, for an event from another instance (which carries no data). */
  stored(id: string): Promise<ElicitationRecord | undefined>;
  /** What a waiter sees of a finished record: the answer decrypted in process for `completed` (may throw). */
  outcome(record: ElicitationRecord): ElicitationOutcome;
}

/** One pending `waitForCompletion` call. Settling is idempotent: the first outcome (or failure) wins. */
interface Waiter {
  settle(outcome: WaitOutcome): void;
  /** Ends the wait with an error instead (shutdown). */
  fail(error: Error): void;
  /** The elicitation was given more time: a wait that ends at its expiry ends at `expiresAt` now. */
  extend(expiresAt: number): void;
}

/**
 * The in-process registry of `waitForCompletion` calls, by elicitation id. Transitions made by this instance
 * wake their waiters with the record in hand (`finished`); events from other instances wake them through
 * `remote`, which reads the store once per id for a `completed` answer (again, backing off, while the read fails). Each waiter settles exactly once:
 * by a transition, its timer (timeout or expiry), its abort signal, or `close` on shutdown (which rejects it
 * with `ElicitationShutdownError`, as it does every wait started after it). An elicitation given more time
 * (`extended`, here or through another instance's event) moves the timer of every wait that ends at its expiry.
 */
export class ElicitationWaiters {
  private readonly byId = new Map<string, Set<Waiter>>();
  private closed = false;

  constructor(private readonly deps: ElicitationWaiterDeps) {}

  /** Number of elicitation ids with at least one waiter (for leak checks in tests). */
  get size(): number {
    return this.byId.size;
  }

  /**
   * Resolves when the elicitation leaves `pending` (with the data when completed), `{ status: 'expired' }`
   * when it expires first, or `{ status: 'timeout' }` when `timeoutMs` passes first. Rejects with
   * `ElicitationNotFoundError` for an unknown id, with the signal's reason on abort, and with
   * `ElicitationShutdownError` once `close` was called (at once for a wait started after it).
   */
  async wait(id: string, { timeoutMs, signal }: ElicitationWaitOptions = {}): Promise<WaitOutcome> {
    signal?.throwIfAborted();
    if (this.closed) throw new ElicitationShutdownError(id);
    let waiter!: Waiter;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    let done = false;
    /** The elicitation's expiry as known here (from the record read, raised by `extend`); NaN until either. */
    let expiresAt = Number.NaN;
    /** Whether the record was read: the timer runs from then on. */
    let read = false;
    /** When `timeoutMs` runs out (set once the record was read), or Infinity without one. */
    let timeoutAt = Number.POSITIVE_INFINITY;
    // The timer: for the caller's timeout when it comes before the expiry, else for the expiry (re-armed when the
    // elicitation is given more time). Armed only once the record was read.
    const arm = () => {
      clearTimeout(timer);
      if (done || !read) return;
      const now = Date.now();
      if (timeoutAt < expiresAt) {
        const left = timeoutAt - now;
        // A timeout beyond the longest timer waits in steps.
        timer = setTimeout(
          left > MAX_TIMER_MS ? arm : () => waiter.settle({ status: 'timeout' }),
          Math.min(Math.max(left, 0), MAX_TIMER_MS),
        );
      } else {
        timer = setTimeout(atExpiry, Math.min(Math.max(expiresAt - now, 0), MAX_TIMER_MS));
      }
      // A waiting tool call must not keep the process alive on shutdown (`close` settles it).
      timer.unref();
    };
    const atExpiry = () => {
      // Reading the record expires it (and publishes `expired`); a timer that fired a little before the record's
      // expiry, by the wall clock, or of a record given more time meanwhile, waits for the rest.
      this.deps.current(id).then(
        (r) => {
          if (done) return;
          if (r?.status !== 'pending') return waiter.settle(r ? this.deps.outcome(r) : { status: 'expired' });
          expiresAt = Math.max(expiresAt, r.expiresAt);
          arm();
        },
        () => waiter.settle({ status: 'expired' }),
      );
    };
    const settled = new Promise<WaitOutcome>((resolve, reject) => {
      const finish = (fn: () => void) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (onAbort) signal?.removeEventListener('abort', onAbort);
        this.remove(id, waiter);
        fn();
      };
      waiter = {
        settle: (outcome) => finish(() => resolve(outcome)),
        fail: (error) => finish(() => reject(error)),
        extend: (later) => {
          if (done || !(Number.isNaN(expiresAt) || later > expiresAt)) return;
          expiresAt = later;
          arm();
        },
      };
      // The caller's own abort reason, passed on unchanged (whatever it is), as fetch does.
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      onAbort = () => finish(() => reject(signal!.reason));
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    // Ended with an error (abort, shutdown) while the read below fails too: the read's error is what the
    // caller gets, and this one must not surface as an unhandled rejection.
    void settled.catch(() => undefined);
    // Register before reading, so a transition between the read and the registration is not missed.
    let set = this.byId.get(id);
    if (!set) this.byId.set(id, (set = new Set()));
    set.add(waiter);

    const record = await this.deps.current(id).catch((error: unknown) => {
      waiter.settle({ status: 'timeout' });
      throw error;
    });
    if (!record) {
      waiter.settle({ status: 'timeout' });
      throw new ElicitationNotFoundError(id);
    }
    if (done) {
      // Settled (aborted, or woken by a transition) while the record was being read.
    } else if (record.status !== 'pending') {
      waiter.settle(this.deps.outcome(record));
    } else {
      if (timeoutMs !== undefined) timeoutAt = Date.now() + Math.max(timeoutMs, 0);
      // An extension announced while the record was being read may be later than what the read saw.
      expiresAt = Number.isNaN(expiresAt) ? record.expiresAt : Math.max(expiresAt, record.expiresAt);
      read = true;
      arm();
    }
    return settled;
  }

  /**
   * A transition this instance just made: wakes the waiters of `id` with the outcome in hand, no store read.
   * `answerJson` is a completion's answer as it was sealed, parsed into one fresh copy for the waiters of `id`
   * (what the store read they no longer need gave them).
   */
  finished(id: string, status: FinalStatus, answerJson = '{}'): void {
    const set = this.byId.get(id);
    if (!set) return;
    this.settleAll(set, status === 'completed' ? { status, data: JSON.parse(answerJson) as ElicitationData } : { status });
  }

  /**
   * The elicitation `id` was given more time (here, or on another instance: `remote`): every wait of it that ends at
   * its expiry now ends at `expiresAt`.
   */
  extended(id: string, expiresAt: number): void {
    const set = this.byId.get(id);
    if (set) for (const waiter of [...set]) waiter.extend(expiresAt);
  }

  /**
   * An event from another instance: the outcome is in the event, except a `completed` answer, read once per id; an
   * `extended` event moves the waits' expiry.
   */
  remote(event: ElicitationEvent): void {
    if (event.type === 'created') return;
    if (event.type === 'extended') {
      if (event.expiresAt !== undefined) this.extended(event.elicitationId, event.expiresAt);
      return;
    }
    const set = this.byId.get(event.elicitationId);
    if (!set) return;
    if (event.type !== 'completed') return this.settleAll(set, { status: event.type });
    this.readCompleted(event.elicitationId, set, 0);
  }

  /**
   * Reads the answer another instance stored, for the waiters of `id`. A failed read (the store unreachable for
   * a moment) is tried again, backing off from 100 ms to 5 s, for as long as one of them still waits: the
   * completion happened, so giving up would leave them waiting for their timeout.
   */
  private readCompleted(id: string, set: Set<Waiter>, attempt: number): void {
    this.deps.stored(id).then(
      (record) => this.settleAll(set, record?.status === 'completed' ? this.safeOutcome(record) : { status: 'expired' }),
      () => {
        const waiting = () => !this.closed && set.size > 0 && this.byId.get(id) === set;
        if (!waiting()) return;
        const retry = () => waiting() && this.readCompleted(id, set, attempt + 1);
        setTimeout(retry, Math.min(100 * 2 ** attempt, 5_000)).unref();
      },
    );
  }

  /**
   * Module shutdown: rejects every waiter with `ElicitationShutdownError` (the elicitation stays as it is), and
   * every wait started from now on.
   */
  close(): void {
    this.closed = true;
    for (const [id, set] of [...this.byId]) for (const waiter of [...set]) waiter.fail(new ElicitationShutdownError(id));
    this.byId.clear();
  }

  private settleAll(set: Set<Waiter>, outcome: WaitOutcome): void {
    for (const waiter of [...set]) waiter.settle(outcome);
  }

  /** A record whose answer cannot be opened (a key no longer in the ring) reads as expired. */
  private safeOutcome(record: ElicitationRecord): WaitOutcome {
    try {
      return this.deps.outcome(record);
    } catch {
      return { status: 'expired' };
    }
  }

  private remove(id: string, waiter: Waiter): void {
    const set = this.byId.get(id);
    set?.delete(waiter);
    if (set?.size === 0) this.byId.delete(id);
  }
}
