import type { ElicitationEvent } from '../core/elicitation.types.js';
import type { ElicitationStoreKeys } from './elicitation-store.js';

/**
 * The one definition of a lifecycle event as it travels between instances on a shared store, whichever store carries
 * it: one entry of the Redis event stream (its field `message`, redis.lua-parts.ts) or one row of the PostgreSQL
 * events table (its column `message`, postgres.schema.ts). The message:
 *
 *   {"origin":…,"event":{"type":…,"elicitationId":…,"sealed":…,"at":…,"expiresAt":…},"trace":…}
 *
 * `origin` names the sending channel (so it can skip its own messages). In clear are only the transition
 * (`type`), the record's random id, the time and, for `extended` only, the new expiry (`expiresAt`); `sealed` holds the rest of the `ElicitationEvent`, the
 * record's part (`EventRecordPart`: user id, kind, elicitation type, session id, task id), as JSON sealed with the
 * store's keys (AES-256-GCM bound to the id), so that a reader without `encryptionKey` learns no user.
 * A receiving instance opens it and hands its listeners the whole `ElicitationEvent`, as the sender had it.
 * `trace`, optional, is the sender's W3C `traceparent` (opaque here, at most `MAX_TRACE_LENGTH` characters),
 * delivered beside the event, never inside it.
 *
 * A message is built from three pieces so that what creates and finishes records (the Redis scripts, the PostgreSQL
 * functions) can add one by concatenation alone, without a JSON library: `eventMessageStart` (head and type), the
 * record's part (stored with the record at creation, from `encodeEventRecordPart`: sealed-record.codec.ts) and
 * `eventMessageEnd` (the time and the trace). `encodeEventMessage` joins the same pieces in TypeScript (sealing the
 * record's part anew, so its bytes differ from a script's; the event they open to does not).
 * test/stores/event-wire.spec.ts holds the shape.
 */

/** The longest `trace` sent or accepted (a W3C `traceparent` is 55 characters). */
export const MAX_TRACE_LENGTH = 256;

/** The members of an event that come from its record, sealed on the wire. */
export type EventRecordPart = Pick<ElicitationEvent, 'userId' | 'kind' | 'elicitationType' | 'sessionId' | 'taskId'>;

/** What sealing and opening the record's part needs of the store's keys. */
export type EventSealing = Pick<ElicitationStoreKeys, 'seal' | 'open'>;

/** A decoded message. */
export interface EventWireMessage {
  /** The sending channel; absent only in a message none of our channels sent. */
  origin?: string;
  event: ElicitationEvent;
  /** The sender's trace context (W3C `traceparent`), when it sent one. */
  trace?: string;
}

/**
 * The event's identity on every instance: a record makes each transition at most once (`created` once, then
 * one final status, by an atomic compare-and-set; `extended` at most once too), so its id and the transition
 * name the event without a counter. Readers drop a second message with the same identity (a resent append, a publish the script had
 * already made).
 */
export function eventId(event: Pick<ElicitationEvent, 'type' | 'elicitationId'>): string {
  return `${event.type}:${event.elicitationId}`;
}

/** What every message of the channel `origin` starts with, up to the event's type (exclusive). */
export function eventMessageHead(origin: string): string {
  return `${eventMessageOrigin(origin)},"event":{"type":`;
}

/** The start of every message of the channel `origin` (a UUID), naming it in clear. */
export function eventMessageOrigin(origin: string): string {
  return `{"origin":${JSON.stringify(origin)}`;
}

/** The length of `eventMessageOrigin` for a channel (its origin is a UUID): what a PostgreSQL `NOTIFY` carries of a message. */
export const EVENT_ORIGIN_CHARS = eventMessageOrigin('00000000-0000-0000-0000-000000000000').length;

/** The piece before the record part: the channel's head, the event's type and a comma. */
export function eventMessageStart(head: string, type: ElicitationEvent['type']): string {
  return `${head}${JSON.stringify(type)},`;
}

/**
 * The piece after the record part: the event's time, the new expiry of an `extended` event, the trace when there is
 * one (see `sendableTrace`), and the closing braces.
 */
export function eventMessageEnd(at: number, trace?: string, expiresAt?: number): string {
  const expiry = expiresAt === undefined ? '' : `,"expiresAt":${JSON.stringify(expiresAt)}`;
  return `,"at":${JSON.stringify(at)}${expiry}}${trace === undefined ? '' : `,"trace":${JSON.stringify(trace)}`}}`;
}

