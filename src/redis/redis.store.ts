import { ComposedElicitationStore, type StoreParts } from '../stores/composed-store.js';
import { Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { RedisOptions } from 'ioredis';
import type { ElicitationEvent, ElicitationRecord, ExtendResult, TransitionResult } from '../core/elicitation.types.js';
import { ElicitationKeyError } from '../errors/elicitation-key.error.js';
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
import { checkAnnouncedKeyRing } from '../security/key-ring-check.js';
import { runAskedUpgrade } from './redis.asked-upgrade.js';
import { callRedis, connectOwnClient, isRedisClient, type RedisClient } from './redis.client.js';
import { keyRingEntryOf, redisStoreKeys } from './redis.key-ring.js';
import { keySpace, type RedisKeySpace } from './redis.key-space.js';
import { encodeImmutableFields, FIELDS, finishedRecord, liveRecords, toRecord } from './redis.row-codec.js';
import { RedisTasks } from './redis.tasks.js';
import { RedisCallStates } from './redis.call-states.js';
import { RedisAuditChain } from './redis.audit-chain.js';
import { RedisPasskeys } from './redis.passkeys.js';
import { RedisCounters } from './redis.counters.js';
import { RedisNotices } from './redis.notices.js';
import { listOpenRecords } from './redis.open-list.js';
import { defineScripts, type Scripts } from './redis.scripts.js';
import { NO_EVENT, RedisStoreChannels } from './redis.store-channels.js';
import { resolveRedisStoreOptions, type RedisElicitationStoreOptions } from './redis.store-options.js';

export type { RedisElicitationStoreOptions } from './redis.store-options.js';

/**
 * The shared store for several app instances, on Redis through ioredis (standalone, Sentinel or
 * Cluster). Every operation is one round trip: a Lua script (sent as EVALSHA) or a single command, and
 * completion is an atomic compare-and-set. Lifecycle events travel between instances in a Redis Stream
 * (`{prefix}:v2:events`, capped by `eventsMaxLength` and `eventsMaxAgeMs`), which each instance reads on a
 * dedicated connection from the last event it read, so a dropped connection loses no event the stream still
 * keeps (see redis.event-channel.ts). While exactly one event channel is open on the store, `create`,
 * `finish`, `extend` and `sweep` append the events of the records they create, finish, extend and expire from
 * their own scripts, and say so in their results (`eventSent`, see `EventSentReport`): the module then does not
 * publish those events again.
 *
 * No key name, value or event holds a user id, a type, an IP address or a message in clear: names are keyed
 * hashes and records and events are sealed, under the keys `ElicitationModule` hands the store from its
 * `encryptionKey` when it starts (`useKeys`). Until then every operation but `ping` throws.
 *
 * Pass a client you own (the store never closes it) or a URL / ioredis options (the store creates the
 * connection, fails commands fast while Redis is down, and closes it on shutdown).
 */
export class RedisElicitationStore extends ComposedElicitationStore implements OnModuleInit, OnModuleDestroy {
  /** Several instances use one Redis: `encryptionKey` is required in every environment, and each announces its ring. */
  override readonly shared: boolean = true;
  /** The ioredis client in use. */
  readonly redis: RedisClient;
  private readonly ownsClient: boolean;
  private readonly scripts: Scripts;
  private readonly keys: RedisKeySpace;
  private readonly graceMs: number;
  private readonly sweepBatch: number;
  private readonly channels: RedisStoreChannels;
  /** Set by the first `onModuleDestroy`. */
  private closed: Promise<void> | undefined;
  /** The module's keys and the names they give, once `useKeys` was called. */
  private readonly keyRing = redisStoreKeys();
  /** Set by the first `onModuleInit`: the asked index's upgrade started on this instance. */
  private upgradeStarted = false;
  /** The asked index's upgrade while it runs here: `findByAskKey` waits for it (then unset, so it costs nothing). */
  private upgrading: Promise<void> | undefined;
  private readonly tasks: RedisTasks;
  private readonly callStates: RedisCallStates;
  private readonly counters: RedisCounters;
  private readonly notices: RedisNotices;
  protected readonly parts: StoreParts;

  constructor(client: RedisClient | string | RedisOptions, options: RedisElicitationStoreOptions = {}) {
    super();
    const resolved = resolveRedisStoreOptions(options);
    this.keys = keySpace(resolved.keyPrefix);
    this.graceMs = resolved.graceMs;
    this.sweepBatch = resolved.sweepBatch;
    if (typeof client === 'string' || !isRedisClient(client)) {
      this.redis = connectOwnClient(client);
      this.ownsClient = true;
    } else {
      this.redis = client;
      this.ownsClient = false;
    }
    this.scripts = defineScripts(this.redis);
    this.tasks = new RedisTasks(this.scripts, this.keys.base, this.keyRing, this.graceMs);
    this.callStates = new RedisCallStates(this.redis, this.keys.base);
    this.counters = new RedisCounters(this.redis, this.scripts, this.keys, this.keyRing);
    this.notices = new RedisNotices(this.scripts, this.keys.base, this.graceMs);
    this.parts = {
      tasks: this.tasks,
      callStates: this.callStates,
      notices: this.notices,
      passkeys: new RedisPasskeys(this.redis, this.keys.base, this.keyRing),
      auditChain: new RedisAuditChain(this.redis, this.keys.base),
    };
    this.channels = new RedisStoreChannels({
      redis: this.redis,
      scripts: this.scripts,
      stream: this.keys.events,
      maxLength: resolved.eventsMaxLength,
      maxAgeMs: resolved.eventsMaxAgeMs,
    });
  }

  /**
   * Takes the keys of the module's `encryptionKey` (ElicitationModule calls it when it starts). Throws
   * `ElicitationConfigError` when the store already has other keys: a store serves one key ring.
   */
  override useKeys(keys: ElicitationStoreKeys): void {
    this.keyRing.use(keys);
  }

  /** With one event channel open, the CREATE script appends the `created` event too, and the result says so. */
  async create(record: ElicitationRecord, quota?: CreateQuota): Promise<CreateResult | CreatedReport> {
    const { keys, names } = this.keyRing.require();
    const { v, j } = encodeImmutableFields(record, keys);
    const users = names.user(record.userId);
    // Fixed windows aligned to multiples of windowMs, so every instance counts in the same one.
    const window = quota ? Math.floor(record.createdAt / quota.windowMs) : 0;
    const channel = this.channels.scriptChannel();
    const keyList = [
      this.keys.record(record.id),
      this.keys.deadlines,
      this.keys.pending,
      this.keys.user(users[0]),
      ...users.map((user) => this.keys.rate(user, window)),
    ];
    const created = await callRedis('create', () =>
      this.scripts.elicitCreate(
        keyList.length,
        ...keyList,
        record.id,
        v,
        j,
        names.completed(record.userId, record.type)[0],
        record.createdAt,
        record.expiresAt,
        record.purgeAt,
        this.graceMs,
        quota?.perUserLimit ?? '',
        quota?.windowMs ?? '',
        quota?.maxPendingPerUser ?? '',
        quota?.maxPending ?? '',
        ...(channel ? channel.scriptEventArgs('created', record.createdAt) : NO_EVENT),
        record.askKey === undefined ? '' : names.asked(record.userId, record.askKey)[0],
        this.keys.base,
        ...users,
      ),
    );
    if (created === 0) throw new Error(`Elicitation id collision: ${record.id}`);
    if (created !== 1) return created;
    return channel ? { result: 'created', eventSent: true } : 'created';
  }

  async consume(id: string, now: number): Promise<ElicitationRecord | undefined> {
    const { keys } = this.keyRing.require();
    const row = await callRedis('consume', () => this.scripts.elicitConsume(this.keys.record(id), now, this.keys.base, id));
    return row ? toRecord(row, keys) : undefined;
  }

  hit(key: string, windowMs: number, now: number): Promise<CounterHit> {
    return this.counters.hit(key, windowMs, now);
  }

  override peekHits(key: string, windowMs: number, now: number): Promise<number> {
    return this.counters.peek(key, windowMs, now);
  }

  async get(id: string, now: number): Promise<ElicitationRecord | undefined> {
    const { keys } = this.keyRing.require();
    const row = await callRedis('get', () => this.redis.hmget(this.keys.record(id), ...FIELDS));
    if (row[0] === null || row[1] === null) return undefined;
    const record = toRecord(row, keys);
    return record.purgeAt <= now ? undefined : record;
  }

  /** With one event channel open, the FINISH script appends the event of the move too, and the result says so. */
  async finish(id: string, change: FinishChange): Promise<TransitionResult & EventSentReport> {
    const { keys } = this.keyRing.require();
    const data = change.status === 'completed' && change.data ? JSON.stringify(change.data) : '';
    const channel = this.channels.scriptChannel();
    const args: Array<string | number> = [id, change.status, change.now, change.purgeAt, data, this.keys.base, this.graceMs];
    if (channel) args.push(...channel.scriptEventArgs(change.status, change.now));
    const reply = await callRedis('finish', () =>
      this.scripts.elicitFinish(this.keys.record(id), this.keys.deadlines, this.keys.pending, ...args),
    );
    if (reply === 0) return { ok: false, reason: 'not-found' };
    if (reply.length === 3) {
      const record = finishedRecord(reply, change, data, keys);
      return channel ? { ok: true, record, eventSent: true } : { ok: true, record };
    }
    const record = toRecord(reply, keys);
    if (record.status === 'pending') return { ok: false, reason: 'expired', record };
    return { ok: false, reason: 'already-finished', status: record.status, record };
  }

  /**
   * "Need more time?" in one script (EXTEND_EXPIRY): the compare-and-set on a pending, not yet extended record, its
   * deadline and TTLs moved on, and (with one event channel open) the `extended` event appended in the same step,
   * which the result says (`eventSent`).
   */
  override async extend(id: string, change: ExtendChange): Promise<ExtendResult & EventSentReport> {
    const { keys } = this.keyRing.require();
    const channel = this.channels.scriptChannel();
    const args: Array<string | number> = [id, change.now, change.expiresAt, change.purgeAt, this.keys.base, this.graceMs];
    if (channel) args.push(...channel.scriptEventArgs('extended', change.now, change.expiresAt));
    const reply = await callRedis('extend', () =>
      this.scripts.elicitExtend(this.keys.record(id), this.keys.deadlines, this.keys.pending, ...args),
    );
    if (reply === 0) return { ok: false, reason: 'not-found' };
    const [extended, row] = reply;
    const record = toRecord(row, keys);
    if (extended === 1) return channel ? { ok: true, record, eventSent: true } : { ok: true, record };
    if (record.status !== 'pending') return { ok: false, reason: 'already-finished', status: record.status, record };
    if (change.now >= record.expiresAt) return { ok: false, reason: 'expired', record };
    return { ok: false, reason: 'already-extended', record };
  }

  async findLatestCompleted(userId: string, type: string, now: number): Promise<ElicitationRecord | undefined> {
    const { keys, names } = this.keyRing.require();
    const indexes = names.completed(userId, type).map((name) => this.keys.completed(name));
    const row = await callRedis('findLatestCompleted', () =>
      this.scripts.elicitFindLatest(indexes.length, ...indexes, now, this.keys.base),
    );
    return row ? toRecord(row, keys) : undefined;
  }

  async listByUser(userId: string, now: number): Promise<ElicitationRecord[]> {
    const { keys, names } = this.keyRing.require();
    const indexes = names.user(userId).map((name) => this.keys.user(name));
    const rows = await callRedis('listByUser', () => this.scripts.elicitList(indexes.length, ...indexes, this.keys.base));
    return liveRecords(rows, keys, now, 'oldest first');
  }

  /** One script over the user's pending records (redis.open-list.ts): the page sorted and cut in Redis. */
  override listOpen(userId: string, now: number, page: OpenPageRequest): Promise<OpenPage> {
    const { keys, names } = this.keyRing.require();
    return listOpenRecords({ scripts: this.scripts, keys: this.keys, sealing: keys, userNames: names.user(userId) }, now, page);
  }

  /**
   * One script (FIND_ASKED) over the user's asked index of `askKey`, under each name of the ring. While this instance
   * files the records written before the index (`onModuleInit`), it waits for that first.
   */
  override async findByAskKey(userId: string, askKey: string, now: number): Promise<ElicitationRecord[]> {
    if (this.upgrading) await this.upgrading;
    const { keys, names } = this.keyRing.require();
    const indexes = names.asked(userId, askKey).map((name) => this.keys.asked(name));
    const rows = await callRedis('findByAskKey', () => this.scripts.elicitFindAsked(indexes.length, ...indexes, this.keys.base));
    return liveRecords(rows, keys, now, 'newest first');
  }

  /**
   * Resolves records read back from Redis: the caller's own objects. With one event channel open the SWEEP script
   * appends their `expired` events too, and the answer says so (`{ expired, eventSent: true }`).
   */
  async sweep(now: number, retentionMs: number): Promise<ReadonlyArray<Readonly<ElicitationRecord>> | SweepReport> {
    const { keys } = this.keyRing.require();
    const expired: ElicitationRecord[] = [];
    const channel = this.channels.scriptChannel();
    const events = channel ? channel.scriptEventArgs('expired', now) : [];
    for (;;) {
      const [handled, rows] = await callRedis('sweep', () =>
        this.scripts.elicitSweep(this.keys.deadlines, now, retentionMs, this.keys.base, this.sweepBatch, this.graceMs, ...events),
      );
      for (const row of rows) {
        // A record another instance sealed under a key this one lacks is expired all the same; it is reported,
        // not announced (a warned, never a refused, configuration: see announceKeyRing).
        try {
          expired.push(toRecord(row, keys));
        } catch (error) {
          if (!(error instanceof ElicitationKeyError)) throw error;
          new Logger('RedisElicitationStore').warn(`The sweep expired a record it cannot announce. ${error.message}`);
        }
      }
      if (handled < this.sweepBatch) return channel ? { expired, eventSent: true } : expired;
    }
  }

  override async ping(): Promise<void> {
    await callRedis('ping', () => this.redis.ping());
  }

  /**
   * Opens a channel on the event stream, reading from its end (events appended from now on); see
   * `RedisEventChannel`. Rejects with `ElicitationStoreUnavailableError` when Redis does not answer.
   */
  override async openEventChannel(
    onRemoteEvent: (event: ElicitationEvent, context?: ElicitationEventContext) => void,
    options?: ElicitationEventChannelOptions,
  ): Promise<ElicitationEventChannel> {
    return this.channels.open(this.keyRing.require().keys, onRemoteEvent, options);
  }

  /**
   * Records `entry` in `{prefix}:v2:k` until `now + ttlMs` (`ttlMs: 0` removes it) and resolves the live entries
   * (see `ElicitationRecordStore.announceKeyRing`): one script, one round trip. Key ids only, never keys.
   */
  override async announceKeyRing(entry: KeyRingEntry, now: number, ttlMs: number): Promise<KeyRingEntry[]> {
    checkAnnouncedKeyRing(entry);
    const members = await callRedis('announceKeyRing', () =>
      this.scripts.elicitKeyRings(this.keys.keyRings, now, entry.instanceId, entry.keyIds.join(','), ttlMs > 0 ? now + ttlMs : '', ttlMs),
    );
    return members.map(keyRingEntryOf);
  }

  /**
   * Nest calls it when the app starts, after the module handed the store its keys: once per key prefix, over all
   * instances, the records written before the asked index existed (by an earlier version) are filed in it, in the
   * background (redis.asked-upgrade.ts; every later start costs one script call). Until that is done here,
   * `findByAskKey` on this instance waits for it. A store without keys (used outside the module) skips it.
   */
  onModuleInit(): void {
    if (this.upgradeStarted || !this.keyRing.has()) return;
    this.upgradeStarted = true;
    const { keys, names } = this.keyRing.require();
    const deps = { redis: this.redis, scripts: this.scripts, keys: this.keys, sealing: keys, names, stopped: () => !!this.closed };
    this.upgrading = runAskedUpgrade(deps).finally(() => (this.upgrading = undefined));
  }

  /**
   * Closes the event channels, and the Redis connection if the store created it. Once: Nest calls it for every
   * module that uses the store, and a second QUIT on the closed connection would wait out its command timeout.
   */
  onModuleDestroy(): Promise<void> {
    this.closed ??= (async () => {
      await this.upgrading;
      await this.channels.closeAll();
      if (this.ownsClient) await this.redis.quit().catch(() => this.redis.disconnect());
    })();
    return this.closed;
  }
}
