import { randomUUID } from 'node:crypto';
import type { OnModuleDestroy } from '@nestjs/common';
import { Redis, type Cluster, type RedisOptions } from 'ioredis';
import type { ElicitationEvent, ElicitationRecord, TransitionResult } from '../elicitation.types.js';
import { ElicitationConfigError } from '../errors/elicitation-config.error.js';
import { ElicitationStoreUnavailableError } from '../errors/elicitation-store-unavailable.error.js';
import {
  ElicitationStore,
  type CounterHit,
  type CreateQuota,
  type CreateResult,
  type ElicitationEventChannel,
  type FinishChange,
} from '../stores/elicitation-store.js';

/** Options of `RedisElicitationStore`. */
export interface RedisElicitationStoreOptions {
  /**
   * Prefix of every key and of the event channel. It is also the keys' Redis Cluster hash tag, so all of one
   * deployment's elicitations live in one slot and every multi-key operation is one atomic round trip.
   * Give each deployment (or tenant) its own prefix. Letters, digits and `._:-` only.
   * @default 'elicitation'
   */
  keyPrefix?: string;
  /**
   * How long Redis keeps a record after its `purgeAt` if no sweep removed it first (a safety net for
   * deployments that disable the sweep), in milliseconds.
   * @default 3600000 (1 hour)
   */
  graceMs?: number;
  /**
   * Records a sweep handles per round trip (the sweep loops until nothing is due).
   * @default 500
   */
  sweepBatch?: number;
}

type RedisClient = Redis | Cluster;

/** The hash-tagged key space of one prefix. `r` records, `u` per-user index, `c` completed index, `d` deadlines. */
function keySpace(prefix: string) {
  const base = `{${prefix}}`;
  return {
    base,
    record: (id: string) => `${base}:r:${id}`,
    user: (userId: string) => `${base}:u:${userId}`,
    completed: (userId: string, type: string) => `${base}:c:${userId.length}:${userId}:${type}`,
    /** Creation-rate counter of one user. */
    rate: (userId: string, window: number) => `${base}:q:${window}:${userId}`,
    /** Pending ids of one user, and of everyone. */
    userPending: (userId: string) => `${base}:pu:${userId}`,
    pending: `${base}:p`,
    counter: (key: string, window: number) => `${base}:h:${window}:${key}`,
    deadlines: `${base}:d`,
    channel: `${base}:events`,
  };
}

// Record hash fields: j = immutable part (JSON), s = status, e = expiresAt, p = purgeAt, f = finishedAt, d = data (JSON),
// c = consumedAt.

/** Extends a key's TTL to at least `want` ms (never shortens it). */
const EXTEND_TTL = `
local function extend(key, want)
  local cur = redis.call('PTTL', key)
  if cur < want then redis.call('PEXPIRE', key, want) end
end
`;

const CREATE = `${EXTEND_TTL}
-- KEYS: record, user index, deadlines, rate counter, user pending set, pending set.
-- ARGV: id, j, createdAt, expiresAt, purgeAt, now, graceMs, perUserLimit, windowMs, maxPendingPerUser, maxPending
-- (the four limits are '' when no quota applies). Returns 1, or 0 on id collision, or a refusal code.
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if ARGV[8] ~= '' then
  local n = redis.call('INCR', KEYS[4])
  if n == 1 then redis.call('PEXPIRE', KEYS[4], 2 * tonumber(ARGV[9])) end
  if n > tonumber(ARGV[8]) then return 'rate-limited' end
  if redis.call('SCARD', KEYS[5]) >= tonumber(ARGV[10]) then return 'user-pending-limit' end
  if redis.call('SCARD', KEYS[6]) >= tonumber(ARGV[11]) then return 'pending-limit' end
end
local keep = tonumber(ARGV[5]) - tonumber(ARGV[6]) + tonumber(ARGV[7])
redis.call('HSET', KEYS[1], 'j', ARGV[2], 's', 'pending', 'e', ARGV[4], 'p', ARGV[5])
redis.call('PEXPIRE', KEYS[1], keep)
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
extend(KEYS[2], keep)
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
redis.call('SADD', KEYS[5], ARGV[1])
extend(KEYS[5], keep)
redis.call('SADD', KEYS[6], ARGV[1])
return 1
`;

