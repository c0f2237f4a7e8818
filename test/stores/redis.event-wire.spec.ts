/**
 * The event wire contract: the message the FINISH script publishes (pieces concatenated in Lua) and the one
 * the TypeScript side encodes for the same event decode to the same event, with the same members in the same
 * order, and neither carries the user, kind, type or session in clear. Both are read off a real Redis by a
 * raw ioredis subscriber.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import type { ElicitationEvent, ElicitationRecord, FinalStatus } from '../../src/elicitation.types.js';
import { lifecycleEvent } from '../../src/events/elicitation-events.js';
import {
  decodeEventMessage,
  encodeEventMessage,
  eventMessageEnd,
  eventMessageHead,
  eventMessageStart,
  type EventWireMessage,
} from '../../src/redis/redis.event-wire.js';
import { keySpace } from '../../src/redis/redis.key-space.js';
import { RedisElicitationStore } from '../../src/redis/redis.store.js';
import { StoreKeyRing } from '../../src/security/store-key-ring.js';
import type { ElicitationEventChannel } from '../../src/stores/elicitation-store.js';
import { pendingRecord } from '../../src/testing/store-contract.js';
import { deletePrefix, describeRedis, REDIS_URL } from '../support/redis.js';
import { keyed, TEST_STORE_KEYS } from '../support/store-keys.js';

const PREFIX = `test-wire-${randomUUID().slice(0, 8)}`;

/** The event the service publishes for a record. */
const eventOf = (record: ElicitationRecord, type: ElicitationEvent['type'], at: number) => lifecycleEvent(type, record, at);

function decoded(message: string): EventWireMessage {
  const result = decodeEventMessage(message, TEST_STORE_KEYS);
  if (!result) throw new Error(`not an event message: ${message}`);
  return result;
}

describeRedis('Redis event wire: the finish script and TypeScript send the same message', () => {
  let client: Redis;
  let tap: Redis;
  const messages: string[] = [];
  /** Publishes from its finish script: exactly one channel is open on it. */
  let scripted: RedisElicitationStore;
  let scriptedChannel: ElicitationEventChannel;
  /** Publishes from TypeScript: two channels are open on it, so its finish script publishes nothing. */
  let encoded: RedisElicitationStore;
  let encodedChannels: ElicitationEventChannel[];

  beforeAll(async () => {
    client = new Redis(REDIS_URL);
    tap = new Redis(REDIS_URL);
    tap.on('message', (_channel: string, message: string) => messages.push(message));
    await tap.subscribe(keySpace(PREFIX).channel);
    scripted = keyed(new RedisElicitationStore(client, { keyPrefix: PREFIX }));
    encoded = keyed(new RedisElicitationStore(client, { keyPrefix: PREFIX }));
    scriptedChannel = await scripted.openEventChannel(() => undefined);
    encodedChannels = [await encoded.openEventChannel(() => undefined), await encoded.openEventChannel(() => undefined)];
  });

  afterAll(async () => {
    await tap.quit();
    for (const channel of [scriptedChannel, ...encodedChannels]) await channel.close();
    await deletePrefix(client, PREFIX);
    await client.quit();
  });

  /** The next message on the channel, within 2 s. */
  async function nextMessage(): Promise<string> {
    const seen = messages.length;
    const deadline = Date.now() + 2_000;
    while (messages.length === seen && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(messages).toHaveLength(seen + 1);
    return messages[seen];
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
      await scripted.create(record);
      const now = status === 'expired' ? record.expiresAt : record.createdAt + 1;
      const data = status === 'completed' ? { apiKey: 'k' } : undefined;
      expect((await scripted.finish(record.id, { status, data, now, purgeAt: now + 60_000 })).ok).toBe(true);
      const fromScript = await nextMessage();

      const event = eventOf(record, status, now);
      await scriptedChannel.publish(event); // already published by the script: not sent again
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
      // The script concatenates exactly the pieces encodeEventMessage joins, with the record part stored at creation.
      const v = await client.hget(keySpace(PREFIX).record(record.id), 'v');
      expect(eventMessageStart(eventMessageHead(a.origin!), status) + v + eventMessageEnd(now)).toBe(fromScript);
      expect(encodeEventMessage(eventMessageHead(b.origin!), event, TEST_STORE_KEYS)).not.toBe(fromTypeScript); // sealed anew each time
    });
  }

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
