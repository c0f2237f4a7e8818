import {
  DEFAULT_REDIS_EVENTS_MAX_AGE_MS,
  DEFAULT_REDIS_EVENTS_MAX_LENGTH,
  DEFAULT_REDIS_GRACE_MS,
  DEFAULT_REDIS_KEY_PREFIX,
  DEFAULT_REDIS_SWEEP_BATCH,
} from './redis.defaults.js';
import { Logger, type OnModuleDestroy } from '@nestjs/common';
import type { RedisOptions } from 'ioredis';
import type { ElicitationEvent, ElicitationRecord, ExtendResult, TransitionResult } from '../elicitation.types.js';
import { ElicitationConfigError } from '../errors/elicitation-config.error.js';
import { ElicitationKeyError } from '../errors/elicitation-key.error.js';
import {
  ElicitationStore,
  type CounterHit,
  type CreateQuota,
  type CreateResult,
  type ElicitationEventChannel,
  type ElicitationEventChannelOptions,
  type ElicitationEventContext,
  type ElicitationStoreKeys,
  type ExtendChange,
  type FinishChange,
  type KeyRingEntry,
} from '../stores/elicitation-store.js';
import { callRedis, connectOwnClient, isRedisClient, type RedisClient } from './redis.client.js';
import { RedisEventChannel } from './redis.event-channel.js';
import { keySpace, redisNames, type RedisKeySpace, type RedisNames } from './redis.key-space.js';
import { decodeData, encodeImmutableFields, FIELDS, fromParts, toRecord } from './redis.row-codec.js';
import { defineScripts, type Scripts } from './redis.scripts.js';

/** An instance id in a key-ring entry (`announceKeyRing`): no `:` or `,`, which separate the member's parts. */
const INSTANCE_ID = /^[A-Za-z0-9-]{1,64}$/;
/** A key id (`keyIdOf`). */
const KEY_ID = /^[0-9a-f]{8}$/;

/** Options of `RedisElicitationStore`. */
export interface RedisElicitationStoreOptions {
  /**
   * Prefix of every key, the event stream's included. It is also the keys' Redis Cluster hash tag, so all of one
   * deployment's elicitations live in one slot and every multi-key operation is one atomic round trip.
   * Give each deployment (or tenant) its own prefix. Letters, digits and `._:-` only.
   * @default 'elicitation'
   */
  keyPrefix?: string;
  /**
   * How long, at least, Redis keeps a record after its `purgeAt` if no sweep removed it first (a safety net
   * for deployments that disable the sweep), in milliseconds. The record's TTL is set at creation (to its
   * first `purgeAt` plus this) and only ever extended, so a record finished before it expired may stay until
   * its first `purgeAt` plus this. The sweep forgets records at their `purgeAt` either way.
   * @default 3600000 (1 hour)
   */
  graceMs?: number;
  /**
   * Records a sweep handles per round trip (the sweep loops until nothing is due).
   * @default 500
   */
  sweepBatch?: number;
  /**
   * About how many lifecycle events the event stream keeps (`XADD MAXLEN ~`: Redis trims whole stream nodes, so
   * up to ~100 more). An instance whose connection drops reads the events it missed from the stream when it is
   * back; those trimmed before then are lost to it (it logs a warning). Keep it above your peak events per
   * second (each elicitation makes two: `created` and its final status) times the longest outage to ride out.
   * Each event takes about 0.5 KB of Redis memory (10,000: about 5 MB). A whole number of at least 1.
   * @default 10000
   */
  eventsMaxLength?: number;
  /**
   * How long, at most, the event stream keeps an event, in milliseconds (`XTRIM MINID ~`, by the time in the
   * entry's id), and the stream key's TTL once no event comes (it is extended by each one). A whole number of at
   * least 1000.
   * @default 600000 (10 minutes)
   */
  eventsMaxAgeMs?: number;
}

