import { performance } from 'node:perf_hooks';
import type { StoredTask, TaskLease } from '../../stores/task-store.js';

/**
 * How long before the lease's end by the store's clock this instance stops trusting it: the lease's time is measured
 * here from the moment the grant was asked (so never later than the store's), less this margin for clocks that run at
 * slightly different rates and for the renewal's round trip.
 */
function leaseMargin(leaseMs: number): number {
  return Math.min(leaseMs / 5, 2_000);
}

/**
 * Whether a lease still holds: by the store's clock (`remainingMs`, as read); a store that does not say (a custom
 * store written before it was asked to) by this instance's clock, `now`.
 */
export function leaseLive(lease: TaskLease, now: number): boolean {
  return (lease.remainingMs ?? lease.until - now) > 0;
}

/**
 * A task with a run due that nobody runs: its lease ran out (by the store's clock), or its run was due (`due`, written
 * `updatedAt`) and not taken within a quarter of a lease.
 */
export function orphaned(task: Pick<StoredTask, 'lease' | 'updatedAt'>, due: boolean | undefined, now: number, leaseMs: number): boolean {
  if (task.lease) return !leaseLive(task.lease, now);
  return due === true && now - task.updatedAt > leaseMs / 4;
}

/** A lease for `owner`, granted by the store's clock (`until`: this instance's guess, for a store that cannot). */
export function leaseFor(owner: string, leaseMs: number, now: number): TaskLease {
  return { owner, until: now + leaseMs, grantMs: leaseMs };
}

/** Why a run stopped: the task was cancelled (on any instance). */
export function taskCancelled(): Error {
  return new Error('The task was cancelled.');
}

/** Why a run stopped: another instance took the run over. */
export function leaseTaken(): Error {
  return new Error('Another instance took the task over.');
}

/** Why a run stopped: its lease's time ran out on this instance before a renewal got through. */
function leaseRanOut(): Error {
  return new Error("This instance's lease on the task ran out: another instance may run it now.");
}

/**
 * A run of a task under way on this instance: the fencing token it took the task with (`TaskBody.fence`), the signal
 * its body gets, and the moment (`performance.now()`, the monotonic clock) this instance stops trusting its lease.
 * The signal aborts at that deadline, when a renewal finds the task taken over or finished, and on a cancel here; its
 * `aborted` and `throwIfAborted()` first compare the deadline with the clock, so a body that checks right before a
 * side effect learns of a lease that ran out while the process was paused, before the timer that aborts at the
 * deadline has had its turn.
 */
export class TaskRun {
  /** The fencing token the run took the task with (0 until it did). */
  fence = 0;
  /** Why the run lost the task (its lease ran out or was taken, the task ended); unset while it holds it. */
  lost?: Error;
  readonly signal: AbortSignal;
  private readonly abort = new AbortController();
  private deadline = Infinity;
  private timer?: NodeJS.Timeout;

  constructor(private readonly leaseMs: number) {
    this.signal = this.fencedSignal();
  }

  /** Sets the deadline from a grant (or renewal) asked at `askedAt` (`performance.now()`), and the timer that aborts at it. */
  armDeadline(askedAt: number): void {
    this.deadline = askedAt + this.leaseMs - leaseMargin(this.leaseMs);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.lose(leaseRanOut()), Math.max(0, this.deadline - performance.now()));
    this.timer.unref();
  }

  /** The run lost the task: its signal aborts, and it writes nothing more. */
  lose(reason: Error): void {
    this.lost ??= reason;
    this.stop(reason);
  }

  /** Aborts the signal (once) with `reason`. */
  stop(reason: Error): void {
    if (!this.isAborted()) this.abort.abort(reason);
  }

  /** The run is over: no timer left. */
  end(): void {
    clearTimeout(this.timer);
  }

  private isAborted(): boolean {
    return abortedOf(this.abort.signal);
  }

  private fencedSignal(): AbortSignal {
    const signal = this.abort.signal;
    const due = () => {
      if (!this.isAborted() && performance.now() >= this.deadline) this.lose(leaseRanOut());
    };
    Object.defineProperty(signal, 'aborted', {
      get() {
        due();
        return abortedOf(signal);
      },
    });
    Object.defineProperty(signal, 'throwIfAborted', {
      value() {
        due();
        AbortSignal.prototype.throwIfAborted.call(signal);
      },
    });
    return signal;
  }
}

/** `signal.aborted` as `AbortSignal` itself says it (a run's signal has its own getter, which checks the deadline first). */
function abortedOf(signal: AbortSignal): boolean {
  return Reflect.get<AbortSignal, 'aborted'>(AbortSignal.prototype, 'aborted', signal);
}
