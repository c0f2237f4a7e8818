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

/** One pending `waitForCompletion` call: a small listener on its id's entry. */
interface Listener {
  resolve(outcome: WaitOutcome): void;
  reject(error: unknown): void;
  /** The caller's `timeoutMs`, counted from the moment the record is known to be pending. */
  readonly timeoutMs: number | undefined;
  /** When `timeoutMs` runs out (ms), Infinity without one; set once the record was read. */
  timeoutAt: number;
  readonly signal: AbortSignal | undefined;
  onAbort?: () => void;
}

/**
 * The waits on one elicitation id, however many: one read of the record, one timer (the elicitation's expiry or
 * the earliest wait's own timeout), one place the transitions and the other instances' events reach.
 */
interface Entry {
  readonly listeners: Set<Listener>;
  /** Whether the record was read (pending): the timer runs from then on. */
  read: boolean;
  /** The elicitation's expiry as known here (from the record read, raised by `extended`); NaN until either. */
  expiresAt: number;
  timer: NodeJS.Timeout | undefined;
  /** An expiry read of the record is under way (one at a time). */
  expiring: boolean;
  /** The first read of the record, which every wait of the entry awaits: rejects when it fails or finds nothing. */
  reading: Promise<void>;
}

/**
 * The in-process registry of `waitForCompletion` calls, by elicitation id. The waits on one id share one entry:
 * one store read when the first of them starts, one timer, and a small listener per wait, removed when that wait
 * ends (settled, timed out or aborted); the entry goes with its last listener. Transitions made by this instance
 * wake the waiters with the record in hand (`finished`); events from other instances wake them through `remote`,
 * which reads the store once per id for a `completed` answer (again, backing off, while the read fails). Each wait
 * settles exactly once: by a transition, the timer (its timeout or the expiry), its abort signal, or `close` on
 * shutdown (which rejects it with `ElicitationShutdownError`, as it does every wait started after it). An
 * elicitation given more time (`extended`, here or through another instance's event) moves the expiry of its entry.
 */
export class ElicitationWaiters {
  private readonly byId = new Map<string, Entry>();
  private closed = false;

  constructor(private readonly deps: ElicitationWaiterDeps) {}

  /** Number of elicitation ids with at least one waiter (for leak checks in tests). */
  get size(): number {
    return this.byId.size;
  }

  /** The waits on `id` now; 0 when none, and then its entry, timer and store read are gone too (for leak checks in tests). */
  count(id: string): number {
    return this.byId.get(id)?.listeners.size ?? 0;
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
    // Registered before the record is read, so a transition between the read and the registration is not missed.
    let entry = this.byId.get(id);
    if (!entry) {
      entry = { listeners: new Set(), read: false, expiresAt: Number.NaN, timer: undefined, expiring: false, reading: Promise.resolve() };
      this.byId.set(id, entry);
      entry.reading = this.readFirst(id, entry);
    }
    const joined = entry;
    const settled = new Promise<WaitOutcome>((resolve, reject) => {
      const listener: Listener = { resolve, reject, timeoutMs, timeoutAt: Number.POSITIVE_INFINITY, signal };
      if (signal) {
        // The caller's own abort reason, passed on unchanged (whatever it is), as fetch does.
        listener.onAbort = () => {
          this.drop(id, joined, listener);
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
          reject(signal.reason);
        };
        signal.addEventListener('abort', listener.onAbort, { once: true });
      }
      joined.listeners.add(listener);
      if (joined.read) {
        this.startTimeout(listener);
        this.arm(id, joined);
      }
    });
    // Ended with an error (abort, shutdown) while the read fails too: the read's error is what the caller gets, and
    // this one must not surface as an unhandled rejection.
    void settled.catch(() => undefined);
    await joined.reading;
    return settled;
  }

  /**
   * A transition this instance just made: wakes the waiters of `id` with the outcome in hand, no store read.
   * `answerJson` is a completion's answer as it was sealed, parsed into one fresh copy for the waiters of `id`
   * (what the store read they no longer need gave them).
   */
  finished(id: string, status: FinalStatus, answerJson = '{}'): void {
    const entry = this.byId.get(id);
    if (!entry) return;
    this.settleAll(id, entry, status === 'completed' ? { status, data: JSON.parse(answerJson) as ElicitationData } : { status });
  }

  /**
   * The elicitation `id` was given more time (here, or on another instance: `remote`): every wait of it that ends at
   * its expiry now ends at `expiresAt`.
   */
  extended(id: string, expiresAt: number): void {
    const entry = this.byId.get(id);
    if (!entry || !(Number.isNaN(entry.expiresAt) || expiresAt > entry.expiresAt)) return;
    entry.expiresAt = expiresAt;
    this.arm(id, entry);
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
    const entry = this.byId.get(event.elicitationId);
    if (!entry) return;
    if (event.type !== 'completed') return this.settleAll(event.elicitationId, entry, { status: event.type });
    this.readCompleted(event.elicitationId, entry, 0);
  }

  /**
   * Module shutdown: rejects every waiter with `ElicitationShutdownError` (the elicitation stays as it is), and
   * every wait started from now on.
   */
  close(): void {
    this.closed = true;
    for (const [id, entry] of [...this.byId]) this.endAll(id, entry, (listener) => listener.reject(new ElicitationShutdownError(id)));
  }