/** `trace` when it may travel (a non-empty string of at most MAX_TRACE_LENGTH characters), else `undefined`. */
export function sendableTrace(trace: unknown): string | undefined {
  return typeof trace === 'string' && trace.length > 0 && trace.length <= MAX_TRACE_LENGTH ? trace : undefined;
}

/** The additional data the record's part is sealed with: it opens for this elicitation's events only. */
function eventContext(elicitationId: string): string {
  return `event:${elicitationId}`;
}

/**
 * The record's part as JSON members without the braces: `"elicitationId":…,"sealed":…`, the sealed JSON
 * holding `userId`, `kind`, `elicitationType`, and `sessionId` and `taskId` when set. Stored once at creation, then spliced
 * between the other pieces.
 */
export function encodeEventRecordPart(elicitationId: string, part: EventRecordPart, keys: EventSealing): string {
  const { userId, kind, elicitationType, sessionId, taskId } = part;
  const json = JSON.stringify({ userId, kind, elicitationType, sessionId, taskId });
  return `"elicitationId":${JSON.stringify(elicitationId)},"sealed":${JSON.stringify(keys.seal(json, eventContext(elicitationId)))}`;
}

/** The message that the channel with head `head` (see `eventMessageHead`) sends for `event`, with `trace` when given. */
export function encodeEventMessage(head: string, event: ElicitationEvent, keys: EventSealing, trace?: string): string {
  const expiresAt = event.type === 'extended' ? event.expiresAt : undefined;
  return (
    eventMessageStart(head, event.type) +
    encodeEventRecordPart(event.elicitationId, event, keys) +
    eventMessageEnd(event.at, trace, expiresAt)
  );
}

/**
 * A message as read, its record's part opened, or `undefined` when it is not one (not JSON,
 * not an event, or sealed under keys this instance does not have). A `trace` that is not a string of at most
 * MAX_TRACE_LENGTH characters is left out; the event still arrives.
 */
export function decodeEventMessage(text: string, keys: EventSealing): EventWireMessage | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || !('event' in parsed) || !isWireEvent(parsed.event)) return undefined;
  const { type, elicitationId, sealed, at } = parsed.event;
  let expiresAt: number | undefined;
  if (type === 'extended') {
    // An `extended` event without its new expiry says nothing a listener could use.
    if (typeof parsed.event.expiresAt !== 'number') return undefined;
    expiresAt = parsed.event.expiresAt;
  }
  let part: unknown;
  try {
    part = JSON.parse(keys.open(sealed, eventContext(elicitationId)));
  } catch {
    return undefined;
  }
  if (!isRecordPart(part)) return undefined;
  const { userId, kind, elicitationType, sessionId, taskId } = part;
  const event: ElicitationEvent = {
    type,
    elicitationId,
    userId,
    kind,
    elicitationType,
    ...(typeof sessionId === 'string' && { sessionId }),
    ...(typeof taskId === 'string' && { taskId }),
    at,
    ...(expiresAt !== undefined && { expiresAt }),
  };
  const trace = sendableTrace('trace' in parsed ? parsed.trace : undefined);
  return {
    origin: 'origin' in parsed && typeof parsed.origin === 'string' ? parsed.origin : undefined,
    event,
    ...(trace !== undefined && { trace }),
  };
}

/** An event as it travels. */
interface WireEvent {
  type: ElicitationEvent['type'];
  elicitationId: string;
  sealed: string;
  at: number;
  /** `extended` only. */
  expiresAt?: unknown;
}

/** Whether `value` has the members of a `WireEvent`, of the right types. */
function isWireEvent(value: unknown): value is WireEvent {
  return (
    typeof value === 'object' &&
    value !== null &&
    'type' in value &&
    typeof value.type === 'string' &&
    'elicitationId' in value &&
    typeof value.elicitationId === 'string' &&
    'sealed' in value &&
    typeof value.sealed === 'string' &&
    'at' in value &&
    typeof value.at === 'number'
  );
}

/** Whether an opened record part has the members every event has, of the right types. */
function isRecordPart(value: unknown): value is EventRecordPart {
  return (
    typeof value === 'object' &&
    value !== null &&
    'userId' in value &&
    typeof value.userId === 'string' &&
    'kind' in value &&
    typeof value.kind === 'string' &&
    'elicitationType' in value &&
    typeof value.elicitationType === 'string'
  );
}
