/**
 * The event wire (stores/event-wire.ts) on Redis: the messages the CREATE and FINISH scripts append to the event
 * stream (pieces concatenated in Lua) and the one the TypeScript side encodes for the same event decode to the same
 * event, with the same members in the same order, and none carries the user, kind, type or session in clear. All are
 * read off a real Redis stream by a raw ioredis client. The wire's shape itself: test/stores/event-wire.spec.ts.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import type { ElicitationEvent, ElicitationRecord, FinalStatus } from '../../src/core/elicitation.types.js';
import { lifecycleEvent } from '../../src/events/elicitation-events.js';
import { keySpace } from '../../src/redis/redis.key-space.js';
import { EVENT_FIELD } from '../../src/redis/redis.lua-parts.js';
import { RedisElicitationStore } from '../../src/redis/redis.store.js';
import type { ElicitationEventChannel } from '../../src/stores/elicitation-store.js';
import {
  decodeEventMessage,
  encodeEventMessage,
  eventMessageEnd,
  eventMessageHead,
  eventMessageStart,
  MAX_TRACE_LENGTH,
  type EventWireMessage,
} from '../../src/stores/event-wire.js';
import { pendingRecord } from '../../src/testing/store-contract.js';
import { deletePrefix, describeRedis, REDIS_URL } from '../support/redis.js';
import { keyed, TEST_STORE_KEYS } from '../support/store-keys.js';

const PREFIX = `test-wire-${randomUUID().slice(0, 8)}`;
/** A W3C traceparent, as the module's telemetry sends it. */
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

/** The event the service publishes for a record. */
const eventOf = (record: ElicitationRecord, type: ElicitationEvent['type'], at: number) => lifecycleEvent(type, record, at);

function decoded(message: string): EventWireMessage {
  const result = decodeEventMessage(message, TEST_STORE_KEYS);
  if (!result) throw new Error(`not an event message: ${message}`);
  return result;
}

