import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import pg from 'pg';
import type { PostgresQueries } from './postgres.bounded.js';
import type { ElicitationEvent } from '../core/elicitation.types.js';
import type { ElicitationEventChannel, ElicitationEventChannelOptions, ElicitationEventContext } from '../stores/elicitation-store.js';
import {
  decodeEventMessage,
  encodeEventMessage,
  eventId,
  eventMessageHead,
  eventMessageOrigin,
  sendableTrace,
  type EventSealing,
} from '../stores/event-wire.js';

/** What a channel needs of its store. */
export interface PostgresEventChannelDeps {
  /** The store's statements, each bounded (`operationTimeoutMs`). */
  pool: PostgresQueries;
  /** The connection settings of the listening connection (the pool's own). */
  connection: pg.ClientConfig;
  keys: EventSealing;
  /** `NOTIFY` channel and events table of the store. */
  channel: string;
  events: string;
  emit: string;
  /** How often the table is read without a notification (a backstop). */
  pollMs: number;
  onClose: (channel: PostgresEventChannel) => void;
}

/** Rows read again after a reconnect, before the last one seen (ids are taken before their transaction commits). */
const CATCH_UP_MARGIN = 1_000;
/** Row ids remembered, so that a row read twice (the margin) is delivered once. */
const SEEN_KEPT = 10_000;
/** Reconnect backoff, milliseconds. */
const RECONNECT_MS = [100, 250, 500, 1_000, 2_000, 5_000];

/**
 * Lifecycle events between instances on PostgreSQL: the store's functions append an event row in the transaction of
 * the move and `NOTIFY` its id; each instance listens on one dedicated connection (outside the pool, so that a pool
 * behind PgBouncer in transaction mode still works) and reads the rows it was told of, and every row after the last
 * it read. After a reconnect it reads from the last row it saw (a margin before it too), and a poll every `pollMs`
 * reads what a lost notification left: nothing the table still keeps is lost, nothing is delivered twice.
 */
export class PostgresEventChannel implements ElicitationEventChannel {
  /** This channel, as its messages name their sender (it skips its own). */
  readonly origin = randomUUID();
  readonly head: string;
  /** How its own messages start (`eventMessageOrigin`): in a notification's payload, and in the rows it reads. */
  private readonly ownStart: string;
  private readonly logger = new Logger('PostgresElicitationStore');
  private listener: pg.Client | undefined;
  private last = 0;
  private readonly told = new Set<number>();
  private readonly seen = new Set<number>();
  private readonly delivered = new Set<string>();
  private closed = false;
  private live = false;
  private reading: Promise<void> = Promise.resolve();
  /** A read is queued and has not started yet: it will see every row committed by then, so no other is queued. */
  private readQueued = false;
  /** The largest `margin` asked of the queued read. */
  private queuedMargin = 0;
  private poll: NodeJS.Timeout | undefined;
  private attempt = 0;

  private constructor(
    private readonly deps: PostgresEventChannelDeps,
    private readonly onRemoteEvent: (event: ElicitationEvent, context?: ElicitationEventContext) => void,
    private readonly trace?: ElicitationEventChannelOptions['trace'],
  ) {
    this.head = eventMessageHead(this.origin);
    this.ownStart = eventMessageOrigin(this.origin);
  }

  /** Opens a channel reading from the table's end (events appended from now on). */
  static async open(
    deps: PostgresEventChannelDeps,
    onRemoteEvent: (event: ElicitationEvent, context?: ElicitationEventContext) => void,
    options?: ElicitationEventChannelOptions,
  ): Promise<PostgresEventChannel> {
    const channel = new PostgresEventChannel(deps, onRemoteEvent, options?.trace);
    const { rows } = await deps.pool.query<{ last: string | null }>(`SELECT max(id) AS last FROM ${deps.events}`);
    channel.last = Number(rows[0]?.last ?? 0);
    await channel.connect();
    channel.poll = setInterval(() => channel.read(), deps.pollMs);
    channel.poll.unref();
    return channel;
  }

  /** The trace context to send with an event now (see `ElicitationEventChannelOptions.trace`). */
  traceNow(): string | undefined {
    try {
      return sendableTrace(this.trace?.());
    } catch {
      return undefined;
    }
  }

