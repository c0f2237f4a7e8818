import type { PostgresQueries } from './postgres.bounded.js';
import type { ElicitationStoreKeys } from '../stores/elicitation-store.js';
import { openCursorOf, readOpenCursor, type OpenPage, type OpenPageRequest } from '../stores/notice-store.js';
import { COLUMNS, recordOf, type RecordRow } from './postgres.rows.js';

/** Records on a page, at most (`OpenPageRequest.limit`: 1 to 100; a larger one is read a page of 100 at a time). */
const MAX_PAGE = 100;

/** A page's order: `listOpen`'s (newest first, then ids descending in byte order, as `isAfterCursor` compares them). */
const ORDER = 'ORDER BY created_at DESC, id COLLATE "C" DESC';

/**
 * The statement of a page of `listOpen`, on the index `records_open` (each user's open records in the page's order):
 * $1 the user's name (`names: 'one'`) or names (`'several'`, one per key of a ring being rotated), $2 now, $3 the rows
 * to read (the page and one more, which says whether a next page exists), and with `cursor` $4 and $5, the
 * `createdAt` and id of the page before's last record. With several names, each walks the index from the cursor on
 * and stops after $3 rows (a lateral join), and the page is the newest $3 of theirs.
 */
export function openPageSql(t: (object: string) => string, names: 'one' | 'several', cursor: boolean): string {
  const from = `SELECT ${COLUMNS}, created_at, id FROM ${t('records')}`;
  const open = `status = 'pending' AND expires_at > $2${cursor ? ' AND (created_at, id COLLATE "C") < ($4::bigint, $5::text)' : ''}`;
  if (names === 'one') return `${from} WHERE user_name = $1 AND ${open} ${ORDER} LIMIT $3`;
  return `SELECT r.* FROM unnest($1::text[]) AS u(name) CROSS JOIN LATERAL (
    ${from} WHERE user_name = u.name AND ${open} ${ORDER} LIMIT $3) AS r ${ORDER} LIMIT $3`;
}

/**
 * One page of a user's open records (`ElicitationInboxStore.listOpen`), in one statement (`openPageSql`), decoded as
 * `listByUser` decodes them. The cursor is `openCursorOf` the page's last record; one `readOpenCursor` does not read
 * starts the list over.
 */
export async function listOpenPage(
  pool: PostgresQueries,
  t: (object: string) => string,
  keys: ElicitationStoreKeys,
  userId: string,
  now: number,
  page: OpenPageRequest,
): Promise<OpenPage> {
  const limit = Math.min(MAX_PAGE, Math.max(1, Math.floor(page.limit) || 1));
  const after = readOpenCursor(page.after);
  const names = keys.names('user', userId);
  const values: unknown[] = [names.length === 1 ? names[0] : names, now, limit + 1];
  if (after) values.push(after.createdAt, after.id);
  const { rows } = await pool.query<RecordRow>(openPageSql(t, names.length === 1 ? 'one' : 'several', after !== undefined), values);
  const records = rows.slice(0, limit).map((row) => recordOf(row, keys));
  return { records, ...(rows.length > limit && { next: openCursorOf(records[records.length - 1]) }) };
}
