import type { ElicitationData, ElicitationRecord } from '../core/elicitation.types.js';
import type { ElicitationStoreKeys } from './elicitation-store.js';
import { encodeEventRecordPart } from './event-wire.js';

/*
 * A record as a shared store keeps it, whichever store: two texts written once, at creation (`SealedRecord`), and
 * the fields that change in the record's life (status and times in clear, the service's sealed answer), which each
 * store keeps in its own layout (a Redis hash, redis.row-codec.ts; a PostgreSQL row, postgres.rows.ts).
 *
 * Nothing of the two texts names the record's user, type or message in clear.
 */

/** What sealing and opening records needs of the store's keys. */
export type RecordSealing = Pick<ElicitationStoreKeys, 'seal' | 'open'>;

/** The two texts a record is written with at creation; neither changes afterwards. */
export interface SealedRecord {
  /**
   * The record's part of its lifecycle events, as JSON members without the braces (`encodeEventRecordPart`: the id,
   * and the user, kind, type, session and task sealed), so that a move can add its event by concatenation alone.
   */
  readonly eventPart: string;
  /**
   * The immutable record (user, kind, type, session, task, message, metadata, createdAt, askKey when set) as JSON sealed
   * with the store's keys, bound to the id: a read opens this one text.
   */
  readonly sealed: string;
}

/** What `SealedRecord.sealed` holds, once opened. */
interface Immutable {
  userId: string;
  kind: ElicitationRecord['kind'];
  type: string;
  sessionId?: string;
  message: string;
  metadata: Record<string, unknown>;
  createdAt: number;
  askKey?: string;
  taskId?: string;
}

/** The additional data `sealed` is sealed with: it opens as this record only. */
function recordContext(id: string): string {
  return `record:${id}`;
}

/** The two texts of a new record. */
export function sealRecord(record: ElicitationRecord, keys: RecordSealing): SealedRecord {
  const eventPart = encodeEventRecordPart(
    record.id,
    { userId: record.userId, kind: record.kind, elicitationType: record.type, sessionId: record.sessionId, taskId: record.taskId },
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
    taskId: record.taskId,
  };
  return { eventPart, sealed: keys.seal(JSON.stringify(immutable), recordContext(record.id)) };
}

/**
 * A record from its two texts, its status and its expiresAt; the caller fills in the rest (purgeAt, and what is
 * set: finishedAt, data, consumedAt, extendedAt, extendedFrom). Throws `ElicitationKeyError` for a record sealed
 * under a key the ring lacks.
 */
export function openRecord(
  eventPart: string,
  sealed: string,
  status: ElicitationRecord['status'],
  expiresAt: number,
  keys: RecordSealing,
): ElicitationRecord {
  const { elicitationId: id } = JSON.parse(`{${eventPart}}`) as { elicitationId: string };
  const i = JSON.parse(keys.open(sealed, recordContext(id))) as Immutable;
  return {
    id,
    kind: i.kind,
    userId: i.userId,
    type: i.type,
    message: i.message,
    metadata: i.metadata,
    status,
    createdAt: i.createdAt,
    expiresAt,
    finishedAt: undefined,
    purgeAt: 0,
    data: undefined,
    consumedAt: undefined,
    sessionId: i.sessionId,
    askKey: i.askKey,
    taskId: i.taskId,
  };
}

/**
 * What the asked index files a record by (redis.asked-upgrade.ts), from its `sealed` text: its user, its askKey (none
 * for a record created without one) and its creation time. Throws `ElicitationKeyError` for a record sealed under a
 * key the ring lacks.
 */
export function askedPartsOf(id: string, sealed: string, keys: RecordSealing): Pick<ElicitationRecord, 'userId' | 'askKey' | 'createdAt'> {
  const { userId, askKey, createdAt } = JSON.parse(keys.open(sealed, recordContext(id))) as Immutable;
  return { userId, askKey, createdAt };
}

/** Submitted data as a store keeps it: the JSON of the service's sealed answer. */
export function decodeData(data: string): ElicitationData {
  return JSON.parse(data) as ElicitationData;
}