  async publish(event: ElicitationEvent): Promise<void> {
    const message = encodeEventMessage(this.head, event, this.deps.keys, this.traceNow());
    await this.deps.pool.query(`SELECT ${this.deps.emit}($1, $2)`, [event.at, message]);
  }

  isLive(): boolean {
    return this.live && !this.closed;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.live = false;
    clearInterval(this.poll);
    this.deps.onClose(this);
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
    await this.reading;
  }

  /** The listening connection: `LISTEN`, then a catch-up read; on its loss, another after a backoff. */
  private async connect(): Promise<void> {
    const listener = new pg.Client(this.deps.connection);
    listener.on('notification', (message) => {
      const [id, origin] = splitPayload(message.payload);
      // Its own events this channel need not read (the poll reads past them); a payload without the origin (a schema
      // before version 4) is read.
      if (origin === this.ownStart) return;
      if (Number.isSafeInteger(id)) this.told.add(id);
      this.read();
    });
    listener.on('error', () => undefined); // 'end' follows and reconnects
    listener.on('end', () => {
      if (this.listener !== listener) return;
      this.listener = undefined;
      this.live = false;
      if (!this.closed) this.reconnect();
    });
    await listener.connect();
    await listener.query(`LISTEN ${this.deps.channel}`);
    if (this.closed) return void (await listener.end().catch(() => undefined));
    this.listener = listener;
    this.live = true;
    this.attempt = 0;
  }

  private reconnect(): void {
    const wait = RECONNECT_MS[Math.min(this.attempt++, RECONNECT_MS.length - 1)];
    setTimeout(() => {
      if (this.closed) return;
      this.connect()
        .then(() => this.read(CATCH_UP_MARGIN))
        .catch((error: unknown) => {
          this.logger.warn(`The event connection to PostgreSQL failed (${String(error)}); trying again.`);
          this.reconnect();
        });
    }, wait).unref();
  }

  /**
   * Reads the rows after the last seen (and those announced), one read at a time. Notifications that arrive while
   * a read waits to start share it: it starts after all of them, so it reads their rows (a burst of 32 completions
   * costs a few reads, not 32 one after the other; guarded by the postgres.bench row "postgres cross-instance
   * completion latency p99"). One that arrives once the read has started queues the next.
   */
  private read(margin = 0): void {
    this.queuedMargin = Math.max(this.queuedMargin, margin);
    if (this.readQueued) return;
    this.readQueued = true;
    this.reading = this.reading
      .then(() => {
        this.readQueued = false;
        const queued = this.queuedMargin;
        this.queuedMargin = 0;
        return this.readOnce(queued);
      })
      .catch(() => undefined);
  }

  private async readOnce(margin: number): Promise<void> {
    if (this.closed) return;
    const told = [...this.told];
    this.told.clear();
    const { rows } = await this.deps.pool.query<{ id: string; message: string }>(
      `SELECT id, message FROM ${this.deps.events} WHERE id > $1 OR id = ANY($2::bigint[]) ORDER BY id LIMIT 5000`,
      [Math.max(0, this.last - margin), told],
    );
    for (const row of rows) {
      const id = Number(row.id);
      if (id > this.last) this.last = id;
      if (this.seen.has(id)) continue;
      this.remember(this.seen, id);
      if (row.message.startsWith(this.ownStart)) continue; // its own: nothing to open
      const decoded = decodeEventMessage(row.message, this.deps.keys);
      if (!decoded || decoded.origin === this.origin) continue;
      const key = eventId(decoded.event);
      if (this.delivered.has(key)) continue;
      this.remember(this.delivered, key);
      this.onRemoteEvent(decoded.event, decoded.trace === undefined ? undefined : { trace: decoded.trace });
    }
    if (rows.length === 5000) this.read();
  }

  private remember<T>(set: Set<T>, value: T): void {
    set.add(value);
    if (set.size > SEEN_KEPT) set.delete(set.values().next().value as T);
  }
}

/** A notification's payload: the event row's id, and (schema version 4 on) the start of its message after a space. */
function splitPayload(payload: string | undefined): [number, string | undefined] {
  const space = payload?.indexOf(' ') ?? -1;
  if (payload === undefined || space < 0) return [Number(payload), undefined];
  return [Number(payload.slice(0, space)), payload.slice(space + 1)];
}