const FINISH = `${EXTEND_TTL}
-- KEYS: record, deadlines. ARGV: id, status, now, purgeAt, data ('' for none), base, graceMs
local h = redis.call('HMGET', KEYS[1], 's', 'e', 'p', 'j')
local now = tonumber(ARGV[3])
if not h[1] or tonumber(h[3]) <= now then return {'not-found'} end
if h[1] ~= 'pending' then return {'already-finished', redis.call('HGETALL', KEYS[1])} end
if ARGV[2] ~= 'expired' and now >= tonumber(h[2]) then return {'expired', redis.call('HGETALL', KEYS[1])} end
redis.call('HSET', KEYS[1], 's', ARGV[2], 'f', ARGV[3], 'p', ARGV[4])
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'd', ARGV[5]) end
local keep = tonumber(ARGV[4]) - now + tonumber(ARGV[7])
redis.call('PEXPIRE', KEYS[1], keep)
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
local rec = cjson.decode(h[4])
redis.call('SREM', ARGV[6] .. ':pu:' .. rec.userId, ARGV[1])
redis.call('SREM', ARGV[6] .. ':p', ARGV[1])
if ARGV[2] == 'completed' then
  local ckey = ARGV[6] .. ':c:' .. string.len(rec.userId) .. ':' .. rec.userId .. ':' .. rec.type
  redis.call('ZADD', ckey, now, ARGV[1])
  extend(ckey, keep)
end
return {'ok', redis.call('HGETALL', KEYS[1])}
`;

const FIND_LATEST = `
-- KEYS: completed index. ARGV: now, base
local ids = redis.call('ZREVRANGE', KEYS[1], 0, -1)
for _, id in ipairs(ids) do
  local h = redis.call('HGETALL', ARGV[2] .. ':r:' .. id)
  if #h == 0 then
    redis.call('ZREM', KEYS[1], id)
  else
    local s, p
    for i = 1, #h, 2 do
      if h[i] == 's' then s = h[i + 1] elseif h[i] == 'p' then p = tonumber(h[i + 1]) end
    end
    local consumed = false
    for i = 1, #h, 2 do if h[i] == 'c' then consumed = true end end
    if s == 'completed' and not consumed and p > tonumber(ARGV[1]) then return h end
  end
end
return false
`;

const LIST = `
-- KEYS: user index. ARGV: base
local out = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local h = redis.call('HGETALL', ARGV[1] .. ':r:' .. id)
  if #h == 0 then redis.call('ZREM', KEYS[1], id) else out[#out + 1] = h end
end
return out
`;

const SWEEP = `${EXTEND_TTL}
-- KEYS: deadlines. ARGV: now, retentionMs, base, batch, graceMs
local now = tonumber(ARGV[1])
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[4]))
local expired = {}
for _, id in ipairs(due) do
  local key = ARGV[3] .. ':r:' .. id
  local h = redis.call('HMGET', key, 's', 'e', 'p', 'j')
  if not h[1] then
    redis.call('ZREM', KEYS[1], id)
  elseif h[1] == 'pending' and tonumber(h[2]) <= now then
    local purgeAt = now + tonumber(ARGV[2])
    local rec = cjson.decode(h[4])
    redis.call('SREM', ARGV[3] .. ':pu:' .. rec.userId, id)
    redis.call('SREM', ARGV[3] .. ':p', id)
    redis.call('HSET', key, 's', 'expired', 'f', now, 'p', purgeAt)
    redis.call('PEXPIRE', key, purgeAt - now + tonumber(ARGV[5]))
    redis.call('ZADD', KEYS[1], purgeAt, id)
    expired[#expired + 1] = redis.call('HGETALL', key)
  elseif h[1] ~= 'pending' and tonumber(h[3]) <= now then
    local rec = cjson.decode(h[4])
    redis.call('DEL', key)
    redis.call('ZREM', KEYS[1], id)
    redis.call('ZREM', ARGV[3] .. ':u:' .. rec.userId, id)
    redis.call('ZREM', ARGV[3] .. ':c:' .. string.len(rec.userId) .. ':' .. rec.userId .. ':' .. rec.type, id)
  else
    -- Not due after all: re-queue at the record's real deadline.
    redis.call('ZADD', KEYS[1], h[1] == 'pending' and h[2] or h[3], id)
  end
end
return {#due, expired}
`;

