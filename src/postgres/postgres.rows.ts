import type { ElicitationRecord } from '../core/elicitation.types.js';
import { toRecord, type RecordSealing, type Row } from '../redis/redis.row-codec.js';

/*
 * A record row of the PostgreSQL store, read into the row of the Redis row codec (redis.row-codec.ts), which both
 * stores share: the same sealed `v` and `j`, the same mutable fields, in columns here.
 */

/** The columns a record is read from, in the order `toRecord` expects them. */
export const COLUMNS = 'v, j, status, expires_at, purge_at, finished_at, data, consumed_at, extended_at, extended_from';

/** A column's value as the codec reads it: text, or null. */
function text(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A record from a row (`COLUMNS` of a `SELECT`, or the object of `row_to_json`). */
export function recordOf(row: object, keys: RecordSealing): ElicitationRecord {
  const x = row as Record<string, unknown>;
  const values: Row = [
    x.v,
    x.j,
    x.status,
    x.expires_at,
    x.purge_at,
    x.finished_at,
    x.data,
    x.consumed_at,
    x.extended_at,
    x.extended_from,
  ].map(text);
  return toRecord(values, keys);
}

/** A record from the JSON text of `row_to_json`. */
export function recordOfJson(json: string, keys: RecordSealing): ElicitationRecord {
  return recordOf(JSON.parse(json) as object, keys);
}
