import type { ElicitationStoreKeys } from './elicitation-store.js';
import type { StoredTask } from './task-store.js';

/*
 * What a shared store seals of a task, whichever store: its user and the binding's body together, as the JSON object
 * `{"userId":…,"body":…}`, sealed with the store's keys and bound to the task's id (a body moved to another task does
 * not open). The rest of a task (status, times, version, lease) a store keeps in clear, in its own layout.
 */

/** What sealing and opening tasks needs of the store's keys. */
export type TaskSealing = Pick<ElicitationStoreKeys, 'seal' | 'open'>;

/** The sealed part of a task, once opened. */
export type SealedTaskParts = Pick<StoredTask, 'userId' | 'body'>;

/** Reads a shape a store sealed tasks in before this one, or `undefined` for a value that is not of it. */
export type EarlierTaskShape = (opened: unknown) => SealedTaskParts | undefined;

/** The additional data a task's sealed part is bound to: its id. */
function taskContext(id: string): string {
  return `task:${id}`;
}

/** The sealed part of `task`: its user and body. */
export function sealTask(task: Pick<StoredTask, 'id' | 'userId' | 'body'>, keys: TaskSealing): string {
  const parts: SealedTaskParts = { userId: task.userId, body: task.body };
  return keys.seal(JSON.stringify(parts), taskContext(task.id));
}

/**
 * The user and body of task `id` from its sealed part. `earlier` reads a shape the store sealed tasks in before (the
 * Redis store's, while such tasks may live); anything else throws, as a part sealed under a key the ring lacks does
 * (`ElicitationKeyError`).
 */
export function openTask(id: string, sealed: string, keys: TaskSealing, earlier?: EarlierTaskShape): SealedTaskParts {
  const opened: unknown = JSON.parse(keys.open(sealed, taskContext(id)));
  const parts = isTaskParts(opened) ? { userId: opened.userId, body: opened.body } : earlier?.(opened);
  if (!parts) throw new Error(`The sealed part of task ${id} holds no user and body.`);
  return parts;
}

function isTaskParts(value: unknown): value is SealedTaskParts {
  return (
    typeof value === 'object' &&
    value !== null &&
    'userId' in value &&
    typeof value.userId === 'string' &&
    'body' in value &&
    typeof value.body === 'string'
  );
}