const CONSUME = `
-- KEYS: record. ARGV: now. Returns the record with its data and removes the data, once.
local h = redis.call('HMGET', KEYS[1], 's', 'p', 'c')
if h[1] ~= 'completed' or tonumber(h[2]) <= tonumber(ARGV[1]) or h[3] then return false end
local out = redis.call('HGETALL', KEYS[1])
redis.call('HDEL', KEYS[1], 'd')
redis.call('HSET', KEYS[1], 'c', ARGV[1])
return out
`;

const HIT = `
-- KEYS: counter of one window. ARGV: its TTL. The first hit sets the TTL.
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {n, redis.call('PTTL', KEYS[1])}
`;

interface Scripts {
  elicitCreate(r: string, u: string, d: string, q: string, pu: string, p: string, ...argv: (string | number)[]): Promise<number | CreateResult>;
  elicitConsume(r: string, now: number): Promise<string[] | null>;
  elicitHit(key: string, windowMs: number): Promise<[number, number]>;
  elicitFinish(r: string, d: string, ...argv: (string | number)[]): Promise<[string, string[]?]>;
  elicitFindLatest(c: string, ...argv: (string | number)[]): Promise<string[] | null>;
  elicitList(u: string, ...argv: (string | number)[]): Promise<string[][]>;
  elicitSweep(d: string, ...argv: (string | number)[]): Promise<[number, string[][]]>;
}

/** The immutable part of a record, stored as one JSON field. */
type Immutable = Pick<ElicitationRecord, 'id' | 'kind' | 'userId' | 'type' | 'message' | 'metadata' | 'createdAt' | 'sessionId'>;

/** A record from the flat field/value array Lua's HGETALL returns. */
function toRecord(flat: string[]): ElicitationRecord {
  const h: Record<string, string> = {};
  for (let i = 0; i < flat.length; i += 2) h[flat[i]] = flat[i + 1];
  return fromHash(h);
}

/** A record from its hash fields. */
function fromHash(h: Record<string, string>): ElicitationRecord {
  const j = JSON.parse(h.j) as Immutable;
  return {
    id: j.id,
    kind: j.kind,
    userId: j.userId,
    type: j.type,
    message: j.message,
    metadata: j.metadata,
    status: h.s as ElicitationRecord['status'],
    createdAt: j.createdAt,
    expiresAt: Number(h.e),
    finishedAt: h.f === undefined ? undefined : Number(h.f),
    purgeAt: Number(h.p),
    data: h.d === undefined ? undefined : JSON.parse(h.d),
    consumedAt: h.c === undefined ? undefined : Number(h.c),
    sessionId: j.sessionId,
  };
}

/**
 * The shared store for several app instances, on Redis through ioredis (standalone, Sentinel or
 * Cluster). Every operation is one round trip: a Lua script (sent as EVALSHA) or a single command, and
 * completion is an atomic compare-and-set. Lifecycle events travel between instances on Redis pub/sub
 * over a dedicated subscriber connection.
 *
 * Pass a client you own (the store never closes it) or a URL / ioredis options (the store creates the
 * connection, fails commands fast while Redis is down, and closes it on shutdown).
 */
export class RedisElicitationStore extends ElicitationStore implements OnModuleDestroy {
  /** The ioredis client in use. */
  readonly redis: RedisClient;
  private readonly ownsClient: boolean;
  private readonly keys: ReturnType<typeof keySpace>;
  private readonly graceMs: number;
  private readonly sweepBatch: number;
  private readonly channels = new Set<ElicitationEventChannel>();

