import type { ElicitationRecord } from '../core/elicitation.types.js';
import type { ElicitationStoreKeys, FinishChange } from '../stores/elicitation-store.js';
import { decodeData, openRecord, sealRecord, type RecordSealing } from '../stores/sealed-record.codec.js';

/*
 * A record is one Redis hash. Written once at creation, the two texts of the store-neutral sealed record
 * (stores/sealed-record.codec.ts):
 *   v = `SealedRecord.eventPart`, the record's part of its lifecycle event, so that `finish` can publish the event
 *       with string concatenation alone;
 *   j = `SealedRecord.sealed`, the immutable record sealed with the store's keys: reads open this one field;
 *   u = the user's name and t = the name of the user's completed index of this type (RedisNames, under the
 *       first key of the ring at creation), for the index keys the scripts build and the pending set's member;
 *   a = the name of the user's asked index of the record's askKey (RedisNames.asked), only when it has one.
 * Changed later: s = status, e = expiresAt, p = purgeAt, f = finishedAt, d = data (JSON: the service's sealed
 * answer), c = consumedAt, x = extendedAt and o = extendedFrom (set together, once, by `extend`).
 *
 * Nothing in a record names its user, type or message in clear. The one-letter fields keep cjson out of the scripts
 * and the finish reply small: the shape is guarded by the redis.bench rows "redis store finish (complete), 32 callers"
 * (ratio to the raw EVALSHA, target >= 0.7) and "redis store get, 32 callers".
 */

/** The fields a record is read from, in the order `toRecord` expects them (HMGET: a missing field is null). */
export const FIELDS = ['v', 'j', 's', 'e', 'p', 'f', 'd', 'c', 'x', 'o'] as const;

/** `FIELDS` as Lua string literals, for the scripts' HMGET. */
export const LUA_FIELDS = FIELDS.map((f) => `'${f}'`).join(', ');

/** A record as read: the values of `FIELDS`, null where a field is missing. */
export type Row = Array<string | null>;

/** The immutable fields `create` writes: `v` (the record's part of its event) and `j` (the sealed record). */
export interface ImmutableFields {
  v: string;
  j: string;
}

/** The `v` and `j` fields of a new record. */
export function encodeImmutableFields(record: ElicitationRecord, keys: RecordSealing): ImmutableFields {
  const { eventPart, sealed } = sealRecord(record, keys);
  return { v: eventPart, j: sealed };
}

/** A record from its row (`FIELDS` order) of a record that exists (`v` and `j` present). */
export function toRecord(row: Row, keys: RecordSealing): ElicitationRecord {
  const record = openRecord(row[0]!, row[1]!, row[2] as ElicitationRecord['status'], Number(row[3]), keys);
  record.purgeAt = Number(row[4]);
  if (row[5] !== null) record.finishedAt = Number(row[5]);
  if (row[6] !== null) record.data = decodeData(row[6]);
  if (row[7] !== null) record.consumedAt = Number(row[7]);
  if (row[8] !== null) record.extendedAt = Number(row[8]);
  if (row[9] !== null) record.extendedFrom = Number(row[9]);
  return record;
}

/**
 * The record the FINISH script has just moved out of `pending`, from its short reply (`{expiresAt, v, j}`: only what
 * the store does not know already), the change it made and the answer's JSON (`''` for none).
 */
export function finishedRecord(reply: Row, change: FinishChange, data: string, keys: RecordSealing): ElicitationRecord {
  const record = openRecord(reply[1]!, reply[2]!, change.status, Number(reply[0]), keys);
  record.finishedAt = change.now;
  record.purgeAt = change.purgeAt;
  if (data) record.data = decodeData(data);
  return record;
}

/** The records of `rows` not purged at `now`, in creation order (`oldest first`) or the reverse. */
export function liveRecords(
  rows: readonly Row[],
  keys: ElicitationStoreKeys,
  now: number,
  order: 'oldest first' | 'newest first',
): ElicitationRecord[] {
  const sign = order === 'oldest first' ? 1 : -1;
  return rows
    .map((row) => toRecord(row, keys))
    .filter((r) => r.purgeAt > now)
    .sort((a, b) => sign * (a.createdAt - b.createdAt));
}
