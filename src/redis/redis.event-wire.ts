import type { ElicitationEvent } from '../elicitation.types.js';

/**
 * The one definition of a lifecycle event on the Redis event channel: `{"origin":…,"event":{"type":…,…}}`,
 * where `origin` names the sending channel (so it can ignore its own messages) and `event` is the
 * `ElicitationEvent`, its members always in this order:
 *
 *   type, elicitationId, userId, kind, elicitationType[, sessionId], at
 *
 * A message is built from three pieces so that the FINISH script (redis.scripts.ts) can publish one by
 * concatenation alone, without cjson: `eventMessageStart` (head and type), the record's part (stored in
 * the record's `v` field at creation, from `encodeEventRecordPart`) and `eventMessageEnd` (the time).
 * `encodeEventMessage` joins the same pieces in TypeScript, so both publishers send the same bytes.
 */

/** The members of an event that come from its record: what the record's `v` field holds. */
export type EventRecordPart = Pick<ElicitationEvent, 'elicitationId' | 'userId' | 'kind' | 'elicitationType' | 'sessionId'>;

/** A decoded message of the event channel. */
export interface EventWireMessage {
  /** The sending channel; absent only in a message none of our channels sent. */
  origin?: string;
  event: ElicitationEvent;
}

/** What every message of the channel `origin` starts with, up to the event's type (exclusive). */
export function eventMessageHead(origin: string): string {
  return `{"origin":${JSON.stringify(origin)},"event":{"type":`;
}

/** The piece before the record part: the channel's head, the event's type and a comma. */
export function eventMessageStart(head: string, type: ElicitationEvent['type']): string {
  return `${head}${JSON.stringify(type)},`;
}

/** The piece after the record part: the event's time and the closing braces. */
export function eventMessageEnd(at: number): string {
  return `,"at":${JSON.stringify(at)}}}`;
}

/**
 * The record part as JSON members without the braces (`"elicitationId":…,"userId":…,"kind":…,
 * "elicitationType":…[,"sessionId":…]`): stored once at creation, then spliced between the other pieces.
 */
export function encodeEventRecordPart(part: EventRecordPart): string {
  return JSON.stringify({
    elicitationId: part.elicitationId,
    userId: part.userId,
    kind: part.kind,
    elicitationType: part.elicitationType,
    sessionId: part.sessionId,
  }).slice(1, -1);
}

/** The message that the channel with head `head` (see `eventMessageHead`) sends for `event`. */
export function encodeEventMessage(head: string, event: ElicitationEvent): string {
  return eventMessageStart(head, event.type) + encodeEventRecordPart(event) + eventMessageEnd(event.at);
}

/** A message read from the channel, or `undefined` when it is not one (not JSON, or no event in it). */
export function decodeEventMessage(text: string): EventWireMessage | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || !('event' in parsed) || !isEvent(parsed.event)) return undefined;
  return { origin: 'origin' in parsed && typeof parsed.origin === 'string' ? parsed.origin : undefined, event: parsed.event };
}

/** Whether `value` has the members every `ElicitationEvent` has, of the right types. */
function isEvent(value: unknown): value is ElicitationEvent {
  return (
    typeof value === 'object' &&
    value !== null &&
    'type' in value &&
    typeof value.type === 'string' &&
    'elicitationId' in value &&
    typeof value.elicitationId === 'string' &&
    'userId' in value &&
    typeof value.userId === 'string' &&
    'kind' in value &&
    typeof value.kind === 'string' &&
    'elicitationType' in value &&
    typeof value.elicitationType === 'string' &&
    'at' in value &&
    typeof value.at === 'number'
  );
}