  constructor(client: RedisClient | string | RedisOptions, options: RedisElicitationStoreOptions = {}) {
    super();
    const prefix = options.keyPrefix ?? 'elicitation';
    if (!/^[A-Za-z0-9._:-]{1,100}$/.test(prefix)) {
      throw new ElicitationConfigError('keyPrefix', 'must be 1-100 letters, digits, ".", "_", ":" or "-" (no braces)');
    }
    this.keys = keySpace(prefix);
    this.graceMs = options.graceMs ?? 3_600_000;
    this.sweepBatch = options.sweepBatch ?? 500;
    if (typeof client === 'string' || !isClient(client)) {
      // Our own connection: reconnect quickly (every 100 ms up to 1 s apart) and give up on a queued command
      // after a failed reconnect or 2 s, so an outage is a quick 503 rather than hung requests, and service
      // (and the event subscription, which inherits these options) comes back within a second of Redis.
      const defaults: RedisOptions = {
        maxRetriesPerRequest: 1,
        commandTimeout: 2_000,
        connectTimeout: 2_000,
        retryStrategy: (times) => Math.min(times * 100, 1_000),
      };
      this.redis = typeof client === 'string' ? new Redis(client, defaults) : new Redis({ ...defaults, ...client });
      this.redis.on('error', () => undefined); // reported per operation as ElicitationStoreUnavailableError
      this.ownsClient = true;
    } else {
      this.redis = client;
      this.ownsClient = false;
    }
    defineScripts(this.redis);
  }

  private get scripts(): Scripts {
    return this.redis as unknown as Scripts;
  }

  async create(record: ElicitationRecord, quota?: CreateQuota): Promise<CreateResult> {
    const immutable: Immutable = {
      id: record.id,
      kind: record.kind,
      userId: record.userId,
      type: record.type,
      message: record.message,
      metadata: record.metadata,
      createdAt: record.createdAt,
      sessionId: record.sessionId,
    };
    const created = await this.run('create', () =>
      this.scripts.elicitCreate(
        this.keys.record(record.id),
        this.keys.user(record.userId),
        this.keys.deadlines,
        // Fixed windows aligned to multiples of windowMs, so every instance counts in the same one.
        this.keys.rate(record.userId, quota ? Math.floor(record.createdAt / quota.windowMs) : 0),
        this.keys.userPending(record.userId),
        this.keys.pending,
        record.id,
        JSON.stringify(immutable),
        record.createdAt,
        record.expiresAt,
        record.purgeAt,
        record.createdAt,
        this.graceMs,
        quota?.perUserLimit ?? '',
        quota?.windowMs ?? '',
        quota?.maxPendingPerUser ?? '',
        quota?.maxPending ?? '',
      ),
    );
    if (created === 0) throw new Error(`Elicitation id collision: ${record.id}`);
    return created === 1 ? 'created' : (created as CreateResult);
  }

  async consume(id: string, now: number): Promise<ElicitationRecord | undefined> {
    const flat = await this.run('consume', () => this.scripts.elicitConsume(this.keys.record(id), now));
    return flat ? toRecord(flat) : undefined;
  }

  async hit(key: string, windowMs: number, now: number): Promise<CounterHit> {
    const window = Math.floor(now / windowMs);
    const [count] = await this.run('hit', () => this.scripts.elicitHit(this.keys.counter(key, window), 2 * windowMs));
    return { count, resetAt: (window + 1) * windowMs };
  }

  async get(id: string, now: number): Promise<ElicitationRecord | undefined> {
    const flat = await this.run('get', () => this.redis.hgetall(this.keys.record(id)));
    if (!flat || !flat.j) return undefined;
    const record = fromHash(flat);
    return record.purgeAt <= now ? undefined : record;
  }