/**
 * The shared store for several app instances, on Redis through ioredis (standalone, Sentinel or
 * Cluster). Every operation is one round trip: a Lua script (sent as EVALSHA) or a single command, and
 * completion is an atomic compare-and-set. Lifecycle events travel between instances in a Redis Stream
 * (`{prefix}:v2:events`, capped by `eventsMaxLength` and `eventsMaxAgeMs`), which each instance reads on a
 * dedicated connection from the last event it read, so a dropped connection loses no event the stream still
 * keeps (see redis.event-channel.ts). While exactly one event channel is open on the store, `create`,
 * `finish`, `extend` and `sweep` append the events of the records they create, finish, extend and expire from
 * their own scripts (the events the service publishes right after are then not sent again).
 *
 * No key name, value or event holds a user id, a type, an IP address or a message in clear: names are keyed
 * hashes and records and events are sealed, under the keys `ElicitationModule` hands the store from its
 * `encryptionKey` when it starts (`useKeys`). Until then every operation but `ping` throws.
 *
 * Pass a client you own (the store never closes it) or a URL / ioredis options (the store creates the
 * connection, fails commands fast while Redis is down, and closes it on shutdown).
 */
export class RedisElicitationStore extends ElicitationStore implements OnModuleDestroy {
  /** Several instances use one Redis: `encryptionKey` is required in every environment, and each announces its ring. */
  override readonly shared: boolean = true;
  /** The ioredis client in use. */
  readonly redis: RedisClient;
  private readonly ownsClient: boolean;
  private readonly scripts: Scripts;
  private readonly keys: RedisKeySpace;
  private readonly graceMs: number;
  private readonly sweepBatch: number;
  private readonly eventsMaxLength: number;
  private readonly eventsMaxAgeMs: number;
  private readonly channels = new Set<RedisEventChannel>();
  /** Set by the first `onModuleDestroy`. */
  private closed: Promise<void> | undefined;
  /** The module's keys and the names they give, once `useKeys` was called. */
  private keyed: { keys: ElicitationStoreKeys; names: RedisNames } | undefined;

  constructor(client: RedisClient | string | RedisOptions, options: RedisElicitationStoreOptions = {}) {
    super();
    const prefix = options.keyPrefix ?? DEFAULT_REDIS_KEY_PREFIX;
    if (!/^[A-Za-z0-9._:-]{1,100}$/.test(prefix)) {
      throw new ElicitationConfigError('keyPrefix', 'must be 1-100 letters, digits, ".", "_", ":" or "-" (no braces)', { value: prefix });
    }
    this.keys = keySpace(prefix);
    this.graceMs = options.graceMs ?? DEFAULT_REDIS_GRACE_MS;
    this.sweepBatch = options.sweepBatch ?? DEFAULT_REDIS_SWEEP_BATCH;
    this.eventsMaxLength = wholeNumber('eventsMaxLength', options.eventsMaxLength ?? DEFAULT_REDIS_EVENTS_MAX_LENGTH, 1);
    this.eventsMaxAgeMs = wholeNumber('eventsMaxAgeMs', options.eventsMaxAgeMs ?? DEFAULT_REDIS_EVENTS_MAX_AGE_MS, 1_000);
    if (typeof client === 'string' || !isRedisClient(client)) {
      this.redis = connectOwnClient(client);
      this.ownsClient = true;
    } else {
      this.redis = client;
      this.ownsClient = false;
    }
    this.scripts = defineScripts(this.redis);
  }

  /**
   * Takes the keys of the module's `encryptionKey` (ElicitationModule calls it when it starts). Throws
   * `ElicitationConfigError` when the store already has other keys: a store serves one key ring.
   */
  override useKeys(keys: ElicitationStoreKeys): void {
    const names = redisNames(keys);
    if (this.keyed && this.keyed.names.ring !== names.ring) {
      throw new ElicitationConfigError(
        'store',
        'is already used with another encryptionKey: a RedisElicitationStore names and seals its data with one key ring, so give each module its own store or the same encryptionKey',
      );
    }
    this.keyed ??= { keys, names };
  }