describeRedis('Redis event wire: the scripts and TypeScript append the same message', () => {
  let client: Redis;
  /** The id of the last stream entry read by `nextMessage`. */
  let lastId = '0-0';
  /** Appends from its scripts: exactly one channel is open on it. */
  let scripted: RedisElicitationStore;
  let scriptedChannel: ElicitationEventChannel;
  /** Appends from TypeScript: two channels are open on it, so its scripts append nothing. */
  let encoded: RedisElicitationStore;
  let encodedChannels: ElicitationEventChannel[];

  beforeAll(async () => {
    client = new Redis(REDIS_URL);
    scripted = keyed(new RedisElicitationStore(client, { keyPrefix: PREFIX }));
    encoded = keyed(new RedisElicitationStore(client, { keyPrefix: PREFIX }));
    scriptedChannel = await scripted.openEventChannel(() => undefined);
    encodedChannels = [await encoded.openEventChannel(() => undefined), await encoded.openEventChannel(() => undefined)];
  });

  afterAll(async () => {
    for (const channel of [scriptedChannel, ...encodedChannels]) await channel.close();
    await deletePrefix(client, PREFIX);
    await client.quit();
  });

  /** The next entry's message on the stream (read right away: appends are done when the call resolves), and that it is the only new one. */
  async function nextMessage(): Promise<string> {
    const entries = await client.xrange(keySpace(PREFIX).events, `(${lastId}`, '+');
    expect(entries).toHaveLength(1);
    const [[id, fields]] = entries;
    lastId = id;
    expect(fields).toEqual([EVENT_FIELD, expect.any(String)]);
    return fields[1];
  }

  const cases: Array<{ name: string; status: FinalStatus; record: () => ElicitationRecord }> = [
    {
      name: 'completed, with a session',
      status: 'completed',
      record: () => pendingRecord({ sessionId: 'session-1', userId: 'alice@example.com', type: 'github-token' }),
    },
    { name: 'declined, without a session', status: 'declined', record: () => pendingRecord({ userId: 'bob@example.com' }) },
    {
      name: 'cancelled, ids that JSON escapes',
      status: 'cancelled',
      record: () => pendingRecord({ userId: 'jos\u00e9 "q" \\ \u2028 \u{1F600}', type: 'api-key-\u00fc', sessionId: 's"\n' }),
    },
    {
      name: 'expired, kind confirm',
      status: 'expired',
      record: () => pendingRecord({ kind: 'confirm', type: 'confirm', userId: 'carol@example.com' }),
    },
  ];

  for (const { name, status, record: make } of cases) {
    it(`decodes the same event from both publishers: ${name}`, async () => {
      const record = make();
      // Appended by the script, which says so: the module publishes it no more.
      expect(await scripted.create(record)).toEqual({ result: 'created', eventSent: true });
      const created = decoded(await nextMessage());
      expect(created.event).toEqual(eventOf(record, 'created', record.createdAt));
      const now = status === 'expired' ? record.expiresAt : record.createdAt + 1;
      const data = status === 'completed' ? { apiKey: 'k' } : undefined;
      expect(await scripted.finish(record.id, { status, data, now, purgeAt: now + 60_000 })).toMatchObject({ ok: true, eventSent: true });
      const fromScript = await nextMessage();

      const event = eventOf(record, status, now);
      await encodedChannels[0].publish(event);
      const fromTypeScript = await nextMessage();

      const a = decoded(fromScript);
      const b = decoded(fromTypeScript);
      expect(a.event).toEqual(b.event);
      expect(Object.keys(a.event)).toEqual(Object.keys(b.event));
      expect(a.event).toEqual(event);
      expect(a.origin).not.toEqual(b.origin);
      // One shape on the wire, whoever sent it: only the transition, the id and the time in clear.
      for (const message of [fromScript, fromTypeScript]) {
        const wire = JSON.parse(message) as { event: object };
        expect(Object.keys(wire)).toEqual(['origin', 'event']);
        expect(Object.keys(wire.event)).toEqual(['type', 'elicitationId', 'sealed', 'at']);
        for (const clear of [record.userId, JSON.stringify(record.userId).slice(1, -1), `"${record.type}"`, '"kind"', '"userId"']) {
          expect(message).not.toContain(clear);
        }
        if (record.sessionId) expect(message).not.toContain(JSON.stringify(record.sessionId).slice(1, -1));
      }
      // The scripts concatenate exactly the pieces encodeEventMessage joins, with the record part stored at creation.
      const v = await client.hget(keySpace(PREFIX).record(record.id), 'v');
      expect(eventMessageStart(eventMessageHead(a.origin!), status) + v + eventMessageEnd(now)).toBe(fromScript);
      expect(created.origin).toBe(a.origin);
      expect(encodeEventMessage(eventMessageHead(b.origin!), event, TEST_STORE_KEYS)).not.toBe(fromTypeScript); // sealed anew each time
    });
  }

  it('decodes the same extended event from both publishers, its new expiresAt in clear beside the time', async () => {
    const record = pendingRecord({ sessionId: 'session-x', userId: 'dora@example.com', type: 'deploy-approval', kind: 'confirm' });
    await scripted.create(record);
    await nextMessage();
    const now = record.createdAt + 1;
    const change = { expiresAt: record.expiresAt + 30_000, purgeAt: record.purgeAt + 30_000, now };
    const result = await scripted.extend(record.id, change);
    expect(result).toMatchObject({ ok: true, eventSent: true });
    const fromScript = await nextMessage();
    const event = eventOf({ ...record, expiresAt: change.expiresAt }, 'extended', now);
    expect(event.expiresAt).toBe(change.expiresAt);
    await encodedChannels[0].publish(event);
    const fromTypeScript = await nextMessage();
    for (const message of [fromScript, fromTypeScript]) {
      expect(decoded(message).event).toEqual(event);
      const wire = JSON.parse(message) as { event: object };
      expect(Object.keys(wire.event)).toEqual(['type', 'elicitationId', 'sealed', 'at', 'expiresAt']);
      expect(message).not.toContain(record.userId);
      expect(message).not.toContain(record.type);
    }
    const v = await client.hget(keySpace(PREFIX).record(record.id), 'v');
    expect(
      eventMessageStart(eventMessageHead(decoded(fromScript).origin!), 'extended') + v + eventMessageEnd(now, undefined, change.expiresAt),
    ).toBe(fromScript);
    // A refused extension appends nothing.
    expect(await scripted.extend(record.id, { ...change, now: now + 1 })).toMatchObject({ ok: false, reason: 'already-extended' });
    expect(await client.xrange(keySpace(PREFIX).events, `(${lastId}`, '+')).toEqual([]);
    // An extended event without its expiry is no event.
    const bare = encodeEventMessage(eventMessageHead('x'), { ...event, type: 'declined' }, TEST_STORE_KEYS).replace(
      '"declined"',
      '"extended"',
    );
    expect(decodeEventMessage(bare, TEST_STORE_KEYS)).toBeUndefined();
    // Only an extended event carries an expiry: the final ones are as they were.
    expect(Object.keys(eventOf(record, 'declined', now))).not.toContain('expiresAt');
  });

  it('carries the trace context beside the event, from the scripts and from TypeScript alike', async () => {
    const prefix = `${PREFIX}-trace`;
    const traced = keyed(new RedisElicitationStore(client, { keyPrefix: prefix }));
    const channel = await traced.openEventChannel(() => undefined, { trace: () => TRACEPARENT });
    try {
      const record = pendingRecord({ sessionId: 's-trace' });
      await traced.create(record);
      await traced.finish(record.id, { status: 'declined', now: record.createdAt + 1, purgeAt: record.createdAt + 60_000 });
      const other = eventOf(pendingRecord(), 'cancelled', 9);
      await channel.publish(other);
      const messages = (await client.xrange(keySpace(prefix).events, '-', '+')).map(([, fields]) => fields[1]);
      expect(messages).toHaveLength(3);
      const opened = messages.map(decoded);
      expect(opened.map((m) => m.event)).toEqual([
        eventOf(record, 'created', record.createdAt),
        eventOf(record, 'declined', record.createdAt + 1),
        other,
      ]);
      for (const [i, m] of opened.entries()) {
        expect(m.trace).toBe(TRACEPARENT);
        expect(m.event).not.toHaveProperty('trace');
        expect(Object.keys(JSON.parse(messages[i]) as object)).toEqual(['origin', 'event', 'trace']);
      }
    } finally {
      await channel.close();
      await deletePrefix(client, prefix);
    }
  });

  it('sends no trace that is not a short string, and a provider that throws costs the event nothing', async () => {
    const prefix = `${PREFIX}-bad-trace`;
    const store = keyed(new RedisElicitationStore(client, { keyPrefix: prefix }));
    const traces: Array<() => string | undefined> = [
      () => 'x'.repeat(MAX_TRACE_LENGTH + 1),
      () => '',
      () => {
        throw new Error('no tracer');
      },
      () => undefined,
    ];
    try {
      for (const trace of traces) {
        const channel = await store.openEventChannel(() => undefined, { trace });
        await channel.publish(eventOf(pendingRecord(), 'completed', 1));
        await channel.close();
      }
      const messages = (await client.xrange(keySpace(prefix).events, '-', '+')).map(([, fields]) => fields[1]);
      expect(messages).toHaveLength(traces.length);
      for (const message of messages) {
        expect(Object.keys(JSON.parse(message) as object)).toEqual(['origin', 'event']);
        expect(decoded(message).trace).toBeUndefined();
      }
      // A message with an unusable trace still carries its event.
      const event = eventOf(pendingRecord(), 'completed', 2);
      const tampered = encodeEventMessage(eventMessageHead('x'), event, TEST_STORE_KEYS, 'ok').replace('"trace":"ok"', '"trace":42');
      expect(decoded(tampered)).toEqual({ origin: 'x', event });
    } finally {
      await deletePrefix(client, prefix);
    }
  });
});
