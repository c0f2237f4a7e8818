import type { ElicitationData, ElicitationRecord } from '../elicitation.types.js';
import { encodeEventRecordPart, type EventRecordPart } from './redis.event-wire.js';

/*
 * A record is one Redis hash. Written once at creation:
 *   v = the record's part of its lifecycle event, as JSON members without the braces (encodeEventRecordPart),
 *       so that `finish` can publish the event with string concatenation alone;
 *   j = the rest of the immutable part, likewise ("message":…,"metadata":…,"createdAt":…, and "askKey":… when set);
 *   u = userId and t = type as plain strings, for the index keys the scripts build (no JSON decoding in Lua).
 * Changed later: s = status, e = expiresAt, p = purgeAt, f = finishedAt, d = data (JSON), c = consumedAt.
 *
 * This shape keeps cjson out of the scripts and the finish reply small: it is guarded by the redis.bench rows
 * "redis store finish (complete), 32 callers" (ratio to the raw EVALSHA, target >= 0.7) and "redis store get,
 * 32 callers".
 */

/** The fields a record is read from, in the order `toRecord` expects them (HMGET: a missing field is null). */
export const FIELDS = ['v', 'j', 's', 'e', 'p', 'f', 'd', 'c'] as const;

/** `FIELDS` as Lua string literals, for the scripts' HMGET. */
export const LUA_FIELDS = FIELDS.map((f) => `'${f}'`).join(', ');

/** A record as read: the values of `FIELDS`, null where a field is missing. */
export type Row = Array<string | null>;

/** The immutable fields `create` writes: `v` (the record's part of its event) and `j` (the rest). */
export interface ImmutableFields {
  v: string;
  j: string;
}

/** What the `v` and `j` fields hold together. */
interface Immutable extends EventRecordPart {
  askKey?: string;
  message: string;
  metadata: Record<string, unknown>;
  createdAt: number;
}

/** The `v` and `j` fields of a new record. */
export function encodeImmutableFields(record: ElicitationRecord): ImmutableFields {
  const v = encodeEventRecordPart({
    elicitationId: record.id,
    userId: record.userId,
    kind: record.kind,
    elicitationType: record.type,
    sessionId: record.sessionId,
  });
  const j = JSON.stringify({ message: record.message, metadata: record.metadata, createdAt: record.createdAt, askKey: record.askKey });
  return { v, j: j.slice(1, -1) };
}

/** A record from its immutable fields, status and expiresAt; the caller fills in the rest. */
export function fromParts(v: string, j: string, status: ElicitationRecord['status'], expiresAt: string): ElicitationRecord {
  const i = JSON.parse(`{${v},${j}}`) as Immutable;
  return {
    id: i.elicitationId,
    kind: i.kind,
    userId: i.userId,
    type: i.elicitationType,
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

/** Submitted data as stored in the `d` field. */
export function decodeData(d: string): ElicitationData {
  return JSON.parse(d) as ElicitationData;
}

/** A record from its row (`FIELDS` order) of a record that exists (`v` and `j` present). */
export function toRecord(row: Row): ElicitationRecord {
  const record = fromParts(row[0]!, row[1]!, row[2] as ElicitationRecord['status'], row[3]!);
  record.purgeAt = Number(row[4]);
  if (row[5] !== null) record.finishedAt = Number(row[5]);
  if (row[6] !== null) record.data = decodeData(row[6]);
  if (row[7] !== null) record.consumedAt = Number(row[7]);
  return record;
}
