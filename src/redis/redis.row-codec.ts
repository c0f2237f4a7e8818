import type { ElicitationData, ElicitationRecord } from '../core/elicitation.types.js';
import type { ElicitationStoreKeys } from '../stores/elicitation-store.js';
import { encodeEventRecordPart } from './redis.event-wire.js';

/*
 * A record is one Redis hash. Written once at creation:
 *   v = the record's part of its lifecycle event, as JSON members without the braces (encodeEventRecordPart:
 *       the id, and the user, kind, type and session sealed), so that `finish` can publish the event with
 *       string concatenation alone;
 *   j = the immutable record (user, kind, type, session, message, metadata, createdAt, askKey when set) as
 *       JSON sealed with the store's keys, bound to the id: reads open this one field;
 *   u = the user's name and t = the name of the user's completed index of this type (RedisNames, under the
 *       first key of the ring at creation), for the index keys the scripts build and the pending set's member;
 *   a = the name of the user's asked index of the record's askKey (RedisNames.asked), only when it has one.
 * Changed later: s = status, e = expiresAt, p = purgeAt, f = finishedAt, d = data (JSON: the service's sealed
 * answer), c = consumedAt, x = extendedAt and o = extendedFrom (set together, once, by `extend`).
 *
 * Nothing in a record names its user, type or message in clear. The shape keeps cjson out of the scripts and
 * the finish reply small: it is guarded by the redis.bench rows "redis store finish (complete), 32 callers"
 * (ratio to the raw EVALSHA, target >= 0.7) and "redis store get, 32 callers".
 */

/** The fields a record is read from, in the order `toRecord` expects them (HMGET: a missing field is null). */
export const FIELDS = ['v', 'j', 's', 'e', 'p', 'f', 'd', 'c', 'x', 'o'] as const;

/** `FIELDS` as Lua string literals, for the scripts' HMGET. */
export const LUA_FIELDS = FIELDS.map((f) => `'${f}'`).join(', ');

/** A record as read: the values of `FIELDS`, null where a field is missing. */
export type Row = Array<string | null>;

/** What sealing and opening records needs of the store's keys. */
export type RecordSealing = Pick<ElicitationStoreKeys, 'seal' | 'open'>;

/** The immutable fields `create` writes: `v` (the record's part of its event) and `j` (the sealed record). */
export interface ImmutableFields {
  v: string;
  j: string;
}

/** What the `j` field holds, once opened. */
interface Immutable {
  userId: string;
  kind: ElicitationRecord['kind'];
  type: string;
  sessionId?: string;
  message: string;
  metadata: Record<string, unknown>;
  createdAt: number;
  askKey?: string;
}

/** The additional data `j` is sealed with: it opens as this record only. */
function recordContext(id: string): string {
  return `record:${id}`;
}

/** The `v` and `j` fields of a new record. */
export function encodeImmutableFields(record: ElicitationRecord, keys: RecordSealing): ImmutableFields {
  const v = encodeEventRecordPart(
    record.id,
    { userId: record.userId, kind: record.kind, elicitationType: record.type, sessionId: record.sessionId },
    keys,
  );
  const immutable: Immutable = {
    userId: record.userId,
    kind: record.kind,
    type: record.type,
    sessionId: record.sessionId,
    message: record.message,
    metadata: record.metadata,
    createdAt: record.createdAt,
    askKey: record.askKey,
  };
  return { v, j: keys.seal(JSON.stringify(immutable), recordContext(record.id)) };
}

/** A record from its immutable fields, status and expiresAt; the caller fills in the rest. */
export function fromParts(
  v: string,
  j: string,
  status: ElicitationRecord['status'],
  expiresAt: string,
  keys: RecordSealing,
): ElicitationRecord {
  const { elicitationId: id } = JSON.parse(`{${v}}`) as { elicitationId: string };
  const i = JSON.parse(keys.open(j, recordContext(id))) as Immutable;
  return {
    id,
    kind: i.kind,
    userId: i.userId,
    type: i.type,
    message: i.message,
    metadata: i.metadata,
    status,
    createdAt: i.createdAt,
    expiresAt: Number(expiresAt),
    finishedAt: undefined,
    purgeAt: 0,
    data: undefined,
    consumedAt: undefined,
    sessionId: i.sessionId,
    askKey: i.askKey,
  };
}

/**
 * What the asked index files a record by (redis.asked-upgrade.ts), from its `j` field: its user, its askKey (none
 * for a record created without one) and its creation time. Throws `ElicitationKeyError` for a record sealed under a
 * key the ring lacks.
 */
export function askedPartsOf(id: string, j: string, keys: RecordSealing): Pick<ElicitationRecord, 'userId' | 'askKey' | 'createdAt'> {
  const { userId, askKey, createdAt } = JSON.parse(keys.open(j, recordContext(id))) as Immutable;
  return { userId, askKey, createdAt };
}

/** Submitted data as stored in the `d` field. */
export function decodeData(d: string): ElicitationData {
  return JSON.parse(d) as ElicitationData;
}

/** A record from its row (`FIELDS` order) of a record that exists (`v` and `j` present). */
export function toRecord(row: Row, keys: RecordSealing): ElicitationRecord {
  const record = fromParts(row[0]!, row[1]!, row[2] as ElicitationRecord['status'], row[3]!, keys);
  record.purgeAt = Number(row[4]);
  if (row[5] !== null) record.finishedAt = Number(row[5]);
  if (row[6] !== null) record.data = decodeData(row[6]);
  if (row[7] !== null) record.consumedAt = Number(row[7]);
  if (row[8] !== null) record.extendedAt = Number(row[8]);
  if (row[9] !== null) record.extendedFrom = Number(row[9]);
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
