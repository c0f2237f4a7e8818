import type { PostgresQueries } from './postgres.bounded.js';
import type { ElicitationStoreKeys } from '../stores/elicitation-store.js';
import { openTask, sealTask } from '../stores/sealed-task.codec.js';
import {
  OPEN_TASK_STATUSES,
  type CreateTaskResult,
  type FinishedTaskLimit,
  type PutTaskResult,
  type StoredTask,
  type TaskLimit,
  type TaskStatus,
} from '../stores/task-store.js';

/** A task row. */
interface TaskRow {
  id: string;
  status: TaskStatus;
  created_at: string;
  updated_at: string;
  expires_at: string;
  version: number;
  lease_owner: string | null;
  lease_until: string | null;
  /** `lease_until` less PostgreSQL's clock now, as read. */
  lease_remaining: string | null;
  sealed: string;
}

/** The statuses of an open task as an SQL list (`OPEN_TASK_STATUSES`, the one definition). */
const OPEN = OPEN_TASK_STATUSES.map((status) => `'${status}'`).join(', ');

/** PostgreSQL's clock now, epoch milliseconds: the one clock of a lease (`TaskLease`). */
const STORE_NOW = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

/**
 * The task half of the PostgreSQL store: one row per task, its user and body sealed together (`sealed`:
 * stores/sealed-task.codec.ts), its user's name (a
 * keyed hash) for the cap on open tasks. `create` is a function of the schema (the cap and the insert under one
 * lock per user); `put` one compare-and-set statement on `version`.
 */
export class PostgresTasks {
  constructor(
    private readonly pool: PostgresQueries,
    private readonly t: (object: string) => string,
    private readonly keys: () => ElicitationStoreKeys,
  ) {}

  async create(task: StoredTask, limit: TaskLimit): Promise<CreateTaskResult> {
    const keys = this.keys();
    const users = keys.names('user', task.userId);
    const { rows } = await this.pool.query<{ result: CreateTaskResult }>(
      `SELECT ${this.t('create_task')}($1, $2, $3, $4, $5, $6, $7, $8, $9,
         CASE WHEN $13::bigint IS NULL THEN $10::bigint ELSE ${STORE_NOW} + $13::bigint END, $11, $12) AS result`,
      [
        task.id,
        users[0],
        users,
        task.status,
        task.createdAt,
        task.updatedAt,
        task.expiresAt,
        task.version,
        task.lease?.owner ?? null,
        task.lease?.until ?? null,
        sealTask(task, keys),
        limit.maxOpenPerUser,
        task.lease?.grantMs ?? null,
      ],
    );
    return rows[0].result;
  }

  async get(id: string, now: number): Promise<StoredTask | undefined> {
    return (await this.getMany([id], now))[0];
  }

  /** Several tasks in one statement, in the order of `ids`. */
  async getMany(ids: readonly string[], now: number): Promise<Array<StoredTask | undefined>> {
    const { rows } = await this.pool.query<TaskRow>(
      `SELECT *, lease_until - ${STORE_NOW} AS lease_remaining FROM ${this.t('tasks')} WHERE id = ANY($1) AND expires_at > $2`,
      [ids, now],
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => {
      const row = byId.get(id);
      return row && this.taskOf(row);
    });
  }

  /** A task from its row. */
  private taskOf(row: TaskRow): StoredTask {
    const { userId, body } = openTask(row.id, row.sealed, this.keys());
    return {
      id: row.id,
      userId,
      status: row.status,
      createdAt: Number(row.created_at),
      updatedAt: Number(row.updated_at),
      expiresAt: Number(row.expires_at),
      version: row.version,
      ...(row.lease_owner !== null && {
        lease: { owner: row.lease_owner, until: Number(row.lease_until), remainingMs: Number(row.lease_remaining) },
      }),
      body,
    };
  }

  /**
   * The compare-and-set: written when the stored version is one less and the task has not expired. A task it finishes
   * (from an open status) is followed by the forgetting of the oldest finished past `finished`'s bounds.
   */
  async put(task: StoredTask, now: number, finished?: FinishedTaskLimit): Promise<PutTaskResult> {
    const { rows } = await this.pool.query<{ result: PutTaskResult; finishing: boolean; user_name: string }>(
      `WITH current AS (SELECT expires_at, status, user_name FROM ${this.t('tasks')} WHERE id = $1),
       written AS (
         UPDATE ${this.t('tasks')} SET status = $3, updated_at = $4, expires_at = $5, version = $2, lease_owner = $6,
           lease_until = CASE WHEN $10::bigint IS NULL THEN $7::bigint ELSE ${STORE_NOW} + $10::bigint END, sealed = $8
         WHERE id = $1 AND version = $2 - 1 AND expires_at > $9 RETURNING 1
       )
       SELECT CASE WHEN EXISTS (SELECT 1 FROM written) THEN 'written'
         WHEN NOT EXISTS (SELECT 1 FROM current WHERE expires_at > $9) THEN 'not-found' ELSE 'conflict' END AS result,
         COALESCE((SELECT status IN (${OPEN}) FROM current), false) AND $3 NOT IN (${OPEN}) AS finishing,
         (SELECT user_name FROM current) AS user_name`,
      [
        task.id,
        task.version,
        task.status,
        task.updatedAt,
        task.expiresAt,
        task.lease?.owner ?? null,
        task.lease?.until ?? null,
        sealTask(task, this.keys()),
        now,
        task.lease?.grantMs ?? null,
      ],
    );
    const { result, finishing, user_name: user } = rows[0];
    if (result === 'written' && finishing && finished) await this.forgetOldestFinished(task.id, user, now, finished);
    return result;
  }

  /**
   * Forgets the oldest finished tasks past the bounds, the one just finished (`id`) kept: its user's past
   * `maxFinishedPerUser`, then every user's past `maxFinished` (by `updated_at`, when each finished; the partial indexes
   * `tasks_finished_user` and `tasks_finished`). Expired rows are not counted (the sweep forgets them).
   */
  private async forgetOldestFinished(id: string, user: string, now: number, finished: FinishedTaskLimit): Promise<void> {
    const tasks = this.t('tasks');
    await this.pool.query(
      `DELETE FROM ${tasks} WHERE id IN (
         (SELECT id FROM ${tasks} WHERE user_name = $2 AND status NOT IN (${OPEN}) AND id <> $1 AND expires_at > $3
           ORDER BY updated_at DESC, id DESC OFFSET $4)
         UNION
         (SELECT id FROM ${tasks} WHERE status NOT IN (${OPEN}) AND id <> $1 AND expires_at > $3
           ORDER BY updated_at DESC, id DESC OFFSET $5))`,
      [id, user, now, finished.maxFinishedPerUser - 1, finished.maxFinished - 1],
    );
  }
}
