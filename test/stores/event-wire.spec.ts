/**
 * The event wire (stores/event-wire.ts), the one shape of a lifecycle event between instances on every shared store:
 * its members and their order, what is in clear and what is sealed, the pieces the stores' scripts and functions
 * join by concatenation, and what a reader refuses. The Redis scripts and the PostgreSQL functions are checked against
 * it on a real server (test/redis/redis.event-wire.spec.ts, test/postgres/postgres.rows.spec.ts).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import type { ElicitationEvent, ElicitationRecord } from '../../src/core/elicitation.types.js';
import { lifecycleEvent } from '../../src/events/elicitation-events.js';
import { StoreKeyRing } from '../../src/security/store-key-ring.js';
import {
  decodeEventMessage,
  encodeEventMessage,
  encodeEventRecordPart,
  eventId,
  eventMessageEnd,
  eventMessageHead,
  eventMessageStart,
  MAX_TRACE_LENGTH,
  sendableTrace,
} from '../../src/stores/event-wire.js';
import { sealRecord } from '../../src/stores/sealed-record.codec.js';
import { pendingRecord } from '../../src/testing/store-contract.js';
import { TEST_STORE_KEYS } from '../support/store-keys.js';

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const eventOf = (record: ElicitationRecord, type: ElicitationEvent['type'], at: number) => lifecycleEvent(type, record, at);

describe('the event wire', () => {
  it('has one shape: origin, then the event (type, id, sealed record part, time), then the trace when there is one', () => {
    const record = pendingRecord({ userId: 'alice@example.com', type: 'github-token', sessionId: 'session-1', taskId: 'task-1' });
    const event = eventOf(record, 'completed', 1_700_000_000_123);
    const message = encodeEventMessage(eventMessageHead('origin-a'), event, TEST_STORE_KEYS, TRACEPARENT);
    const wire = JSON.parse(message) as { origin: string; event: Record<string, unknown>; trace: string };
    expect(Object.keys(wire)).toEqual(['origin', 'event', 'trace']);
    expect(wire.origin).toBe('origin-a');
    expect(wire.trace).toBe(TRACEPARENT);
    expect(Object.keys(wire.event)).toEqual(['type', 'elicitationId', 'sealed', 'at']);
    expect(wire.event).toMatchObject({ type: 'completed', elicitationId: record.id, at: event.at });
    // The record's part, sealed for this elicitation's events: user, kind, type, session and task.
    const part = JSON.parse(TEST_STORE_KEYS.open(wire.event.sealed as string, `event:${record.id}`)) as object;
    const { userId, kind, type: elicitationType, sessionId, taskId } = record;
    expect(part).toEqual({ userId, kind, elicitationType, sessionId, taskId });
    expect(Object.keys(part)).toEqual(['userId', 'kind', 'elicitationType', 'sessionId', 'taskId']);
    for (const clear of [userId, elicitationType, sessionId!, taskId!, '"userId"', '"kind"']) expect(message).not.toContain(clear);
    expect(event.taskId).toBe('task-1');
    expect(decodeEventMessage(message, TEST_STORE_KEYS)).toEqual({ origin: 'origin-a', event, trace: TRACEPARENT });
  });

  it('carries the new expiry of an extended event in clear, after the time; no other event has one', () => {
    const record = pendingRecord();
    const extended = eventOf({ ...record, expiresAt: record.expiresAt + 30_000 }, 'extended', 5);
    const wire = JSON.parse(encodeEventMessage(eventMessageHead('o'), extended, TEST_STORE_KEYS)) as { event: object };
    expect(Object.keys(wire)).toEqual(['origin', 'event']);
    expect(Object.keys(wire.event)).toEqual(['type', 'elicitationId', 'sealed', 'at', 'expiresAt']);
    expect(wire.event).toMatchObject({ expiresAt: record.expiresAt + 30_000 });
    // An extended event without its expiry is no event.
    const bare = encodeEventMessage(eventMessageHead('o'), { ...extended, type: 'declined' }, TEST_STORE_KEYS).replace(
      '"declined"',
      '"extended"',
    );
    expect(decodeEventMessage(bare, TEST_STORE_KEYS)).toBeUndefined();
  });

  it('is three pieces joined by concatenation: start, the record part a store keeps from creation, end', () => {
    const record = pendingRecord({ userId: 'jos\u00e9 "q" \\ \u2028 \u{1F600}', type: 'api-key-\u00fc', sessionId: 's"\n' });
    const { eventPart } = sealRecord(record, TEST_STORE_KEYS);
    const head = eventMessageHead('origin-b');
    for (const type of ['created', 'completed', 'declined', 'cancelled', 'expired'] as const) {
      const joined = eventMessageStart(head, type) + eventPart + eventMessageEnd(42, TRACEPARENT);
      expect(decodeEventMessage(joined, TEST_STORE_KEYS)).toEqual({
        origin: 'origin-b',
        event: eventOf(record, type, 42),
        trace: TRACEPARENT,
      });
      // The same members, in the same order, as the message TypeScript encodes (its part sealed anew: other bytes).
      const encoded = encodeEventMessage(head, eventOf(record, type, 42), TEST_STORE_KEYS, TRACEPARENT);
      const keysOf = (text: string) => {
        const wire = JSON.parse(text) as { event: object };
        return [Object.keys(wire), Object.keys(wire.event)];
      };
      expect(keysOf(joined)).toEqual(keysOf(encoded));
      expect(joined).not.toBe(encoded);
    }
    const extended = eventMessageStart(head, 'extended') + eventPart + eventMessageEnd(43, undefined, 99);
    expect(decodeEventMessage(extended, TEST_STORE_KEYS)?.event).toEqual({ ...eventOf(record, 'extended', 43), expiresAt: 99 });
    expect(eventPart).toMatch(/^"elicitationId":"[0-9a-f-]{36}","sealed":"v1\.[^"]+"$/);
    expect(encodeEventRecordPart(record.id, eventOf(record, 'created', 1), TEST_STORE_KEYS)).toMatch(/^"elicitationId":/);
  });

  it('sends a trace only when it is a short string, and a message with an unusable trace still carries its event', () => {
    expect(sendableTrace(TRACEPARENT)).toBe(TRACEPARENT);
    for (const trace of ['x'.repeat(MAX_TRACE_LENGTH + 1), '', 42, undefined]) expect(sendableTrace(trace)).toBeUndefined();
    const event = eventOf(pendingRecord(), 'completed', 2);
    const tampered = encodeEventMessage(eventMessageHead('x'), event, TEST_STORE_KEYS, 'ok').replace('"trace":"ok"', '"trace":42');
    expect(decodeEventMessage(tampered, TEST_STORE_KEYS)).toEqual({ origin: 'x', event });
  });

  it('names an event by its elicitation and transition (a record makes each at most once)', () => {
    const record = pendingRecord();
    expect(eventId(eventOf(record, 'completed', 1))).toBe(eventId(eventOf(record, 'completed', 2)));
    expect(eventId(eventOf(record, 'completed', 1))).not.toBe(eventId(eventOf(record, 'created', 1)));
    expect(eventId(eventOf(record, 'completed', 1))).not.toBe(eventId(eventOf(pendingRecord(), 'completed', 1)));
  });

  it('ignores what is not an event message', () => {
    expect(decodeEventMessage('not json', TEST_STORE_KEYS)).toBeUndefined();
    expect(decodeEventMessage('null', TEST_STORE_KEYS)).toBeUndefined();
    expect(decodeEventMessage('{"origin":"x"}', TEST_STORE_KEYS)).toBeUndefined();
    expect(decodeEventMessage('{"origin":"x","event":{"type":"created"}}', TEST_STORE_KEYS)).toBeUndefined();
    // The event of an earlier layout, with the user in clear, is not one.
    const clear = { type: 'created', elicitationId: randomUUID(), userId: 'u', kind: 'api-key', elicitationType: 't', at: 1 };
    expect(decodeEventMessage(JSON.stringify({ origin: 'x', event: clear }), TEST_STORE_KEYS)).toBeUndefined();
  });

  it('drops an event sealed under other keys, or moved to another elicitation id', () => {
    const event = eventOf(pendingRecord(), 'declined', 5);
    const message = encodeEventMessage(eventMessageHead('x'), event, TEST_STORE_KEYS);
    expect(decodeEventMessage(message, TEST_STORE_KEYS)?.event).toEqual(event);
    expect(decodeEventMessage(message, new StoreKeyRing([Buffer.alloc(32, 9)]))).toBeUndefined();
    expect(decodeEventMessage(message.replace(event.elicitationId, randomUUID()), TEST_STORE_KEYS)).toBeUndefined();
  });
});
