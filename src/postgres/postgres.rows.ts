import type { ElicitationRecord } from '../core/elicitation.types.js';
import { decodeData, openRecord, type RecordSealing } from '../stores/sealed-record.codec.js';

/*
 * A record row of the PostgreSQL store, read by column name: the two texts of the store-neutral sealed record
 * (stores/sealed-record.codec.ts) in `event_part` and `sealed`, and the fields that change in the record's life in
 * columns of their own.
 */

/** The columns a record is read from. */
export const COLUMNS = 'event_part, sealed, status, expires_at, purge_at, finished_at, data, consumed_at, extended_at, extended_from';

/** A bigint column: text from a `SELECT` (pg's default for int8), a number from `row_to_json`. */
type Bigint = string | number;

/** A record row: `COLUMNS` of a `SELECT`, or the object of `row_to_json`. */
export interface RecordRow {
  event_part: string;
  sealed: string;
  status: ElicitationRecord['status'];
  expires_at: Bigint;
  purge_at: Bigint;
  finished_at: Bigint | null;
  data: string | null;
  consumed_at: Bigint | null;
  extended_at: Bigint | null;
  extended_from: Bigint | null;
}

/** A record from its row. */
export function recordOf(row: RecordRow, keys: RecordSealing): ElicitationRecord {
  const record = openRecord(row.event_part, row.sealed, row.status, Number(row.expires_at), keys);
  record.purgeAt = Number(row.purge_at);
  if (row.finished_at !== null) record.finishedAt = Number(row.finished_at);
  if (row.data !== null) record.data = decodeData(row.data);
  if (row.consumed_at !== null) record.consumedAt = Number(row.consumed_at);
  if (row.extended_at !== null) record.extendedAt = Number(row.extended_at);
  if (row.extended_from !== null) record.extendedFrom = Number(row.extended_from);
  return record;
}

/** A record from the JSON text of `row_to_json`. */
export function recordOfJson(json: string, keys: RecordSealing): ElicitationRecord {
  return recordOf(JSON.parse(json) as RecordRow, keys);
}