  async create(record: ElicitationRecord, quota?: CreateQuota): Promise<CreateResult> {
    const { keys, names } = this.requireKeys();
    const { v, j } = encodeImmutableFields(record, keys);
    const users = names.user(record.userId);
    // Fixed windows aligned to multiples of windowMs, so every instance counts in the same one.
    const window = quota ? Math.floor(record.createdAt / quota.windowMs) : 0;
    const channel = this.scriptChannel();
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
        ...users,
      ),
    );
    if (created === 1) channel?.appendedInScript(record.id, 'created', record.createdAt);
    if (created === 0) throw new Error(`Elicitation id collision: ${record.id}`);
    return created === 1 ? 'created' : created;
  }

  async consume(id: string, now: number): Promise<ElicitationRecord | undefined> {
    const { keys } = this.requireKeys();
    const row = await callRedis('consume', () => this.scripts.elicitConsume(this.keys.record(id), now, this.keys.base, id));
    return row ? toRecord(row, keys) : undefined;
  }

  async hit(key: string, windowMs: number, now: number): Promise<CounterHit> {
    const window = Math.floor(now / windowMs);
    const counters = this.requireKeys()
      .names.counter(key)
      .map((name) => this.keys.counter(name, window));
    const count = await callRedis('hit', () => this.scripts.elicitHit(counters.length, ...counters, 2 * windowMs));
    return { count, resetAt: (window + 1) * windowMs };
  }

  override async peekHits(key: string, windowMs: number, now: number): Promise<number> {
    const window = Math.floor(now / windowMs);
    const counters = this.requireKeys()
      .names.counter(key)
      .map((name) => this.keys.counter(name, window));
    const counts = await callRedis('peekHits', () => this.redis.mget(...counters));
    return counts.reduce((sum, count) => sum + Number(count ?? 0), 0);
  }

  async get(id: string, now: number): Promise<ElicitationRecord | undefined> {
    const { keys } = this.requireKeys();
    const row = await callRedis('get', () => this.redis.hmget(this.keys.record(id), ...FIELDS));
    if (row[0] === null || row[1] === null) return undefined;
    const record = toRecord(row, keys);
    return record.purgeAt <= now ? undefined : record;
  }

  async finish(id: string, change: FinishChange): Promise<TransitionResult> {
    const { keys } = this.requireKeys();
    const data = change.status === 'completed' && change.data ? JSON.stringify(change.data) : '';
    const channel = this.scriptChannel();
    const args: Array<string | number> = [id, change.status, change.now, change.purgeAt, data, this.keys.base, this.graceMs];
    if (channel) args.push(...channel.scriptEventArgs(change.status, change.now));
    const reply = await callRedis('finish', () =>
      this.scripts.elicitFinish(this.keys.record(id), this.keys.deadlines, this.keys.pending, ...args),
    );
    if (reply === 0) return { ok: false, reason: 'not-found' };
    if (reply.length === 3) {
      // Finished now: the reply carries only what the store does not know already.
      const record = fromParts(reply[1]!, reply[2]!, change.status, reply[0]!, keys);
      record.finishedAt = change.now;
      record.purgeAt = change.purgeAt;
      if (data) record.data = decodeData(data);
      channel?.appendedInScript(id, change.status, change.now);
      return { ok: true, record };
    }
    const record = toRecord(reply, keys);
    if (record.status === 'pending') return { ok: false, reason: 'expired', record };
    return { ok: false, reason: 'already-finished', status: record.status, record };
  }

  /**
   * "Need more time?" in one script (EXTEND_EXPIRY): the compare-and-set on a pending, not yet extended record, its
   * deadline and TTLs moved on, and (with one event channel open) the `extended` event appended in the same step.
   */
  override async extend(id: string, change: ExtendChange): Promise<ExtendResult> {
    const { keys } = this.requireKeys();
    const channel = this.scriptChannel();
    const args: Array<string | number> = [id, change.now, change.expiresAt, change.purgeAt, this.keys.base, this.graceMs];
    if (channel) args.push(...channel.scriptEventArgs('extended', change.now, change.expiresAt));
    const reply = await callRedis('extend', () =>
      this.scripts.elicitExtend(this.keys.record(id), this.keys.deadlines, this.keys.pending, ...args),
    );
    if (reply === 0) return { ok: false, reason: 'not-found' };
    const [extended, row] = reply;
    const record = toRecord(row, keys);
    if (extended === 1) {
      channel?.appendedInScript(id, 'extended', change.now);
      return { ok: true, record };
    }
    if (record.status !== 'pending') return { ok: false, reason: 'already-finished', status: record.status, record };
    if (change.now >= record.expiresAt) return { ok: false, reason: 'expired', record };
    return { ok: false, reason: 'already-extended', record };
  }

  async findLatestCompleted(userId: string, type: string, now: number): Promise<ElicitationRecord | undefined> {
    const { keys, names } = this.requireKeys();
    const indexes = names.completed(userId, type).map((name) => this.keys.completed(name));
    const row = await callRedis('findLatestCompleted', () =>
      this.scripts.elicitFindLatest(indexes.length, ...indexes, now, this.keys.base),
    );
    return row ? toRecord(row, keys) : undefined;
  }

  async listByUser(userId: string, now: number): Promise<ElicitationRecord[]> {
    const { keys, names } = this.requireKeys();
    const indexes = names.user(userId).map((name) => this.keys.user(name));
    const rows = await callRedis('listByUser', () => this.scripts.elicitList(indexes.length, ...indexes, this.keys.base));
    return rows
      .map((row) => toRecord(row, keys))
      .filter((r) => r.purgeAt > now)
      .sort((a, b) => a.createdAt - b.createdAt);
  }

  /** Resolves records read back from Redis: the caller's own objects. */
  async sweep(now: number, retentionMs: number): Promise<ReadonlyArray<Readonly<ElicitationRecord>>> {
    const { keys } = this.requireKeys();
    const expired: ElicitationRecord[] = [];
    const channel = this.scriptChannel();
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
      if (handled < this.sweepBatch) {
        for (const record of expired) channel?.appendedInScript(record.id, 'expired', now);
        return expired;
      }
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
    const deps = {
      redis: this.redis,
      scripts: this.scripts,
      stream: this.keys.events,
      maxLength: this.eventsMaxLength,
      maxAgeMs: this.eventsMaxAgeMs,
      keys: this.requireKeys().keys,
      onClose: (c: RedisEventChannel) => this.channels.delete(c),
    };
    const channel = await RedisEventChannel.open(deps, onRemoteEvent, options);
    this.channels.add(channel);
    return channel;
  }

  /**
   * The channel whose events the scripts append themselves: the only one open on this store (in the same step
   * as the change, no second round trip; the channel then skips the event when the service publishes it right
   * after). With several open (tests, two modules on one store) each publishes its own.
   */
  private scriptChannel(): RedisEventChannel | undefined {
    return this.channels.size === 1 ? this.channels.values().next().value : undefined;
  }

  /**
   * Records `entry` in `{prefix}:v2:k` until `now + ttlMs` (`ttlMs: 0` removes it) and resolves the live entries
   * (see `ElicitationRecordStore.announceKeyRing`): one script, one round trip. Key ids only, never keys.
   */
  override async announceKeyRing(entry: KeyRingEntry, now: number, ttlMs: number): Promise<KeyRingEntry[]> {
    if (!INSTANCE_ID.test(entry.instanceId) || entry.keyIds.length === 0 || !entry.keyIds.every((id) => KEY_ID.test(id))) {
      throw new TypeError('announceKeyRing takes an instanceId of letters, digits and "-" and at least one key id of 8 hex characters');
    }
    const members = await callRedis('announceKeyRing', () =>
      this.scripts.elicitKeyRings(this.keys.keyRings, now, entry.instanceId, entry.keyIds.join(','), ttlMs > 0 ? now + ttlMs : '', ttlMs),
    );
    return members.map((member) => {
      const at = member.indexOf(':');
      return { instanceId: member.slice(0, at), keyIds: member.slice(at + 1).split(',') };
    });
  }

  /** The keys `useKeys` gave, or a config error naming what is missing. */
  private requireKeys(): { keys: ElicitationStoreKeys; names: RedisNames } {
    if (this.keyed) return this.keyed;
    throw new ElicitationConfigError(
      'store',
      'has no keys yet: a RedisElicitationStore names and seals its data with keys derived from encryptionKey, which ElicitationModule hands it when it starts (pass the store as its store option; outside the module, call useKeys)',
    );
  }

  /**
   * Closes the event channels, and the Redis connection if the store created it. Once: Nest calls it for every
   * module that uses the store, and a second QUIT on the closed connection would wait out its command timeout.
   */
  onModuleDestroy(): Promise<void> {
    this.closed ??= (async () => {
      await Promise.all([...this.channels].map((c) => c.close()));
      if (this.ownsClient) await this.redis.quit().catch(() => this.redis.disconnect());
    })();
    return this.closed;
  }
}

/** The CREATE script's event arguments when it appends no event (see EventScriptArgs). */
const NO_EVENT = ['', '', '', '', ''] as const;

/** `value` when it is a whole number of at least `min`, else a config error naming `option`. */
function wholeNumber(option: string, value: number, min: number): number {
  if (Number.isSafeInteger(value) && value >= min) return value;
  throw new ElicitationConfigError(option, `must be a whole number of at least ${min}`, { value });
}
