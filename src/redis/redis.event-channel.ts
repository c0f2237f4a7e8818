import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { ElicitationEvent } from '../elicitation.types.js';
import type { ElicitationEventChannel, ElicitationEventChannelOptions, ElicitationEventContext } from '../stores/elicitation-store.js';
import { callRedis, connectionNameOf, duplicateClient, isClusterClient, type RedisClient } from './redis.client.js';
import {
  decodeEventMessage,
  encodeEventMessage,
  EVENT_FIELD,
  eventId,
  eventMessageEnd,
  eventMessageHead,
  eventMessageStart,
  sendableTrace,
  type EventSealing,
} from './redis.event-wire.js';
import type { Scripts } from './redis.scripts.js';

/**
 * How long one XREAD waits for new events before it is sent again, in milliseconds. With READ_TIMEOUT_MS it
 * bounds how long a reader connection that died without a word goes unnoticed.
 */
const READ_BLOCK_MS = 5_000;
/** The reader connection's command timeout: one XREAD's wait plus slack (it replaces a shorter one of the store's client). */
const READ_TIMEOUT_MS = READ_BLOCK_MS + 5_000;
/** Most events one XREAD returns (a bigger backlog takes several reads, one right after the other). */
const READ_COUNT = 256;
/** Events remembered to drop duplicates: two generations of up to this many each. */
const SEEN_GENERATION = 5_000;
/** The pause after a failed read: 100 ms more per failure in a row, up to a second (the store's reconnect pace). */
const retryDelayMs = (failures: number) => Math.min(100 * failures, 1_000);

/**
 * Events whose append a script already made (CREATE, FINISH, EXTEND_EXPIRY, SWEEP), so that the channel does not send them
 * again when the service publishes them right after (by `tag`). Entries live one to two rotations (a second
 * or two), so an event that is never published through the channel costs nothing for long; one published
 * later than that goes out again and the readers drop it by its id.
 *
 * It spares every create and finish a second round trip and lets the event leave from inside the script
 * (guarded by the redis.bench rows "redis round trips per create / finish" and "redis cross-instance
 * completion latency p99").
 */
class SentInScript {
  private current = new Set<string>();
  private previous = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  add(tag: string): void {
    this.current.add(tag);
    if (!this.timer) {
      this.timer = setInterval(() => {
        this.previous = this.current;
        this.current = new Set();
        if (this.previous.size === 0) this.stop();
      }, 1_000);
      this.timer.unref();
    }
  }

