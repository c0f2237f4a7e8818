/**
 * The Redis event stream on a real Redis: where a new channel starts, resuming after the reader's connection
 * was killed (what was appended meanwhile arrives exactly once), duplicates dropped, the caps, the warning when
 * missed events were trimmed, and the events the scripts append within their one round trip.
 *
 * A reader held off: the stores under test reconnect HOLD_MS after a dropped connection (their retryStrategy),
 * and each test checks, after appending, that the reader is still away, so the appends really happened while
 * it was cut off.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { Redis, type Command } from 'ioredis';
import { DEFAULT_REDIS_EVENTS_MAX_AGE_MS, DEFAULT_REDIS_EVENTS_MAX_LENGTH } from '../../src/redis/redis.defaults.js';
import type { ElicitationEvent } from '../../src/core/elicitation.types.js';
import { ElicitationConfigError } from '../../src/errors/elicitation-config.error.js';
import { lifecycleEvent } from '../../src/events/elicitation-events.js';
import { compareStreamIds } from '../../src/redis/redis.event-channel.js';
import { EVENT_FIELD } from '../../src/redis/redis.lua-parts.js';
import { keySpace } from '../../src/redis/redis.key-space.js';
import { RedisElicitationStore, type RedisElicitationStoreOptions } from '../../src/redis/redis.store.js';
import type { ElicitationEventChannel, ElicitationEventContext } from '../../src/stores/elicitation-store.js';
import { pendingRecord } from '../../src/testing/store-contract.js';
import { deletePrefix, describeRedis, REDIS_URL, redisClients } from '../support/redis.js';
import { keyed } from '../support/store-keys.js';

const RUN = `test-stream-${randomUUID().slice(0, 8)}`;
/** How long a store under test waits before it reconnects a dropped connection. */
const HOLD_MS = 1_500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What one channel received. */
interface Received {
  events: ElicitationEvent[];
  contexts: Array<ElicitationEventContext | undefined>;
}

/** An event of a made-up record. */
const made = (type: ElicitationEvent['type'] = 'completed', at = 1): ElicitationEvent => ({
  type,
  elicitationId: randomUUID(),
  userId: 'u',
  kind: 'api-key',
  elicitationType: 't',
  at,
});