  async finish(id: string, change: FinishChange): Promise<TransitionResult> {
    const [outcome, flat] = await this.run('finish', () =>
      this.scripts.elicitFinish(
        this.keys.record(id),
        this.keys.deadlines,
        id,
        change.status,
        change.now,
        change.purgeAt,
        change.status === 'completed' && change.data ? JSON.stringify(change.data) : '',
        this.keys.base,
        this.graceMs,
      ),
    );
    if (outcome === 'not-found' || !flat) return { ok: false, reason: 'not-found' };
    const record = toRecord(flat);
    if (outcome === 'ok') return { ok: true, record };
    if (outcome === 'expired') return { ok: false, reason: 'expired', record };
    return { ok: false, reason: 'already-finished', status: record.status as Exclude<typeof record.status, 'pending'>, record };
  }

  async findLatestCompleted(userId: string, type: string, now: number): Promise<ElicitationRecord | undefined> {
    const flat = await this.run('findLatestCompleted', () =>
      this.scripts.elicitFindLatest(this.keys.completed(userId, type), now, this.keys.base),
    );
    return flat ? toRecord(flat) : undefined;
  }

  async listByUser(userId: string, now: number): Promise<ElicitationRecord[]> {
    const rows = await this.run('listByUser', () => this.scripts.elicitList(this.keys.user(userId), this.keys.base));
    return rows
      .map(toRecord)
      .filter((r) => r.purgeAt > now)
      .sort((a, b) => a.createdAt - b.createdAt);
  }

  async sweep(now: number, retentionMs: number): Promise<ElicitationRecord[]> {
    const expired: ElicitationRecord[] = [];
    for (;;) {
      const [handled, rows] = await this.run('sweep', () =>
        this.scripts.elicitSweep(this.keys.deadlines, now, retentionMs, this.keys.base, this.sweepBatch, this.graceMs),
      );
      for (const row of rows) expired.push(toRecord(row));
      if (handled < this.sweepBatch) return expired;
    }
  }

  override async ping(): Promise<void> {
    await this.run('ping', () => this.redis.ping());
  }

  override async openEventChannel(onRemoteEvent: (event: ElicitationEvent) => void): Promise<ElicitationEventChannel> {
    const origin = randomUUID();
    const channelName = this.keys.channel;
    // A dedicated connection: a subscribed connection can run no other command. ioredis resubscribes it
    // after a reconnect (autoResubscribe).
    const subscriber = (this.redis as Redis).duplicate();
    subscriber.on('error', () => undefined);
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== channelName) return;
      let parsed: { origin?: string; event?: ElicitationEvent };
      try {
        parsed = JSON.parse(message);
      } catch {
        return;
      }
      if (parsed.origin !== origin && parsed.event) onRemoteEvent(parsed.event);
    });
    await subscriber.subscribe(channelName);
    const channel: ElicitationEventChannel = {
      publish: async (event) => {
        await this.run('publish', () => this.redis.publish(channelName, JSON.stringify({ origin, event })));
      },
      close: async () => {
        this.channels.delete(channel);
        subscriber.disconnect();
      },
    };
    this.channels.add(channel);
    return channel;
  }

  /** Closes the event channels, and the Redis connection if the store created it. */
  async onModuleDestroy(): Promise<void> {
    await Promise.all([...this.channels].map((c) => c.close()));
    if (this.ownsClient) await this.redis.quit().catch(() => this.redis.disconnect());
  }

  /** Runs one Redis call, turning connection failures into ElicitationStoreUnavailableError. */
  private async run<T>(operation: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw new ElicitationStoreUnavailableError(operation, error);
    }
  }
}

function isClient(value: unknown): value is RedisClient {
  return typeof value === 'object' && value !== null && typeof (value as Redis).hgetall === 'function' && typeof (value as Redis).duplicate === 'function';
}

function defineScripts(redis: RedisClient): void {
  const define = (name: string, numberOfKeys: number, lua: string) => {
    if (!(name in redis)) redis.defineCommand(name, { numberOfKeys, lua });
  };
  define('elicitCreate', 6, CREATE);
  define('elicitConsume', 1, CONSUME);
  define('elicitHit', 1, HIT);
  define('elicitFinish', 2, FINISH);
  define('elicitFindLatest', 1, FIND_LATEST);
  define('elicitList', 1, LIST);
  define('elicitSweep', 1, SWEEP);
}
