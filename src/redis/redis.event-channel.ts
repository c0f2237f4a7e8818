import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { ElicitationEvent } from '../core/elicitation.types.js';
import type { ElicitationEventChannel, ElicitationEventChannelOptions, ElicitationEventContext } from '../stores/elicitation-store.js';
import { callRedis, connectionNameOf, duplicateClient, isClusterClient, type RedisClient } from './redis.client.js';
import { RecentIds } from './redis.event-repeats.js';
import {
  decodeEventMessage,
  encodeEventMessage,
  eventId,
  eventMessageEnd,
  eventMessageHead,
  eventMessageStart,
  sendableTrace,
  type EventSealing,
} from '../stores/event-wire.js';
import { EVENT_FIELD } from './redis.lua-parts.js';
import type { Scripts } from './redis.scripts.js';
import {
  compareStreamIds,
  fieldValue,
  READ_TIMEOUT_MS,
  readAfter,
  streamEnd,
  streamInfo,
  type StreamEntry,
  type StreamPosition,
} from './redis.stream-reader.js';

export { compareStreamIds } from './redis.stream-reader.js';

/** Events remembered to drop a resent append: two generations of up to this many each. */
const SEEN_GENERATION = 5_000;
/** The pause after a failed read: 100 ms more per failure in a row, up to a second (the store's reconnect pace). */
const retryDelayMs = (failures: number) => Math.min(100 * failures, 1_000);

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
 *   twice (an append ioredis sent again after a dropped connection: see `RecentIds`) is delivered once, by its id
 *   (`eventId`).
 * - A message arrives with its user, kind, type and session sealed (stores/event-wire.ts); the channel opens
 *   them, so listeners get the whole event, and drops what it cannot open (another key ring). The sender's
 *   trace context arrives beside the event (`ElicitationEventContext.trace`).
 */
export class RedisEventChannel implements ElicitationEventChannel {
  /** What this channel's messages start with, up to the event's type (exclusive). */
  private readonly head: string;
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

  /**
   * Appends an event no script appended (the store's result did not report it sent, so the module publishes it):
   * one round trip.
   */
  async publish(event: ElicitationEvent): Promise<void> {
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
        const entries = await readAfter(this.reader, this.deps.stream, this.lastId);
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