describeRedis('Redis event stream: delivery that survives a dropped connection', () => {
  let admin: Redis;
  let n = 0;
  const cleanups: Array<() => Promise<unknown>> = [];

  beforeAll(() => {
    admin = new Redis(REDIS_URL);
  });
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
  });
  afterAll(async () => {
    await deletePrefix(admin, RUN);
    await admin.quit();
  });

  /** A store of its own connection (named `name`, reconnecting after HOLD_MS), on `prefix`; closed after the test. */
  function store(prefix: string, name: string, options: RedisElicitationStoreOptions = {}, holdMs = HOLD_MS): RedisElicitationStore {
    const url = new URL(REDIS_URL);
    const s = keyed(
      new RedisElicitationStore(
        { host: url.hostname, port: Number(url.port || 6379), connectionName: name, retryStrategy: () => holdMs },
        { keyPrefix: prefix, ...options },
      ),
    );
    cleanups.push(() => s.onModuleDestroy());
    return s;
  }

  /** A channel on `s` recording what it receives; closed after the test. */
  async function listen(s: RedisElicitationStore, trace?: () => string | undefined): Promise<[ElicitationEventChannel, Received]> {
    const received: Received = { events: [], contexts: [] };
    const channel = await s.openEventChannel((event, context) => {
      received.events.push(event);
      received.contexts.push(context);
    }, trace && { trace });
    cleanups.push(() => channel.close());
    return [channel, received];
  }

  /** The clients of the shared Redis whose name is `name`. */
  async function clientsNamed(name: string): Promise<Array<{ addr: string; cmd: string }>> {
    return (await redisClients(admin)).filter((c) => c.name === name).map((c) => ({ addr: c.addr, cmd: c.cmd }));
  }

  /** Waits until the reader named `name` is connected and blocked in XREAD. */
  async function readerWaiting(name: string): Promise<{ addr: string }> {
    const deadline = Date.now() + 5_000;
    for (;;) {
      const [reader] = await clientsNamed(name);
      if (reader?.cmd === 'xread') return reader;
      if (Date.now() > deadline) throw new Error(`no reader named ${name} waits in XREAD`);
      await sleep(10);
    }
  }

  /** Kills the reader `name` by address, and resolves once it is gone. */
  async function killReader(name: string): Promise<void> {
    const reader = await readerWaiting(name);
    expect(await admin.call('CLIENT', 'KILL', 'ADDR', reader.addr)).toBe(1);
  }

  async function until(what: string, check: () => boolean, ms = 5_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
      await sleep(5);
    }
  }

  it('a new channel starts at the end of the stream: it never replays what was appended before it opened', async () => {
    const prefix = `${RUN}-${++n}`;
    const [sender] = await listen(store(prefix, `${RUN}-s${n}`));
    const before = [made(), made('declined')];
    for (const e of before) await sender.publish(e);
    const [, late] = await listen(store(prefix, `${RUN}-l${n}`));
    const after = made('cancelled');
    await sender.publish(after);
    await until('the event published after it opened', () => late.events.length >= 1);
    await sleep(100);
    expect(late.events).toEqual([after]);
  });

  it('resumes after its blocked reader connection is killed: what was appended meanwhile arrives exactly once, in order', async () => {
    const prefix = `${RUN}-${++n}`;
    const name = `${RUN}-a${n}`;
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    cleanups.push(() => Promise.resolve(warn.mockRestore()));
    const [channelA, a] = await listen(store(prefix, name));
    const b = store(prefix, `${RUN}-b${n}`);
    const [channelB] = await listen(b);
    const first = made();
    await channelB.publish(first);
    await until('the first event', () => a.events.length === 1);
    expect(channelA.isLive?.()).toBe(true);

    await killReader(`${name}:events`);
    // While A's reader is away: events published, and one appended by a finish script.
    const meanwhile = [made('created'), made('declined'), made('cancelled')];
    for (const e of meanwhile) await channelB.publish(e);
    const record = pendingRecord();
    await b.create(record); // one channel is open on b: its scripts append the events
    await b.finish(record.id, { status: 'completed', data: { k: 1 }, now: record.createdAt + 1, purgeAt: record.purgeAt });
    expect(await clientsNamed(`${name}:events`)).toEqual([]); // the reader really was away
    expect(a.events).toEqual([first]);
    expect(channelA.isLive?.()).toBe(false);

    const expected = [
      first,
      ...meanwhile,
      lifecycleEvent('created', record, record.createdAt),
      lifecycleEvent('completed', record, record.createdAt + 1),
    ];
    await until('the events appended while A was away', () => a.events.length >= expected.length, HOLD_MS + 5_000);
    await sleep(200); // room for a duplicate
    expect(a.events).toEqual(expected);
    expect(channelA.isLive?.()).toBe(true);
    // Nothing was trimmed: no warning.
    expect(warn.mock.calls.filter(([m]) => String(m).includes('trimmed'))).toEqual([]);
  });

  it('drops a second copy of an event (an append ioredis sent again after its connection dropped)', async () => {
    const prefix = `${RUN}-${++n}`;
    const [, a] = await listen(store(prefix, `${RUN}-a${n}`));
    const b = store(prefix, `${RUN}-b${n}`);
    const [channelB] = await listen(b);
    const once = made();
    await channelB.publish(once);
    await channelB.publish(once); // not a script's event: appended twice
    const entries = await admin.xrange(keySpace(prefix).events, '-', '+');
    expect(entries).toHaveLength(2);
    // A copy of the same message added by hand, as a resent XADD would.
    await admin.xadd(keySpace(prefix).events, '*', EVENT_FIELD, entries[0][1][1]);
    const other = { ...made(), elicitationId: once.elicitationId, type: 'created' as const };
    await channelB.publish(other); // the same elicitation, another transition: another event
    await until('the other transition', () => a.events.length >= 2);
    await sleep(200);
    expect(a.events).toEqual([once, other]);
  });

  it('keeps about eventsMaxLength events: the stream is trimmed by length as events are appended', async () => {
    const prefix = `${RUN}-${++n}`;
    const [channel] = await listen(store(prefix, `${RUN}-a${n}`, { eventsMaxLength: 50 }));
    const nodeEntries = Number((await admin.config('GET', 'stream-node-max-entries'))[1]);
    for (let i = 0; i < 400; i++) await channel.publish(made('completed', i));
    const length = await admin.xlen(keySpace(prefix).events);
    expect(length).toBeGreaterThanOrEqual(50);
    expect(length).toBeLessThanOrEqual(50 + nodeEntries); // "about": Redis trims whole stream nodes
    // The oldest ones went: the newest is still there.
    const [[, fields]] = await admin.xrevrange(keySpace(prefix).events, '+', '-', 'COUNT', 1);
    expect(fields[1]).toContain('"at":399}');
  });

  /** A store of a new prefix whose stream holds one full node of events two ages old, and its channel. */
  const streamWithOldNode = async (maxAge: number) => {
    const prefix = `${RUN}-${++n}`;
    const stream = keySpace(prefix).events;
    const nodeEntries = Number((await admin.config('GET', 'stream-node-max-entries'))[1]);
    // Small entries, so the node is full by count.
    const old = Date.now() - 2 * maxAge;
    for (let i = 0; i < nodeEntries; i++) await admin.xadd(stream, `${old}-${i + 1}`, EVENT_FIELD, 'x');
    expect(await admin.xlen(stream)).toBe(nodeEntries);
    const [channel] = await listen(store(prefix, `${RUN}-a${n}`, { eventsMaxAgeMs: maxAge }));
    return { stream, nodeEntries, channel };
  };

  it('keeps events of at most about eventsMaxAgeMs: older ones are trimmed, and the stream key expires with them', async () => {
    const maxAge = 60_000;
    const { stream, channel } = await streamWithOldNode(maxAge);
    await channel.publish(made());
    const ids = (await admin.xrange(stream, '-', '+')).map(([id]) => id);
    expect(ids).toHaveLength(1);
    expect(compareStreamIds(ids[0], `${Date.now() - maxAge}-0`)).toBeGreaterThan(0);
    const ttl = await admin.pttl(stream);
    expect(ttl).toBeGreaterThan(maxAge - 5_000);
    expect(ttl).toBeLessThanOrEqual(2 * maxAge);
  });

  it("cuts old events when the stream key's TTL is renewed, not with every event", async () => {
    const maxAge = 60_000;
    const { stream, nodeEntries, channel } = await streamWithOldNode(maxAge);
    // A TTL still above the age cap: the event is appended, nothing is cut, the TTL is left as it is.
    await admin.pexpire(stream, maxAge + 30_000);
    await channel.publish(made());
    expect(await admin.xlen(stream)).toBe(nodeEntries + 1);
    expect(await admin.pttl(stream)).toBeLessThanOrEqual(maxAge + 30_000);
    // The TTL has run below the cap: the next event renews it and cuts what is older than the cap.
    await admin.pexpire(stream, maxAge - 1_000);
    await channel.publish(made());
    const ids = (await admin.xrange(stream, '-', '+')).map(([id]) => id);
    expect(ids).toHaveLength(2);
    expect(ids.every((id) => compareStreamIds(id, `${Date.now() - maxAge}-0`) > 0)).toBe(true);
    expect(await admin.pttl(stream)).toBeGreaterThan(maxAge);
  });

  it('warns when events it missed were trimmed before it was back, and delivers those still kept', async () => {
    const prefix = `${RUN}-${++n}`;
    const name = `${RUN}-a${n}`;
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    cleanups.push(() => Promise.resolve(warn.mockRestore()));
    // Held off longer than the others: 300 publishes must end before it is back, on a loaded machine too.
    const [, a] = await listen(store(prefix, name, {}, 3 * HOLD_MS));
    const [channelB] = await listen(store(prefix, `${RUN}-b${n}`, { eventsMaxLength: 10 }));
    const first = made();
    await channelB.publish(first);
    await until('the first event', () => a.events.length === 1);

    await killReader(`${name}:events`);
    for (let i = 0; i < 300; i++) await channelB.publish(made('completed', i));
    expect(await clientsNamed(`${name}:events`)).toEqual([]);
    const kept = await admin.xlen(keySpace(prefix).events);
    expect(kept).toBeLessThan(300);

    await until('the events still kept', () => a.events.length >= 1 + kept, 3 * HOLD_MS + 5_000);
    await sleep(200);
    expect(a.events).toHaveLength(1 + kept);
    expect(a.events.slice(-1)[0].at).toBe(299);
    const trimmed = warn.mock.calls.map(([m]) => String(m)).filter((m) => m.includes('were trimmed'));
    expect(trimmed).toHaveLength(1);
    expect(trimmed[0]).toContain(`${300 - kept} lifecycle event(s) after `); // the first was read before the cut
    expect(trimmed[0]).toContain(keySpace(prefix).events);
    expect(trimmed[0]).toContain('eventsMaxLength');
  });

  it('with one channel open, create, finish and sweep append their events within their one round trip, with the trace, and say so', async () => {
    const prefix = `${RUN}-${++n}`;
    const [, other] = await listen(store(prefix, `${RUN}-o${n}`));
    const client = new Redis(REDIS_URL);
    cleanups.push(() => client.quit());
    const s = keyed(new RedisElicitationStore(client, { keyPrefix: prefix }));
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    await listen(s, () => traceparent); // the one channel open on s, as the module's is
    const sent: string[] = [];
    const original = client.sendCommand.bind(client);
    client.sendCommand = (command: Command) => {
      sent.push(command.name);
      return original(command);
    };
    cleanups.push(() => Promise.resolve((client.sendCommand = original)));
    const now = Date.now();
    const done = pendingRecord({ createdAt: now, expiresAt: now + 60_000, purgeAt: now + 120_000, sessionId: 's' });
    const due = pendingRecord({ createdAt: now, expiresAt: now + 10, purgeAt: now + 60_000 });
    // Warm-up: every script loaded once (EVALSHA → NOSCRIPT → EVAL), then counted.
    const warm = pendingRecord({ createdAt: now, expiresAt: now + 5, purgeAt: now + 60_000 });
    await s.create(warm);
    await s.finish(warm.id, { status: 'declined', now: now + 1, purgeAt: now + 60_000 });
    await s.sweep(now - 1, 60_000);
    // Each result says the event was sent, so the module publishes none of them again.
    const counted: Array<[string, () => Promise<unknown>, unknown]> = [
      ['create', () => s.create(done), { result: 'created', eventSent: true }],
      ['create', () => s.create(due), { result: 'created', eventSent: true }],
      [
        'finish',
        () => s.finish(done.id, { status: 'completed', data: { k: 1 }, now: now + 1, purgeAt: now + 60_000 }),
        { ok: true, record: expect.objectContaining({ id: done.id, status: 'completed' }), eventSent: true },
      ],
      [
        'sweep',
        () => s.sweep(now + 20, 60_000),
        { expired: [expect.objectContaining({ id: due.id, status: 'expired' })], eventSent: true },
      ],
    ];
    for (const [op, call, report] of counted) {
      sent.length = 0;
      const result = await call();
      expect([op, sent]).toEqual([op, [expect.stringMatching(/^evalsha$/i)]]);
      expect([op, result]).toEqual([op, report]);
    }
    const events = [
      lifecycleEvent('created', done, now),
      lifecycleEvent('created', due, now),
      lifecycleEvent('completed', done, now + 1),
      lifecycleEvent('expired', due, now + 20),
    ];
    await until('the four events at the other channel', () => other.events.filter((e) => e.elicitationId !== warm.id).length >= 4);
    await sleep(100);
    const seen = other.events.filter((e) => e.elicitationId !== warm.id);
    expect(seen).toEqual(events);
    expect(other.contexts.every((c) => c?.trace === traceparent)).toBe(true);
  });

  describe('caps are options of RedisElicitationStore', () => {
    it('defaults to 10,000 events of at most 10 minutes', () => {
      expect([DEFAULT_REDIS_EVENTS_MAX_LENGTH, DEFAULT_REDIS_EVENTS_MAX_AGE_MS]).toEqual([10_000, 600_000]);
    });

    it.each([
      [{ eventsMaxLength: 0 }, 'eventsMaxLength'],
      [{ eventsMaxLength: 1.5 }, 'eventsMaxLength'],
      [{ eventsMaxAgeMs: 999 }, 'eventsMaxAgeMs'],
      [{ eventsMaxAgeMs: Number.NaN }, 'eventsMaxAgeMs'],
    ])('refuses %j naming the option', (options, option) => {
      expect(() => new RedisElicitationStore(admin, options)).toThrow(ElicitationConfigError);
      expect(() => new RedisElicitationStore(admin, options)).toThrow(`"${option}"`);
    });
  });
});