  /** True (once) when a script already appended this event. */
  take(tag: string): boolean {
    return this.current.delete(tag) || this.previous.delete(tag);
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** The ids of the events delivered lately (two generations of at most `generation` each), to drop a second copy. */
class RecentIds {
  private current = new Set<string>();
  private previous = new Set<string>();

  constructor(private readonly generation: number) {}

  /** False when `id` was seen lately (a duplicate); otherwise remembers it and returns true. */
  add(id: string): boolean {
    if (this.current.has(id) || this.previous.has(id)) return false;
    if (this.current.size >= this.generation) {
      this.previous = this.current;
      this.current = new Set();
    }
    this.current.add(id);
    return true;
  }
}

/** What an event channel needs from the store that opens it. */
export interface RedisEventChannelDeps {
  /** The store's connection: duplicated for the reader; it also reads where the stream ends when the channel opens. */
  readonly redis: RedisClient;
  /** The store's scripts: `publish` appends with one. */
  readonly scripts: Pick<Scripts, 'elicitAppendEvent'>;
  /** The event stream of the store's key prefix. */
  readonly stream: string;
  /** The stream's caps (`eventsMaxLength`, `eventsMaxAgeMs`). */
  readonly maxLength: number;
  readonly maxAgeMs: number;
  /** The store's keys: they seal the record's part of what this channel sends, and open what it receives. */
  readonly keys: EventSealing;
  /** Called when the channel closes. */
  readonly onClose: (channel: RedisEventChannel) => void;
}

/**
 * The five arguments with which a script appends the event of the record it creates or finishes (APPEND_EVENT
 * in redis.scripts.ts): the stream, its two caps, and the message's pieces before and after the record's part.
 */
export type EventScriptArgs = [stream: string, maxLength: number, maxAgeMs: number, start: string, end: string];

/** An entry as XREAD returns it: its id and its fields (name, value, ...). */
type StreamEntry = [id: string, fields: unknown[]];

/**
 * One event channel of a Redis store, on the store's event stream (a Redis Stream, capped by length and age):
 * events are appended by the scripts that create and finish records (or by `publish`), and read by every
 * channel on a dedicated connection (a connection blocked in XREAD can run no other command), each from the
 * last entry it read, so a channel whose connection drops reads what it missed once it is back.
 *
 * - A new channel starts at the stream's end as it opens (`$`, resolved once to the last entry's id, so a read
 *   sent again after a reconnect cannot skip anything): a new instance has no waiters or sessions for older
 *   events, so it never replays history.
 * - After its connection dropped, the reader resumes from its last id. If entries after that id were trimmed
 *   meanwhile (the stream keeps about `eventsMaxLength` events of at most `eventsMaxAgeMs`), those events are
 *   lost to this instance: it says so in a warning (on Redis 7 or later it knows; on 6.2 it warns when it may
 *   have happened). Tools waiting here on them wake at their timeout; the stored state is not lost.
 * - Messages carry the channel's own random origin, so it skips what it sent itself; an event that arrives
 *   twice (a resent append) is delivered once, by its id (`eventId`).
 * - A message arrives with its user, kind, type and session sealed (redis.event-wire.ts); the channel opens
 *   them, so listeners get the whole event, and drops what it cannot open (another key ring). The sender's
 *   trace context arrives beside the event (`ElicitationEventContext.trace`).
 */
export class RedisEventChannel implements ElicitationEventChannel {
  /** What this channel's messages start with, up to the event's type (exclusive). */
  private readonly head: string;
  private readonly sent = new SentInScript();
  private readonly seen = new RecentIds(SEEN_GENERATION);
  private readonly logger = new Logger('RedisElicitationStore');
  /** The id of the last entry read: the next read starts after it. */
  private lastId: string;
  /**
   * How many entries the stream had been given up to `lastId` (Redis 7 counts them: `entries-added`), so that a
   * resumed reader knows how many it missed; `undefined` where Redis does not count (6.2).
   */
  private lastSeq: number | undefined;
  private closed = false;
  /** Failed reads in a row (0 while reading works). */
  private failures = 0;
  /** Set when the reader's connection dropped: the next read first checks that nothing it missed was trimmed. */
  private resuming = false;
  /** Ends the pause after a failed read early (on close). */
  private wake: (() => void) | undefined;

  private constructor(
    private readonly deps: RedisEventChannelDeps,
    private readonly origin: string,
    private readonly reader: RedisClient,
    start: StreamPosition,
    private readonly onRemoteEvent: (event: ElicitationEvent, context?: ElicitationEventContext) => void,
    private readonly options: ElicitationEventChannelOptions,
  ) {
    this.head = eventMessageHead(origin);
    this.lastId = start.lastId;
    this.lastSeq = start.added;
  }

  /**
   * Opens a new channel, reading from where the stream ends now; `onRemoteEvent` receives the events other
   * channels send. Rejects with `ElicitationStoreUnavailableError` when Redis does not answer.
   */
  static async open(
    deps: RedisEventChannelDeps,
    onRemoteEvent: (event: ElicitationEvent, context?: ElicitationEventContext) => void,
    options: ElicitationEventChannelOptions = {},
  ): Promise<RedisEventChannel> {
    const start = await callRedis('openEventChannel', () => streamEnd(deps.redis, deps.stream));
    const name = connectionNameOf(deps.redis);
    const reader = duplicateClient(deps.redis, {
      commandTimeout: READ_TIMEOUT_MS,
      // A read lost with its connection is not sent again by ioredis: the channel reads anew from its last id,
      // after checking what it missed (Cluster: its node connections do not reconnect; the cluster client retries).
      ...(!isClusterClient(deps.redis) && { autoResendUnfulfilledCommands: false }),
      ...(name !== undefined && { connectionName: `${name}:events` }),
    });
    reader.on('error', () => undefined); // a failed read is handled (and logged) by the read loop
    const channel = new RedisEventChannel(deps, randomUUID(), reader, start, onRemoteEvent, options);
    void channel.run();
    return channel;
  }

  /**
   * The five arguments with which the CREATE, FINISH, EXTEND_EXPIRY or SWEEP script appends the event of a record it
   * makes a `type` transition of at `at` (`extended`: with the new `expiresAt`), so that the event is written in the
   * same step (see EventScriptArgs).
   */
  scriptEventArgs(type: ElicitationEvent['type'], at: number, expiresAt?: number): EventScriptArgs {
    return [
      this.deps.stream,
      this.deps.maxLength,
      this.deps.maxAgeMs,
      eventMessageStart(this.head, type),
      eventMessageEnd(at, this.trace(), expiresAt),
    ];
  }

  /** Notes that a script appended this event, so that `publish` does not send it again. */
  appendedInScript(id: string, type: ElicitationEvent['type'], at: number): void {
    this.sent.add(tag(id, type, at));
  }

  async publish(event: ElicitationEvent): Promise<void> {
    if (this.sent.take(tag(event.elicitationId, event.type, event.at))) return;
    const message = encodeEventMessage(this.head, event, this.deps.keys, this.trace());
    await callRedis('publish', () =>
      this.deps.scripts.elicitAppendEvent(this.deps.stream, this.deps.maxLength, this.deps.maxAgeMs, message),
    );
  }

  /** Whether events from the other instances can arrive now: the reader's connection is up and its last read did not fail. */
  isLive(): boolean {
    return !this.closed && this.reader.status === 'ready' && this.failures === 0;
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.deps.onClose(this);
    this.sent.stop();
    this.wake?.();
    this.reader.disconnect();
    return Promise.resolve();
  }

  /** The trace context to send, from the `trace` option (one that throws or is not a short string sends none). */
  private trace(): string | undefined {
    try {
      return sendableTrace(this.options.trace?.());
    } catch {
      return undefined;
    }
  }

  /** Reads the stream until the channel closes: each read starts after the last entry read. */
  private async run(): Promise<void> {
    while (!this.closed) {
      try {
        if (this.resuming) {
          await this.checkTrimmed();
          this.recovered();
        }
        const entries = await this.read();
        if (this.closed) return;
        this.recovered();
        if (entries.length > 0) this.deliver(entries);
        else if (this.lastSeq !== undefined) await this.recount();
      } catch (error) {
        if (this.closed) return;
        this.resuming = true;
        if (++this.failures === 1) {
          this.logger.warn(
            `Lost the connection that reads lifecycle events from ${this.deps.stream} (${error instanceof Error ? error.message : String(error)}): ` +
              `this instance reads them from ${this.lastId} on once Redis answers.`,
          );
        }
        // A client whose retryStrategy gave up has ended: connect again.
        if (this.reader.status === 'end') this.reader.connect().catch(() => undefined);
        await this.pause(retryDelayMs(this.failures));
      }
    }
  }

  /** After failed reads: Redis answers again. */
  private recovered(): void {
    if (this.failures === 0) return;
    this.failures = 0;
    this.logger.log(`Reading lifecycle events from ${this.deps.stream} again, from ${this.lastId} on.`);
  }

  /**
   * One XREAD after the last id, waiting up to READ_BLOCK_MS for something new. On a standalone or Sentinel
   * connection it rejects as soon as the connection drops (ioredis would not send the read again).
   */
  private read(): Promise<StreamEntry[]> {
    const reading = this.reader.xread(
      'COUNT',
      READ_COUNT,
      'BLOCK',
      READ_BLOCK_MS,
      'STREAMS',
      this.deps.stream,
      this.lastId,
    ) as Promise<unknown>;
    if (isClusterClient(this.reader)) return reading.then(entriesOf);
    const reader = this.reader;
    return new Promise<StreamEntry[]>((resolve, reject) => {
      const lost = () => reject(new Error('the connection closed'));
      reader.once('close', lost);
      reading.then(
        (reply) => {
          reader.off('close', lost);
          resolve(entriesOf(reply));
        },
        (error: unknown) => {
          reader.off('close', lost);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  /** Hands the entries' events to `onRemoteEvent`: not this channel's own, each event once, in stream order. */
  private deliver(entries: StreamEntry[]): void {
    for (const [id, fields] of entries) {
      this.lastId = id;
      if (this.lastSeq !== undefined) this.lastSeq++;
      const text = fieldValue(fields, EVENT_FIELD);
      // Its own messages start with its head: skipped before anything is parsed or opened.
      if (text === undefined || text.startsWith(this.head)) continue;
      const message = decodeEventMessage(text, this.deps.keys);
      if (!message || message.origin === this.origin || !this.seen.add(eventId(message.event))) continue;
      try {
        this.onRemoteEvent(message.event, message.trace === undefined ? {} : { trace: message.trace });
      } catch {
        // The event bus reports its listeners' failures; one must not stop the reading.
      }
    }
  }

  /**
   * Before the first read after a dropped connection (nothing read since): were entries after the last one
   * read trimmed meanwhile? Redis 7 counts the entries a stream was ever given (`entries-added`); those it no
   * longer holds were trimmed, oldest first, so `entries-added - length` beyond the count up to the last id
   * read were missed. Redis 6.2 shows only the oldest entry left: one newer than the last id read may mean a
   * loss (the entries between cannot be counted).
   */
  private async checkTrimmed(): Promise<void> {
    const info = await streamInfo(this.reader, this.deps.stream);
    this.resuming = false;
    if (!info) {
      // No stream (it expired, or Redis lost its data): nothing kept to miss; a stream made later is all new.
      if (this.lastSeq !== undefined) this.lastSeq = 0;
      return;
    }
    const advice =
      'this instance was cut off for longer than the stream keeps events (RedisElicitationStore options eventsMaxLength, eventsMaxAgeMs): ' +
      'tools waiting here on those elicitations wake at their timeout, and MCP clients see the outcome when they retry.';
    if (info.added !== undefined && this.lastSeq !== undefined) {
      // Fewer than counted: the stream was made anew since (after expiring); none of it was read yet.
      if (info.added < this.lastSeq) this.lastSeq = 0;
      const trimmed = info.added - info.length;
      const missed = trimmed - this.lastSeq;
      if (missed > 0) {
        this.logger.warn(
          `${missed} lifecycle event(s) after ${this.lastId} were trimmed from ${this.deps.stream} before this instance read them: ${advice}`,
        );
        this.lastSeq = trimmed;
      }
    } else if (info.firstId !== undefined && this.lastId !== '0-0' && compareStreamIds(info.firstId, this.lastId) > 0) {
      this.logger.warn(
        `Lifecycle events between ${this.lastId} and ${info.firstId} may have been trimmed from ${this.deps.stream} before this instance read them: ${advice}`,
      );
    }
  }

  /**
   * After a read that waited READ_BLOCK_MS for nothing: takes the stream's count anew while nothing is left to
   * read, so that it stays true across a stream made anew (one that expired while idle).
   */
  private async recount(): Promise<void> {
    const info = await streamInfo(this.reader, this.deps.stream);
    if (!info) this.lastSeq = 0;
    else if (info.lastGeneratedId === this.lastId && info.added !== undefined) this.lastSeq = info.added;
  }

  /** Waits `ms` (less if the channel closes meanwhile). */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      this.wake = done;
    });
  }
}

/** How SentInScript tells one event from another. */
function tag(id: string, type: ElicitationEvent['type'], at: number): string {
  return `${id} ${type} ${at}`;
}

/** Where a stream ends: the id of its last entry (`0-0` when it has none) and the count of entries it was given. */
interface StreamPosition {
  lastId: string;
  /** `entries-added` (Redis 7); `undefined` on Redis 6.2. */
  added: number | undefined;
}

/** What XINFO STREAM tells of a stream, or `undefined` when there is none. */
async function streamInfo(
  redis: RedisClient,
  stream: string,
): Promise<{ lastGeneratedId: string; added: number | undefined; length: number; firstId: string | undefined } | undefined> {
  let reply: unknown;
  try {
    reply = await redis.xinfo('STREAM', stream);
  } catch (error) {
    if (error instanceof Error && /no such key/i.test(error.message)) return undefined;
    throw error;
  }
  const fields = fieldMap(reply);
  const first = fields.get('first-entry');
  const added = fields.get('entries-added');
  const lastGeneratedId = fields.get('last-generated-id');
  return {
    lastGeneratedId: typeof lastGeneratedId === 'string' ? lastGeneratedId : '0-0',
    added: typeof added === 'number' ? added : undefined,
    length: Number(fields.get('length') ?? 0),
    firstId: Array.isArray(first) && typeof first[0] === 'string' ? first[0] : undefined,
  };
}

/**
 * The stream's end now (the last id it gave, so that every later entry is new; `0-0` and a count of 0 when
 * there is no stream yet, as every entry of a stream made later is new).
 */
async function streamEnd(redis: RedisClient, stream: string): Promise<StreamPosition> {
  const info = await streamInfo(redis, stream);
  return info ? { lastId: info.lastGeneratedId, added: info.added } : { lastId: '0-0', added: 0 };
}

/**
 * The entries of an XREAD reply on one stream: `[[stream, entries]]` (RESP2 shapes), or `{ stream: entries }`
 * / a Map (RESP3 shapes); none for `null` (the wait ended with nothing new).
 */
function entriesOf(reply: unknown): StreamEntry[] {
  let entries: unknown;
  if (Array.isArray(reply)) entries = Array.isArray(reply[0]) ? (reply[0] as unknown[])[1] : undefined;
  else if (reply instanceof Map) entries = [...(reply as Map<unknown, unknown>).values()][0];
  else if (typeof reply === 'object' && reply !== null) entries = Object.values(reply)[0];
  if (!Array.isArray(entries)) return [];
  return entries.filter((e): e is StreamEntry => Array.isArray(e) && typeof e[0] === 'string' && Array.isArray(e[1]));
}

/** The value of field `name` in an entry's `[name, value, ...]`, when it is a string. */
function fieldValue(fields: unknown[], name: string): string | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] === name && typeof fields[i + 1] === 'string') return fields[i + 1] as string;
  }
  return undefined;
}

/** XINFO's reply as a map: `[name, value, ...]` (RESP2 shapes), an object or a Map (RESP3 shapes). */
function fieldMap(reply: unknown): Map<string, unknown> {
  if (reply instanceof Map) return new Map([...(reply as Map<unknown, unknown>)].map(([k, v]) => [String(k), v]));
  if (Array.isArray(reply)) {
    const map = new Map<string, unknown>();
    for (let i = 0; i + 1 < reply.length; i += 2) map.set(String(reply[i]), reply[i + 1]);
    return map;
  }
  return new Map<string, unknown>(typeof reply === 'object' && reply !== null ? Object.entries(reply) : []);
}

/** Compares two stream ids (`<ms>-<seq>`): negative, zero or positive. */
export function compareStreamIds(a: string, b: string): number {
  const [am, as = '0'] = a.split('-');
  const [bm, bs = '0'] = b.split('-');
  const ms = BigInt(am) - BigInt(bm);
  if (ms !== 0n) return ms < 0n ? -1 : 1;
  const seq = BigInt(as) - BigInt(bs);
  return seq === 0n ? 0 : seq < 0n ? -1 : 1;
}