  /**
   * The first read of the record, for every wait of the entry: an unknown id or a failed read rejects (each wait
   * with that error), a finished record settles them, a pending one starts their timer.
   */
  private async readFirst(id: string, entry: Entry): Promise<void> {
    let outcome: WaitOutcome;
    try {
      const record = await this.deps.current(id);
      if (!record) throw new ElicitationNotFoundError(id);
      if (this.byId.get(id) !== entry) return; // settled or left meanwhile
      if (record.status === 'pending') {
        // An extension announced while the record was being read may be later than what the read saw.
        entry.expiresAt = Number.isNaN(entry.expiresAt) ? record.expiresAt : Math.max(entry.expiresAt, record.expiresAt);
        entry.read = true;
        for (const listener of entry.listeners) this.startTimeout(listener);
        return this.arm(id, entry);
      }
      outcome = this.deps.outcome(record);
    } catch (error) {
      if (this.byId.get(id) === entry) this.endAll(id, entry, (listener) => listener.reject(error));
      throw error;
    }
    this.settleAll(id, entry, outcome);
  }

  /** A wait's own timeout starts once the record is known to be pending. */
  private startTimeout(listener: Listener): void {
    if (listener.timeoutMs !== undefined) listener.timeoutAt = Date.now() + Math.max(listener.timeoutMs, 0);
  }

  /**
   * The entry's one timer, for whichever comes first: the earliest wait's own timeout or the expiry. A moment
   * beyond the longest timer is waited for in steps. Armed only once the record was read.
   */
  private arm(id: string, entry: Entry): void {
    clearTimeout(entry.timer);
    entry.timer = undefined;
    if (!entry.read || entry.listeners.size === 0 || this.byId.get(id) !== entry) return;
    let next = entry.expiresAt;
    for (const listener of entry.listeners) next = Math.min(next, listener.timeoutAt);
    entry.timer = setTimeout(() => this.fire(id, entry), Math.min(Math.max(next - Date.now(), 0), MAX_TIMER_MS));
    // A waiting tool call must not keep the process alive on shutdown (`close` settles it).
    entry.timer.unref();
  }

  /** The timer fired: the waits whose timeout came before the expiry end with `timeout`; at the expiry, the record is read. */
  private fire(id: string, entry: Entry): void {
    entry.timer = undefined;
    if (this.byId.get(id) !== entry) return;
    const now = Date.now();
    for (const listener of [...entry.listeners]) {
      if (listener.timeoutAt <= now && listener.timeoutAt < entry.expiresAt) this.settleOne(id, entry, listener, { status: 'timeout' });
    }
    if (this.byId.get(id) !== entry) return;
    if (now >= entry.expiresAt) this.atExpiry(id, entry);
    else this.arm(id, entry);
  }

  /**
   * Reading the record expires it (and publishes `expired`); a timer that fired a little before the record's
   * expiry, by the wall clock, or of a record given more time meanwhile, waits for the rest. One read per entry.
   */
  private atExpiry(id: string, entry: Entry): void {
    if (entry.expiring) return;
    entry.expiring = true;
    this.deps.current(id).then(
      (record) => {
        entry.expiring = false;
        if (this.byId.get(id) !== entry) return;
        if (record?.status !== 'pending') return this.settleAll(id, entry, record ? this.safeOutcome(record) : { status: 'expired' });
        entry.expiresAt = Math.max(entry.expiresAt, record.expiresAt);
        this.arm(id, entry);
      },
      () => {
        entry.expiring = false;
        if (this.byId.get(id) === entry) this.settleAll(id, entry, { status: 'expired' });
      },
    );
  }

  /**
   * Reads the answer another instance stored, for the waiters of `id`. A failed read (the store unreachable for
   * a moment) is tried again, backing off from 100 ms to 5 s, for as long as one of them still waits: the
   * completion happened, so giving up would leave them waiting for their timeout.
   */
  private readCompleted(id: string, entry: Entry, attempt: number): void {
    const waiting = () => !this.closed && entry.listeners.size > 0 && this.byId.get(id) === entry;
    this.deps.stored(id).then(
      (record) => {
        if (waiting()) this.settleAll(id, entry, record?.status === 'completed' ? this.safeOutcome(record) : { status: 'expired' });
      },
      () => {
        if (!waiting()) return;
        const retry = () => waiting() && this.readCompleted(id, entry, attempt + 1);
        setTimeout(retry, Math.min(100 * 2 ** attempt, 5_000)).unref();
      },
    );
  }

  /** A record whose answer cannot be opened (a key no longer in the ring) reads as expired. */
  private safeOutcome(record: ElicitationRecord): WaitOutcome {
    try {
      return this.deps.outcome(record);
    } catch {
      return { status: 'expired' };
    }
  }

  private settleAll(id: string, entry: Entry, outcome: WaitOutcome): void {
    this.endAll(id, entry, (listener) => listener.resolve(outcome));
  }

  private settleOne(id: string, entry: Entry, listener: Listener, outcome: WaitOutcome): void {
    this.drop(id, entry, listener);
    listener.resolve(outcome);
  }

  /** Ends every wait of the entry (the entry and its timer go first, so nothing settles twice). */
  private endAll(id: string, entry: Entry, end: (listener: Listener) => void): void {
    if (this.byId.get(id) === entry) this.byId.delete(id);
    clearTimeout(entry.timer);
    entry.timer = undefined;
    const listeners = [...entry.listeners];
    entry.listeners.clear();
    for (const listener of listeners) {
      this.unlisten(listener);
      end(listener);
    }
  }

  /** One wait leaves its entry; the entry and its timer go with the last one. */
  private drop(id: string, entry: Entry, listener: Listener): void {
    if (!entry.listeners.delete(listener)) return;
    this.unlisten(listener);
    if (entry.listeners.size > 0) return;
    clearTimeout(entry.timer);
    entry.timer = undefined;
    if (this.byId.get(id) === entry) this.byId.delete(id);
  }

  private unlisten(listener: Listener): void {
    if (listener.onAbort) listener.signal?.removeEventListener('abort', listener.onAbort);
  }
}
