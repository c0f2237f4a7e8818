import type { PostgresQueries } from './postgres.bounded.js';
import type { ElicitationStoreKeys } from '../stores/elicitation-store.js';
import type { ElicitationNoticeStore, NewNotice, NoticeOutboxStats, NoticeOutcome, StoredNotice } from '../stores/notice-store.js';

/** A notice row. */
interface NoticeRow {
  id: string;
  record_id: string;
  state: StoredNotice['state'];
  due_at: string;
  forget_at: string;
  attempts: number;
  owner: string | null;
  last_error: string | null;
  body: string;
}

/** The columns a notice is read from. */
const NOTICE_COLUMNS = 'id, record_id, state, due_at, forget_at, attempts, owner, last_error, body';

/**
 * The notifications' outbox of the PostgreSQL store (`ElicitationNoticeStore`): a row per notice in `notices`, its body
 * sealed (bound to its id), every step one statement. A claim locks the due rows it takes (`FOR UPDATE SKIP LOCKED`,
 * in index order), so two claimers at once never take the same notice; a settlement is fenced by the claim
 * (`owner`, still `pending`). A delivery forgets its row and counts it in `notices_delivered` in the same statement.
 * Rows past their `forget_at` are never claimed, settled or counted; the sweep function of the schema deletes them.
 */
export class PostgresNotices implements ElicitationNoticeStore {
  constructor(
    private readonly pool: PostgresQueries,
    private readonly t: (object: string) => string,
    private readonly keys: () => ElicitationStoreKeys,
  ) {}

  /** One statement: an insert of every notice whose id is not held (one held past its `forget_at` is replaced). */
  async addNotices(notices: readonly NewNotice[], now: number): Promise<number> {
    const keys = this.keys();
    // Of two notices with one id in a call, the first (an upsert cannot touch one row twice).
    const byId = new Map<string, NewNotice>();
    for (const n of notices) if (!byId.has(n.id)) byId.set(n.id, n);
    const fresh = [...byId.values()];
    if (fresh.length === 0) return 0;
    const { rowCount } = await this.pool.query(
      `INSERT INTO ${this.t('notices')} AS n (id, record_id, state, due_at, forget_at, attempts, body)
       SELECT id, record_id, 'pending', due_at, forget_at, 0, body
       FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::text[]) AS u(id, record_id, due_at, forget_at, body)
       ON CONFLICT (id) DO UPDATE SET record_id = EXCLUDED.record_id, state = 'pending', due_at = EXCLUDED.due_at,
         forget_at = EXCLUDED.forget_at, attempts = 0, owner = NULL, last_error = NULL, body = EXCLUDED.body
       WHERE n.forget_at <= $6`,
      [
        fresh.map((n) => n.id),
        fresh.map((n) => n.elicitationId),
        fresh.map((n) => n.dueAt),
        fresh.map((n) => n.forgetAt),
        fresh.map((n) => keys.seal(n.body, bodyContext(n.id))),
        now,
      ],
    );
    return rowCount ?? 0;
  }

  /** One statement: the due rows locked in `due_at` order (skipping rows another claimer holds), then leased. */
  async claimNotices(owner: string, now: number, limit: number, leaseMs: number): Promise<StoredNotice[]> {
    if (!(limit >= 1)) return [];
    const keys = this.keys();
    const { rows } = await this.pool.query<NoticeRow>(
      `WITH due AS (
         SELECT id, due_at FROM ${this.t('notices')} WHERE state = 'pending' AND due_at <= $2 AND forget_at > $2
         ORDER BY due_at LIMIT $3 FOR UPDATE SKIP LOCKED
       ), claimed AS (
         UPDATE ${this.t('notices')} n SET owner = $1, attempts = n.attempts + 1, due_at = $2::bigint + $4::bigint
         FROM due WHERE n.id = due.id RETURNING n.*, due.due_at AS was_due
       )
       SELECT ${NOTICE_COLUMNS} FROM claimed ORDER BY was_due, id`,
      [owner, now, Math.floor(limit), leaseMs],
    );
    return rows.map((row) => noticeOf(row, keys));
  }

  /** One statement, fenced: the row, while `owner` holds its claim, still `pending` and not past its `forget_at`. */
  async settleNotice(id: string, owner: string, outcome: NoticeOutcome, now: number): Promise<boolean> {
    const notices = this.t('notices');
    const fence = `id = $1 AND owner = $2 AND state = 'pending' AND forget_at > $3`;
    const held = [id, owner, now];
    switch (outcome.kind) {
      case 'delivered': {
        const { rows } = await this.pool.query<{ settled: boolean }>(
          `WITH gone AS (DELETE FROM ${notices} WHERE ${fence} RETURNING id),
           counted AS (UPDATE ${this.t('notices_delivered')} SET count = count + 1 WHERE one AND EXISTS (SELECT 1 FROM gone))
           SELECT EXISTS (SELECT 1 FROM gone) AS settled`,
          held,
        );
        return rows[0]?.settled === true;
      }
      case 'dropped':
        return settled(await this.pool.query(`DELETE FROM ${notices} WHERE ${fence}`, held));
      case 'retry': {
        const body = outcome.body === undefined ? null : this.keys().seal(outcome.body, bodyContext(id));
        return settled(
          await this.pool.query(
            `UPDATE ${notices} SET due_at = $4, body = COALESCE($5, body), last_error = COALESCE($6, last_error) WHERE ${fence}`,
            [...held, outcome.dueAt, body, outcome.error ?? null],
          ),
        );
      }
      case 'failed':
        return settled(
          await this.pool.query(`UPDATE ${notices} SET state = 'failed', last_error = $4 WHERE ${fence}`, [...held, outcome.error]),
        );
    }
  }

  /** One statement: the counts of the rows not past their `forget_at`, and the delivered count. */
  async noticeStats(now: number): Promise<NoticeOutboxStats> {
    const { rows } = await this.pool.query<{ pending: string; failed: string; oldest: string | null; delivered: string | null }>(
      `SELECT count(*) FILTER (WHERE state = 'pending') AS pending, count(*) FILTER (WHERE state = 'failed') AS failed,
         min(due_at) FILTER (WHERE state = 'pending') AS oldest,
         (SELECT count FROM ${this.t('notices_delivered')} WHERE one) AS delivered
       FROM ${this.t('notices')} WHERE forget_at > $1`,
      [now],
    );
    const row = rows[0];
    return {
      pending: Number(row.pending),
      failed: Number(row.failed),
      delivered: Number(row.delivered ?? 0),
      ...(row.oldest !== null && { oldestDueAt: Number(row.oldest) }),
    };
  }
}

/** What a notice's body is sealed to: its id (a body moved to another row does not open). */
function bodyContext(id: string): string {
  return `notice:${id}`;
}

/** Whether a fenced statement changed its row. */
function settled(result: { rowCount: number | null }): boolean {
  return (result.rowCount ?? 0) > 0;
}

/** A notice from its row, its body opened. */
function noticeOf(row: NoticeRow, keys: ElicitationStoreKeys): StoredNotice {
  return {
    id: row.id,
    elicitationId: row.record_id,
    dueAt: Number(row.due_at),
    forgetAt: Number(row.forget_at),
    body: keys.open(row.body, bodyContext(row.id)),
    state: row.state,
    attempts: row.attempts,
    ...(row.owner !== null && { owner: row.owner }),
    ...(row.last_error !== null && { lastError: row.last_error }),
  };
}
