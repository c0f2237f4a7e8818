import { DeadlineWheel } from './deadline-wheel.js';
import {
  isOpenTaskStatus,
  type CreateTaskResult,
  type ElicitationTaskStore,
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
 * The tasks of `MemoryElicitationStore`: a map by id, each user's open tasks, and every task filed under its
 * `expiresAt` so that `sweep` forgets expired ones at the cost of what is due. One process only, like the store.
 */
export class MemoryTasks implements ElicitationTaskStore {
  private readonly tasks = new Map<string, StoredTask>();
  /** userId → the ids of the user's open tasks. */
  private readonly open = new Map<string, Set<string>>();
  private readonly deadlines = new DeadlineWheel<string>(1_000);

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

  putTask(task: StoredTask, now: number): Promise<PutTaskResult> {
    const stored = this.tasks.get(task.id);
    if (!stored || now >= stored.expiresAt) return Promise.resolve('not-found');
    if (stored.version !== task.version - 1) return Promise.resolve('conflict');
    const written: StoredTask = kept({ ...task, userId: stored.userId, createdAt: stored.createdAt });
    this.tasks.set(task.id, written);
    if (written.expiresAt !== stored.expiresAt) this.deadlines.add(written.expiresAt, written.id);
    if (!isOpenTaskStatus(written.status)) {
      const open = this.open.get(written.userId);
      if (open?.delete(written.id)) this.dropEmpty(written.userId, open);
    }
    return Promise.resolve('written');
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
      this.tasks.delete(id);
      const open = this.open.get(task.userId);
      if (open?.delete(id)) this.dropEmpty(task.userId, open);
      forgotten++;
    }
    return forgotten;
  }

  private dropEmpty(userId: string, open: Set<string>): void {
    if (open.size === 0) this.open.delete(userId);
  }
}
