/**
 * The task side of a store (the MCP Tasks extension, `io.modelcontextprotocol/tasks`): where a tool call that
 * became a task lives while it runs and while it waits for a person, so that any instance can answer for it,
 * resume it and finish it. A waiting task is a record here and nothing else: no timer, promise or connection.
 *
 * The store keeps what it needs to index and expire a task in clear (its id, user, status, times, version and
 * lease) and the rest as one opaque `body` the MCP binding writes (sealed on a store outside the process). Every
 * change is a compare-and-set on `version`, so that the rules of a task's life stay in one place, the binding,
 * and two instances never both move the same task on.
 */

/** Every status of a task, as the extension names them. */
export const TASK_STATUSES = ['working', 'input_required', 'completed', 'failed', 'cancelled'] as const;

/** A task's status. */
export type TaskStatus = (typeof TASK_STATUSES)[number];

/**
 * The statuses of an open task, the one definition every store uses: an open task counts against its user's
 * `maxOpenPerUser` until it expires. The memory store reads it; the Redis scripts (redis.tasks.ts) and the PostgreSQL
 * schema (postgres.schema.ts) are written from it, and test/stores/open-task.spec.ts holds them to it.
 */
export const OPEN_TASK_STATUSES: readonly TaskStatus[] = ['working', 'input_required'];

/** The statuses a task never leaves: all but the open ones. */
export const TERMINAL_TASK_STATUSES: ReadonlySet<TaskStatus> = new Set(
  TASK_STATUSES.filter((status) => !OPEN_TASK_STATUSES.includes(status)),
);

/** Whether a task in `status` is open (working, or waiting for input): see `OPEN_TASK_STATUSES`. */
export function isOpenTaskStatus(status: TaskStatus): boolean {
  return OPEN_TASK_STATUSES.includes(status);
}

/** Whether a task in `status` is over (completed, failed or cancelled): not open. */
export function isTerminalTaskStatus(status: TaskStatus): boolean {
  return TERMINAL_TASK_STATUSES.has(status);
}

/**
 * The instance running a task, and until when its claim holds. Lease time is the store's clock, never an instance's
 * (two instances' clocks may disagree by seconds): a write grants a lease for `grantMs` and the store stamps `until`
 * from its own clock; a read says how much of it is left by that clock (`remainingMs`). The fencing token that makes
 * a run's writes refuse a stale run is the binding's, kept in the task's body.
 */
export interface TaskLease {
  readonly owner: string;
  /** Until when the claim holds, epoch milliseconds on the store's clock. */
  readonly until: number;
  /**
   * Written: grant (or renew) the claim for this long from the store's own clock now; `until` is then set by the store
   * (the value written is ignored). Absent: the lease is kept as written. Never stored.
   */
  readonly grantMs?: number;
  /** Read: how long the claim still held by the store's clock when the task was read (0 or less: it ran out). */
  readonly remainingMs?: number;
}

/** The lease as a store keeps it: the owner and the store-clock `until`, granted from `now` (the store's clock). */
export function leaseToKeep(lease: TaskLease | undefined, now: number): { owner: string; until: number } | undefined {
  if (!lease) return undefined;
  return { owner: lease.owner, until: lease.grantMs === undefined ? lease.until : now + lease.grantMs };
}

/** A task as a store keeps it. */
export interface StoredTask {
  /** The task id: unguessable (the binding makes it from 128 random bits). */
  readonly id: string;
  /** The user the task is bound to (a store outside the process keeps it hashed in its indexes). */
  readonly userId: string;
  readonly status: TaskStatus;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  /** Epoch milliseconds: the last change the client can see. */
  readonly updatedAt: number;
  /** When the store may forget the task (`createdAt + ttlMs`), epoch milliseconds. */
  readonly expiresAt: number;
  /** 1 when created; every write the store takes is the stored version plus one. */
  readonly version: number;
  /** The instance running the task now; absent while nobody does (a waiting task). */
  readonly lease?: TaskLease;
  /** Everything else (the tool, its arguments, the answers so far, the open questions, the result), as the binding wrote it. */
  readonly body: string;
}

/** What `createTask` did: stored, an id that exists already, or the user's cap on open tasks reached. */
export type CreateTaskResult = 'created' | 'exists' | 'user-task-limit';

/** What `putTask` did: written, another write came first (`conflict`), or no such task (unknown, or expired). */
export type PutTaskResult = 'written' | 'conflict' | 'not-found';

/** The limit `createTask` checks atomically with the write. */
export interface TaskLimit {
  /** Tasks one user may have open (in an `OPEN_TASK_STATUSES` status, and not expired). */
  readonly maxOpenPerUser: number;
}

/**
 * How many finished tasks `putTask` leaves kept when it finishes one (moves it from an open status to a final one):
 * past either bound the oldest finished (by when they finished) are forgotten, never the one just written and never
 * an open task. A bound the store keeps as well as it can across instances (not one atomic count): at most a few over.
 */
export interface FinishedTaskLimit {
  /** Finished tasks kept per user. */
  readonly maxFinishedPerUser: number;
  /** Finished tasks kept in all. */
  readonly maxFinished: number;
}

/**
 * The optional task members of a store. A store offers all three or none (`offers: ['createTask', 'getTask',
 * 'putTask']` in the contract suite); without them the module refuses to start with tasks enabled.
 */
export interface ElicitationTaskStore {
  /**
   * Stores a new task (version 1) unless its id exists or its user has `limit.maxOpenPerUser` open tasks
   * already; then nothing is stored. Check and write are one atomic step.
   */
  createTask(task: StoredTask, limit: TaskLimit): Promise<CreateTaskResult>;
  /** Reads one task: `undefined` for an unknown id and from its `expiresAt` on. The task is the caller's own copy. */
  getTask(id: string, now: number): Promise<StoredTask | undefined>;
  /**
   * Optional: reads several tasks in one call, each as `getTask` reads it, in the order of `ids` (the one poll of the
   * `subscriptions/listen` streams of an instance, however many tasks they follow). Without it each is read alone.
   */
  getTasks?(ids: readonly string[], now: number): Promise<Array<StoredTask | undefined>>;
  /**
   * Replaces a task when the stored one has version `task.version - 1` and has not expired at `now`: an atomic
   * compare-and-set, across processes on a shared store. A task that reaches a final status leaves its user's
   * open tasks, and then, with `finished`, the store forgets the oldest finished tasks past its bounds
   * (`FinishedTaskLimit`). `id`, `userId` and `createdAt` never change.
   */
  putTask(task: StoredTask, now: number, finished?: FinishedTaskLimit): Promise<PutTaskResult>;
}
