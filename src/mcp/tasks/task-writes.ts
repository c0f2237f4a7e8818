import { TaskProtocolError } from './task-protocol.error.js';
import type { ElicitationTaskStore, FinishedTaskLimit, StoredTask, TaskStatus } from '../../stores/task-store.js';
import { decodeBody, encodeBody, type TaskBody } from './task-body.js';

/**
 * A change of a task: given the task as stored and its body (its own copy), the new status, body and lease (`null`:
 * none; absent: unchanged; `quiet`: no change a client sees, so `updatedAt` stays), or `undefined` for no change.
 */
export type TaskChange = (
  task: StoredTask,
  body: TaskBody,
) => { status: TaskStatus; body: TaskBody; lease?: StoredTask['lease'] | null; quiet?: boolean } | undefined;

/** What the writes need: the store, the clock, the bounds on finished tasks, and who hears of a visible change. */
export interface TaskWritesDeps {
  store: ElicitationTaskStore;
  now: () => number;
  finished: FinishedTaskLimit;
  changed?: (taskId: string) => void;
}

/** Writes retried on a compare-and-set conflict before giving up (another writer keeps winning). */
const WRITE_ATTEMPTS = 8;

/** Every write of a task: a compare-and-set on its version, read again and retried when another writer came first. */
export class TaskWrites {
  constructor(private readonly deps: TaskWritesDeps) {}

  /**
   * Applies `change` to the task as stored, retried over a newer version. Resolves the task as written, or `undefined`
   * when nothing was. `userId`, when given, must be the task's (else -32602, as for an unknown task).
   */
  async write(taskId: string, userId: string | undefined, change: TaskChange): Promise<{ task: StoredTask; body: TaskBody } | undefined> {
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const now = this.deps.now();
      const task = await this.deps.store.getTask(taskId, now);
      if (!task || (userId !== undefined && task.userId !== userId)) {
        if (userId !== undefined) throw TaskProtocolError.notFound();
        return undefined;
      }
      const next = change(task, decodeBody(task));
      if (!next) return undefined;
      const { lease: _old, ...rest } = task;
      const lease = next.lease === undefined ? task.lease : next.lease;
      const written: StoredTask = {
        ...rest,
        ...(lease && { lease }),
        status: next.status,
        version: task.version + 1,
        updatedAt: next.quiet ? task.updatedAt : now,
        body: encodeBody(next.body),
      };
      const result = await this.deps.store.putTask(written, now, this.deps.finished);
      if (result === 'written') {
        if (!next.quiet) this.deps.changed?.(taskId);
        return { task: written, body: next.body };
      }
      if (result === 'not-found') return undefined;
    }
    throw new Error(`Task ${taskId} kept changing under ${WRITE_ATTEMPTS} writes`);
  }
}
