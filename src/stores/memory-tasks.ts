import { DeadlineWheel } from './deadline-wheel.js';
import {
  isOpenTaskStatus,
  type CreateTaskResult,
  type ElicitationTaskStore,
  type FinishedTaskLimit,
  type PutTaskResult,
  type StoredTask,
  type TaskLimit,
  leaseToKeep,
} from './task-store.js';

/** A task as this store keeps it: its own copy, a granted lease stamped from this process's clock. */
function kept(task: StoredTask): StoredTask {
  const { lease, ...rest } = task;
  const keep = leaseToKeep(lease, Date.now());
  return keep ? { ...rest, lease: keep } : rest;
}

/**
 * The tasks of `MemoryElicitationStore`: a map by id, each user's open tasks, the finished ones in the order they
 * finished (each user's, and all), and every task filed under its `expiresAt` so that `sweep` forgets expired ones at
 * the cost of what is due. One process only, like the store.
 */
export class MemoryTasks implements ElicitationTaskStore {
  private readonly tasks = new Map<string, StoredTask>();
  /** userId → the ids of the user's open tasks. */
  private readonly open = new Map<string, Set<string>>();
  private readonly deadlines = new DeadlineWheel<string>(1_000);
  /** The finished tasks, id → userId, oldest finished first (a `Map` keeps insertion order). */
  private readonly finished = new Map<string, string>();
  /** userId → the ids of the user's finished tasks, oldest finished first. */
  private readonly finishedBy = new Map<string, Set<string>>();

  /** Number of tasks kept (expired ones until a sweep forgets them). */
  get size(): number {
    return this.tasks.size;
  }

  createTask(task: StoredTask, limit: TaskLimit): Promise<CreateTaskResult> {
    if (this.tasks.has(task.id)) return Promise.resolve('exists');
    const open = this.openOf(task.userId, task.createdAt);
    if (open.size >= limit.maxOpenPerUser) return Promise.resolve('user-task-limit');
    this.tasks.set(task.id, kept(task));
    if (isOpenTaskStatus(task.status)) open.add(task.id);
    else this.dropEmpty(task.userId, open);
    this.deadlines.add(task.expiresAt, task.id);
    return Promise.resolve('created');
  }

  getTask(id: string, now: number): Promise<StoredTask | undefined> {
    const task = this.tasks.get(id);
    if (!task || now >= task.expiresAt) return Promise.resolve(undefined);
    // The lease's time is this process's clock (the store's), whatever clock `now` is.
    return Promise.resolve(task.lease ? { ...task, lease: { ...task.lease, remainingMs: task.lease.until - Date.now() } } : { ...task });
  }

  async getTasks(ids: readonly string[], now: number): Promise<Array<StoredTask | undefined>> {
    return Promise.all(ids.map((id) => this.getTask(id, now)));
  }

  putTask(task: StoredTask, now: number, finished?: FinishedTaskLimit): Promise<PutTaskResult> {
    const stored = this.tasks.get(task.id);
    if (!stored || now >= stored.expiresAt) return Promise.resolve('not-found');
    if (stored.version !== task.version - 1) return Promise.resolve('conflict');
    const written: StoredTask = kept({ ...task, userId: stored.userId, createdAt: stored.createdAt });
    this.tasks.set(task.id, written);
    if (written.expiresAt !== stored.expiresAt) this.deadlines.add(written.expiresAt, written.id);
    if (!isOpenTaskStatus(written.status)) {
      const open = this.open.get(written.userId);
      if (open?.delete(written.id)) this.dropEmpty(written.userId, open);
      if (isOpenTaskStatus(stored.status)) this.finish(written, finished);
    }
    return Promise.resolve('written');
  }

  /** Files a task that just finished, then forgets the oldest finished past the bounds (never `task` itself). */
  private finish(task: StoredTask, limit: FinishedTaskLimit | undefined): void {
    this.finished.set(task.id, task.userId);
    let mine = this.finishedBy.get(task.userId);
    if (!mine) this.finishedBy.set(task.userId, (mine = new Set()));
    mine.add(task.id);
    if (!limit) return;
    for (const id of mine) {
      if (mine.size <= limit.maxFinishedPerUser) break;
      if (id !== task.id) this.drop(id);
    }
    for (const id of this.finished.keys()) {
      if (this.finished.size <= limit.maxFinished) break;
      if (id !== task.id) this.drop(id);
    }
  }

  /** Forgets a task now, wherever it is filed (its deadline entry goes stale and is skipped). */
  private drop(id: string): void {
    const task = this.tasks.get(id);
    this.tasks.delete(id);
    const userId = this.finished.get(id) ?? task?.userId;
    this.finished.delete(id);
    if (userId === undefined) return;
    const mine = this.finishedBy.get(userId);
    if (mine?.delete(id) && mine.size === 0) this.finishedBy.delete(userId);
    const open = this.open.get(userId);
    if (open?.delete(id)) this.dropEmpty(userId, open);
  }

  /** Forgets the tasks expired by the last whole second before `now` (`getTask` hides them from `expiresAt` on); returns how many. */
  sweep(now: number): number {
    let forgotten = 0;
    for (let due = this.deadlines.takeDue(now); due; due = this.deadlines.takeDue(now)) forgotten += this.forget(due, now);
    return forgotten;
  }

  /** The user's open tasks, without those expired at `now`. */
  private openOf(userId: string, now: number): Set<string> {
    let open = this.open.get(userId);
    if (!open) {
      open = new Set();
      this.open.set(userId, open);
    }
    for (const id of open) if ((this.tasks.get(id)?.expiresAt ?? 0) <= now) open.delete(id);
    return open;
  }

  private forget(ids: readonly string[], now: number): number {
    let forgotten = 0;
    for (const id of ids) {
      const task = this.tasks.get(id);
      // A stale entry (the task's expiresAt moved on): the later entry forgets it.
      if (!task || task.expiresAt > now) continue;
      this.drop(id);
      forgotten++;
    }
    return forgotten;
  }

  private dropEmpty(userId: string, open: Set<string>): void {
    if (open.size === 0) this.open.delete(userId);
  }
}
