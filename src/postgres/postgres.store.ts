import { ComposedElicitationStore, type StoreParts } from '../stores/composed-store.js';
import { boundedParts } from './postgres.parts.js';
import { Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import pg from 'pg';
import type { ElicitationEvent, ElicitationRecord, ExtendResult, TransitionResult } from '../core/elicitation.types.js';
import { eventMessageEnd, eventMessageStart } from '../stores/event-wire.js';
import { StoreKeyHolder } from '../stores/store-keys.js';
import { decodeData, sealRecord } from '../stores/sealed-record.codec.js';
import { COLUMNS, recordOf, recordOfJson, type RecordRow } from './postgres.rows.js';
import {
  type CounterHit,
  type CreatedReport,
  type CreateQuota,
  type CreateResult,
  type ElicitationEventChannel,
  type ElicitationEventChannelOptions,
  type ElicitationEventContext,
  type ElicitationStoreKeys,
  type EventSentReport,
  type ExtendChange,
  type FinishChange,
  type KeyRingEntry,
  type SweepReport,
} from '../stores/elicitation-store.js';
import type { OpenPage, OpenPageRequest } from '../stores/notice-store.js';
import { PostgresEventChannel } from './postgres.event-channel.js';
import { resolvePostgresStoreOptions, type PostgresElicitationStoreOptions } from './postgres.store-options.js';
import { channelOf, qualified, type PostgresNames } from './postgres.names.js';
import { createSchema } from './postgres.schema.js';
import { checkSchemaVersion } from './postgres.schema-version.js';
import { PostgresCounters } from './postgres.counters.js';
import { BoundedPool, openPool } from './postgres.bounded.js';
import { callPostgres } from './postgres.call.js';
import { announcePostgresKeyRing } from './postgres.key-rings.js';
import { PostgresTasks } from './postgres.tasks.js';
import { PostgresCallStates } from './postgres.call-states.js';
import { PostgresAuditChain } from './postgres.audit-chain.js';
import { PostgresPasskeys } from './postgres.passkeys.js';
import { listOpenPage } from './postgres.inbox.js';
import { PostgresNotices } from './postgres.notices.js';

export type { PostgresElicitationStoreOptions } from './postgres.store-options.js';

/**
 * The shared store on PostgreSQL, for apps that have a database and no Redis: the app's own `pg` `Pool` (or a
 * connection string: the store then opens and closes its pool). Every operation is one statement (a function of the
 * schema for each move, a `SELECT` for each read), and a move leaves `pending` by a compare-and-set under the row's
 * lock. Lifecycle events go in the same transaction as the move into an events table, announced by `NOTIFY` with
 * their id only (see `PostgresEventChannel`). Nothing names a user, type or IP address in clear: index columns hold
 * keyed hashes, records and tasks are sealed, under the keys `ElicitationModule` hands the store (`useKeys`).
 *
 * The schema: `createSchema()`, or the files of `sql/postgres/` run in order by your migration tool. At start-up the
 * store reads its version and refuses to start, naming the fix, when it is missing or another.
 */
export class PostgresElicitationStore extends ComposedElicitationStore implements OnModuleInit, OnModuleDestroy {
  override readonly shared: boolean = true;
  /** The pool in use (the app's, or the store's own). */
  readonly pool: pg.Pool;
  private readonly ownsPool: boolean;
  /** The pool as every operation uses it: each statement ended within `operationTimeoutMs`. */
  private readonly db: BoundedPool;
  private readonly names: PostgresNames;
  private readonly t: (object: string) => string;
  private readonly options: ReturnType<typeof resolvePostgresStoreOptions>;
  private readonly channels = new Set<PostgresEventChannel>();
  private readonly counters: PostgresCounters;
  protected readonly parts: StoreParts;
  private readonly logger = new Logger('PostgresElicitationStore');
  private readonly keyHolder = new StoreKeyHolder('PostgresElicitationStore', () => ({}));
  private closed = false;

  constructor(pool: pg.Pool | string, options: PostgresElicitationStoreOptions = {}) {
    super();
    this.options = resolvePostgresStoreOptions(options);
    this.names = { schema: this.options.schema, prefix: this.options.tablePrefix };
    this.t = (object) => qualified(this.names, object);
    const bound = this.options.operationTimeoutMs;
    ({ pool: this.pool, owned: this.ownsPool } = openPool(pool, bound));
    this.db = new BoundedPool(this.pool, bound, this.connection());
    this.counters = new PostgresCounters(this.db, this.t, () => this.require());
    const tasks = new PostgresTasks(this.db, this.t, () => this.require());
    const notices = new PostgresNotices(this.db, this.t, () => this.require());
    const callStates = new PostgresCallStates(this.db, this.t);
    const passkeys = new PostgresPasskeys(this.db, this.t, () => this.require());
    const auditChain = new PostgresAuditChain(this.db, this.t);
    this.parts = boundedParts({ tasks, callStates, notices, passkeys, auditChain }, (operation, run) => this.call(operation, run));
  }

  /**
   * Creates the tables and functions (idempotent), or brings a schema of an earlier version forward, in one transaction
   * under an advisory lock: for apps without migrations. Resolves once they are at `SCHEMA_VERSION`. A schema at this
   * version is left as it is (no DDL, so no lock on a live database's tables); one at a later version, a newer
   * release's, is refused (`ElicitationConfigError` naming both versions) and left as it is.
   */
  async createSchema(): Promise<void> {
    await createSchema(this.pool, this.names, (query) => this.call('createSchema', query));
  }

  /**
   * Checks the schema's version before the module starts: refuses, naming the fix, when it is missing or older, and
   * when it is newer (never downgraded).
   */
  async onModuleInit(): Promise<void> {
    await checkSchemaVersion(this.db, this.names);
  }

  async onModuleDestroy(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.channels].map((c) => c.close()));
    if (this.ownsPool) await this.pool.end().catch(() => undefined);
  }

  /** Takes the module's keys; a config error when the store already has other keys: a store serves one key ring. */
  override useKeys(keys: ElicitationStoreKeys): void {
    this.keyHolder.use(keys);
  }

  async create(record: ElicitationRecord, quota?: CreateQuota): Promise<CreateResult | CreatedReport> {
    const keys = this.require();
    const { eventPart, sealed } = sealRecord(record, keys);
    const users = keys.names('user', record.userId);
    const channel = this.eventChannel();
    const event = channel && eventMessageStart(channel.head, 'created') + eventPart + eventMessageEnd(record.createdAt, channel.traceNow());
    const window = quota && (Math.floor(record.createdAt / quota.windowMs) + 1) * quota.windowMs;
    const { rows } = await this.call('create', () =>
      this.db.query<{ result: CreateResult }>(
        `SELECT ${this.t('create')}($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) AS result`,
        [
          record.id,
          eventPart,
          sealed,
          users[0],
          users,
          keys.names('completed', record.userId, record.type)[0],
          record.askKey === undefined ? null : keys.names('asked', record.userId, record.askKey)[0],
          record.createdAt,
          record.expiresAt,
          record.purgeAt,
          quota ? `rate:${users[0]}` : null,
          window ?? null,
          quota?.perUserLimit ?? null,
          quota?.maxPendingPerUser ?? null,
          quota?.maxPending ?? null,
          event ?? null,
        ],
      ),
    );
    const result = rows[0].result;
    return result === 'created' && event ? { result, eventSent: true } : result;
  }

  async get(id: string, now: number): Promise<ElicitationRecord | undefined> {
    const keys = this.require();
    const { rows } = await this.call('get', () =>
      this.db.query<RecordRow>(`SELECT ${COLUMNS} FROM ${this.t('records')} WHERE id = $1 AND purge_at > $2`, [id, now]),
    );
    return rows[0] ? recordOf(rows[0], keys) : undefined;
  }

  async finish(id: string, change: FinishChange): Promise<TransitionResult & EventSentReport> {
    const keys = this.require();
    const channel = this.eventChannel();
    const { rows } = await this.call('finish', () =>
      this.db.query<{ moved: boolean; row_json: string }>(`SELECT moved, row_json FROM ${this.t('finish')}($1, $2, $3, $4, $5, $6, $7)`, [
        id,
        change.status,
        change.data === undefined ? null : JSON.stringify(change.data),
        change.now,
        change.purgeAt,
        channel ? eventMessageStart(channel.head, change.status) : null,
        channel ? eventMessageEnd(change.now, channel.traceNow()) : null,
      ]),
    );
    if (!rows[0]) return { ok: false, reason: 'not-found' };
    const record = recordOfJson(rows[0].row_json, keys);
    if (rows[0].moved) return { ok: true, record, ...(channel && { eventSent: true }) };
    if (record.status !== 'pending') return { ok: false, reason: 'already-finished', status: record.status, record };
    return { ok: false, reason: 'expired', record };
  }

  override async extend(id: string, change: ExtendChange): Promise<ExtendResult & EventSentReport> {
    const keys = this.require();
    const channel = this.eventChannel();
    const { rows } = await this.call('extend', () =>
      this.db.query<{ moved: boolean; row_json: string }>(`SELECT moved, row_json FROM ${this.t('extend')}($1, $2, $3, $4, $5, $6)`, [
        id,
        change.expiresAt,
        change.purgeAt,
        change.now,
        channel ? eventMessageStart(channel.head, 'extended') : null,
        channel ? eventMessageEnd(change.now, channel.traceNow(), change.expiresAt) : null,
      ]),
    );
    if (!rows[0]) return { ok: false, reason: 'not-found' };
    const record = recordOfJson(rows[0].row_json, keys);
    if (rows[0].moved) return { ok: true, record, ...(channel && { eventSent: true }) };
    if (record.status !== 'pending') return { ok: false, reason: 'already-finished', status: record.status, record };
    if (record.expiresAt <= change.now) return { ok: false, reason: 'expired', record };
    return { ok: false, reason: 'already-extended', record };
  }

  async consume(id: string, now: number): Promise<ElicitationRecord | undefined> {
    const keys = this.require();
    const { rows } = await this.call('consume', () =>
      this.db.query<{ taken: string | null }>(`SELECT ${this.t('consume')}($1, $2) AS taken`, [id, now]),
    );
    const taken = rows[0]?.taken;
    if (!taken) return undefined;
    const { row, data } = JSON.parse(taken) as { row: RecordRow; data: string | null };
    const record = recordOf(row, keys);
    if (data !== null) record.data = decodeData(data);
    return record;
  }

  async findLatestCompleted(userId: string, type: string, now: number): Promise<ElicitationRecord | undefined> {
    const keys = this.require();
    const { rows } = await this.call('findLatestCompleted', () =>
      this.db.query<RecordRow>(
        `SELECT ${COLUMNS} FROM ${this.t('records')} WHERE type_name = ANY($1) AND status = 'completed' AND consumed_at IS NULL
         AND purge_at > $2 ORDER BY finished_at DESC, created_at DESC LIMIT 1`,
        [keys.names('completed', userId, type), now],
      ),
    );
    return rows[0] ? recordOf(rows[0], keys) : undefined;
  }

  async listByUser(userId: string, now: number): Promise<ElicitationRecord[]> {
    return this.list('listByUser', 'user_name', this.require().names('user', userId), now, 'ASC');
  }

  override async findByAskKey(userId: string, askKey: string, now: number): Promise<ElicitationRecord[]> {
    return this.list('findByAskKey', 'ask_name', this.require().names('asked', userId, askKey), now, 'DESC');
  }

  /** A page of the user's open records, newest first: one statement, on the index `records_open` (postgres.inbox.ts). */
  override listOpen(userId: string, now: number, page: OpenPageRequest): Promise<OpenPage> {
    return this.call('listOpen', () => listOpenPage(this.db, this.t, this.require(), userId, now, page));
  }

  /** One statement per batch of due records, again while a batch is full (what is past its time goes with the first). */
  async sweep(now: number, retentionMs: number): Promise<SweepReport> {
    const keys = this.require();
    const channel = this.eventChannel();
    const expired: ElicitationRecord[] = [];
    for (;;) {
      const { rows } = await this.call('sweep', () =>
        this.db.query<{ row: string }>(`SELECT ${this.t('sweep')}($1, $2, $3, $4, $5, $6, $7) AS row`, [
          now,
          retentionMs,
          this.options.sweepBatch,
          channel ? eventMessageStart(channel.head, 'expired') : null,
          channel ? eventMessageEnd(now, channel.traceNow()) : null,
          now - this.options.eventsMaxAgeMs,
          this.options.eventsMaxCount,
        ]),
      );
      for (const r of rows) expired.push(recordOfJson(r.row, keys));
      if (rows.length < this.options.sweepBatch) break;
    }
    return { expired, ...(channel && expired.length > 0 && { eventSent: true }) };
  }

  override async ping(): Promise<void> {
    await this.call('ping', () => this.db.query('SELECT 1'));
  }

  override async openEventChannel(
    onRemoteEvent: (event: ElicitationEvent, context?: ElicitationEventContext) => void,
    options?: ElicitationEventChannelOptions,
  ): Promise<ElicitationEventChannel> {
    const keys = this.require();
    const channel = await this.call('openEventChannel', () =>
      PostgresEventChannel.open(
        {
          pool: this.db,
          connection: { ...this.connection(), connectionTimeoutMillis: this.options.operationTimeoutMs },
          keys,
          channel: channelOf(this.names),
          events: this.t('events'),
          emit: this.t('emit'),
          pollMs: this.options.eventPollMs,
          onClose: (c) => this.channels.delete(c),
        },
        onRemoteEvent,
        options,
      ),
    );
    this.channels.add(channel);
    return channel;
  }

  override announceKeyRing(entry: KeyRingEntry, now: number, ttlMs: number): Promise<KeyRingEntry[]> {
    return this.call('announceKeyRing', () => announcePostgresKeyRing(this.db, this.t, entry, now, ttlMs));
  }

  hit(key: string, windowMs: number, now: number): Promise<CounterHit> {
    return this.call('hit', () => this.counters.hit(key, windowMs, now));
  }

  override peekHits(key: string, windowMs: number, now: number): Promise<number> {
    return this.call('peekHits', () => this.counters.peek(key, windowMs, now));
  }

  /** The records of an index, not purged, in creation order. */
  private async list(operation: string, column: string, names: readonly string[], now: number, order: 'ASC' | 'DESC') {
    const keys = this.require();
    const { rows } = await this.call(operation, () =>
      this.db.query<RecordRow>(
        `SELECT ${COLUMNS} FROM ${this.t('records')} WHERE ${column} = ANY($1) AND purge_at > $2 ORDER BY created_at ${order}`,
        [names, now],
      ),
    );
    return rows.map((row) => recordOf(row, keys));
  }

  /** How the pool reaches the server (for the event connection and cancel requests). */
  private connection(): pg.ClientConfig {
    return (this.pool as unknown as { options: pg.ClientConfig }).options;
  }

  /** The channel the functions append events for: the only one open on this store (as in Redis). */
  private eventChannel(): PostgresEventChannel | undefined {
    return this.channels.size === 1 ? this.channels.values().next().value : undefined;
  }

  private require(): ElicitationStoreKeys {
    return this.keyHolder.require().keys;
  }

  private call<T>(operation: string, run: () => Promise<T>): Promise<T> {
    return callPostgres(this.logger, this.names, operation, run);
  }
}
