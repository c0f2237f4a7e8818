import { DeadlineWheel } from './deadline-wheel.js';
import {
  isOpenTaskStatus,
  type CreateTaskResult,
  type ElicitationTaskStore,
  type PutTaskResult,
  type StoredTask,
  type TaskLimit,
} from './task-store.js';

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
    this.tasks.set(task.id, { ...task });
    if (isOpenTaskStatus(task.status)) open.add(task.id);
    else this.dropEmpty(task.userId, open);
    this.deadlines.add(task.expiresAt, task.id);
    return Promise.resolve('created');
  }

  getTask(id: string, now: number): Promise<StoredTask | undefined> {
    const task = this.tasks.get(id);
    return Promise.resolve(task && now < task.expiresAt ? { ...task } : undefined);
  }

  putTask(task: StoredTask, now: number): Promise<PutTaskResult> {
    const stored = this.tasks.get(task.id);
    if (!stored || now >= stored.expiresAt) return Promise.resolve('not-found');
    if (stored.version !== task.version - 1) return Promise.resolve('conflict');
    const kept: StoredTask = { ...task, userId: stored.userId, createdAt: stored.createdAt };
    this.tasks.set(task.id, kept);
    if (kept.expiresAt !== stored.expiresAt) this.deadlines.add(kept.expiresAt, kept.id);
    if (!isOpenTaskStatus(kept.status)) {
      const open = this.open.get(kept.userId);
      if (open?.delete(kept.id)) this.dropEmpty(kept.userId, open);
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
