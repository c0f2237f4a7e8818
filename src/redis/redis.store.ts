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
}

type RedisClient = Redis | Cluster;

/** The hash-tagged key space of one prefix. `r` records, `u` per-user index, `c` completed index, `d` deadlines. */
function keySpace(prefix: string) {
  const base = `{${prefix}}`;
  return {
    base,
    record: (id: string) => `${base}:r:${id}`,
    user: (userId: string) => `${base}:u:${userId}`,
    /** The length is in UTF-8 bytes, as the scripts' `string.len` counts it. */
    completed: (userId: string, type: string) => `${base}:c:${Buffer.byteLength(userId)}:${userId}:${type}`,
    /** Creation-rate counter of one user. */
    rate: (userId: string, window: number) => `${base}:q:${window}:${userId}`,
    /**
     * Pending records of everyone, one sorted set of equal scores whose members are `<userId bytes>:<userId>:<id>`:
     * ZCARD counts all of them, ZLEXCOUNT over `<bytes>:<userId>:` one user's.
     */
    pending: `${base}:p`,
    counter: (key: string, window: number) => `${base}:h:${window}:${key}`,
    deadlines: `${base}:d`,
    channel: `${base}:events`,
  };
}

// Record hash fields. Written once at creation:
//   v = the record's part of its lifecycle event, as JSON members without the braces
//       ("elicitationId":…,"userId":…,"kind":…,"elicitationType":…[,"sessionId":…]), so that `finish` can
//       publish the event with string concatenation alone;
//   j = the rest of the immutable part, likewise ("message":…,"metadata":…,"createdAt":…);
//   u = userId and t = type as plain strings, for the index keys the scripts build (no JSON decoding in Lua).
// Changed later: s = status, e = expiresAt, p = purgeAt, f = finishedAt, d = data (JSON), c = consumedAt.
// A record is read as the fields below, in this order (HMGET: a missing field is null).

/** The fields a record is read from, in the order `toRecord` expects them. */
const FIELDS = ['v', 'j', 's', 'e', 'p', 'f', 'd', 'c'] as const;
const LUA_FIELDS = FIELDS.map((f) => `'${f}'`).join(', ');

/**
 * Keeps a key for at least `ms` more (never shortens its TTL). The TTL is set with some slack (up to a minute
 * more), so that most calls are a single PTTL and a busy index key gets a PEXPIRE about once a minute.
 */
const EXTEND_TTL = `
local function extend(key, ms)
  if redis.call('PTTL', key) < ms then redis.call('PEXPIRE', key, ms + math.min(ms, 60000)) end
end
`;

const CREATE = `${EXTEND_TTL}
-- KEYS: record, user index, deadlines, rate counter, pending set.
-- ARGV: id, v, j, userId, type, createdAt, expiresAt, purgeAt, graceMs, perUserLimit, windowMs, maxPendingPerUser,
-- maxPending (the four limits are '' when no quota applies). Returns 1, or 0 on id collision, or a refusal code.
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local mine = string.len(ARGV[4]) .. ':' .. ARGV[4]
if ARGV[10] ~= '' then
  local n = redis.call('INCR', KEYS[4])
  if n == 1 then redis.call('PEXPIRE', KEYS[4], 2 * tonumber(ARGV[11])) end
  if n > tonumber(ARGV[10]) then return 'rate-limited' end
  if redis.call('ZLEXCOUNT', KEYS[5], '[' .. mine .. ':', '(' .. mine .. ';') >= tonumber(ARGV[12]) then return 'user-pending-limit' end
  if redis.call('ZCARD', KEYS[5]) >= tonumber(ARGV[13]) then return 'pending-limit' end
end
local keep = tonumber(ARGV[8]) - tonumber(ARGV[6]) + tonumber(ARGV[9])
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'j', ARGV[3], 'u', ARGV[4], 't', ARGV[5], 's', 'pending', 'e', ARGV[7], 'p', ARGV[8])
redis.call('PEXPIRE', KEYS[1], keep)
redis.call('ZADD', KEYS[2], ARGV[6], ARGV[1])
extend(KEYS[2], keep)
redis.call('ZADD', KEYS[3], ARGV[7], ARGV[1])
redis.call('ZADD', KEYS[5], 0, mine .. ':' .. ARGV[1])
return 1
`;

const FINISH = `${EXTEND_TTL}
-- KEYS: record, deadlines, pending set. ARGV: id, status, now, purgeAt, data ('' for none), base, graceMs, and
-- to publish the lifecycle event as well: channel, message head, message tail (the record's v goes between).
-- Returns 0 when not found; {expiresAt, v, j} when finished now; the record's fields (FIELDS) when refused
-- (still pending: expired; otherwise already finished).
local h = redis.call('HMGET', KEYS[1], 's', 'e', 'p', 'u', 't', 'v', 'j')
local now = tonumber(ARGV[3])
if not h[6] or tonumber(h[3]) <= now then return 0 end
if h[1] ~= 'pending' or (ARGV[2] ~= 'expired' and now >= tonumber(h[2])) then
  return redis.call('HMGET', KEYS[1], ${LUA_FIELDS})
end
if ARGV[5] == '' then
  redis.call('HSET', KEYS[1], 's', ARGV[2], 'f', ARGV[3], 'p', ARGV[4])
else
  redis.call('HSET', KEYS[1], 's', ARGV[2], 'f', ARGV[3], 'p', ARGV[4], 'd', ARGV[5])
end
local keep = tonumber(ARGV[4]) - now + tonumber(ARGV[7])
-- The record's TTL runs to its first purgeAt plus grace: extend it only for a later purgeAt (an expiry).
if tonumber(ARGV[4]) > tonumber(h[3]) then redis.call('PEXPIRE', KEYS[1], keep) end
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
local mine = string.len(h[4]) .. ':' .. h[4]
redis.call('ZREM', KEYS[3], mine .. ':' .. ARGV[1])
if ARGV[2] == 'completed' then
  local c = ARGV[6] .. ':c:' .. mine .. ':' .. h[5]
  redis.call('ZADD', c, now, ARGV[1])
  extend(c, keep)
end
if ARGV[8] then redis.call('PUBLISH', ARGV[8], ARGV[9] .. h[6] .. ARGV[10]) end
return {h[2], h[6], h[7]}
`;

const FIND_LATEST = `
-- KEYS: completed index. ARGV: now, base. The newest completed, unconsumed, retained record (FIELDS), in
-- slices of 16 ids; ids of records that are gone are dropped from the index on the way.
local now = tonumber(ARGV[1])
local from = 0
while true do
  local ids = redis.call('ZREVRANGE', KEYS[1], from, from + 15)
  local gone = 0
  for _, id in ipairs(ids) do
    local h = redis.call('HMGET', ARGV[2] .. ':r:' .. id, ${LUA_FIELDS})
    if not h[1] then
      redis.call('ZREM', KEYS[1], id)
      gone = gone + 1
    elseif h[3] == 'completed' and not h[8] and tonumber(h[5]) > now then
      return h
    end
  end
  if #ids < 16 then return false end
  from = from + 16 - gone
end
`;

const LIST = `
-- KEYS: user index. ARGV: base
local out = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local h = redis.call('HMGET', ARGV[1] .. ':r:' .. id, ${LUA_FIELDS})
  if not h[1] then redis.call('ZREM', KEYS[1], id) else out[#out + 1] = h end
end
return out
`;

const SWEEP = `
-- KEYS: deadlines. ARGV: now, retentionMs, base, batch, graceMs
local now = tonumber(ARGV[1])
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[4]))
local expired = {}
for _, id in ipairs(due) do
  local key = ARGV[3] .. ':r:' .. id
  local h = redis.call('HMGET', key, 's', 'e', 'p', 'u', 't')
  if not h[1] or not h[4] then
    redis.call('ZREM', KEYS[1], id)
  elseif h[1] == 'pending' and tonumber(h[2]) <= now then
    local purgeAt = now + tonumber(ARGV[2])
    redis.call('ZREM', ARGV[3] .. ':p', string.len(h[4]) .. ':' .. h[4] .. ':' .. id)
    redis.call('HSET', key, 's', 'expired', 'f', now, 'p', purgeAt)
    redis.call('PEXPIRE', key, purgeAt - now + tonumber(ARGV[5]))
    redis.call('ZADD', KEYS[1], purgeAt, id)
    expired[#expired + 1] = redis.call('HMGET', key, ${LUA_FIELDS})
  elseif h[1] ~= 'pending' and tonumber(h[3]) <= now then
    redis.call('DEL', key)
    redis.call('ZREM', KEYS[1], id)
    redis.call('ZREM', ARGV[3] .. ':u:' .. h[4], id)
    redis.call('ZREM', ARGV[3] .. ':c:' .. string.len(h[4]) .. ':' .. h[4] .. ':' .. h[5], id)
  else
    -- Not due after all: re-queue at the record's real deadline.
    redis.call('ZADD', KEYS[1], h[1] == 'pending' and h[2] or h[3], id)
  end
end
return {#due, expired}
`;

const CONSUME = `
-- KEYS: record. ARGV: now, base, id. Returns the record with its data (FIELDS) and removes the data, once; the
-- record leaves the completed index.
local h = redis.call('HMGET', KEYS[1], ${LUA_FIELDS}, 'u', 't')
if h[3] ~= 'completed' or tonumber(h[5]) <= tonumber(ARGV[1]) or h[8] or not h[9] then return false end
redis.call('HDEL', KEYS[1], 'd')
redis.call('HSET', KEYS[1], 'c', ARGV[1])
redis.call('ZREM', ARGV[2] .. ':c:' .. string.len(h[9]) .. ':' .. h[9] .. ':' .. h[10], ARGV[3])
return {h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8]}
`;

const HIT = `
-- KEYS: counter of one window. ARGV: its TTL. The first hit sets the TTL.
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {n, redis.call('PTTL', KEYS[1])}
`;

/** A record as read: the values of FIELDS, null where a field is missing. */
type Row = Array<string | null>;

interface Scripts {
  elicitCreate(r: string, u: string, d: string, q: string, p: string, ...argv: (string | number)[]): Promise<number | CreateResult>;
  elicitConsume(r: string, now: number, base: string, id: string): Promise<Row | null>;
  elicitHit(key: string, windowMs: number): Promise<[number, number]>;
  elicitFinish(r: string, d: string, p: string, ...argv: (string | number)[]): Promise<0 | Row>;
  elicitFindLatest(c: string, ...argv: (string | number)[]): Promise<Row | null>;
  elicitList(u: string, ...argv: (string | number)[]): Promise<Row[]>;
  elicitSweep(d: string, ...argv: (string | number)[]): Promise<[number, Row[]]>;
}

/** What the `v` and `j` fields hold together. */
interface Immutable {
  elicitationId: string;
  userId: string;
  kind: ElicitationRecord['kind'];
  elicitationType: string;
  sessionId?: string;
  message: string;
  metadata: Record<string, unknown>;
  createdAt: number;
}

/** The record and status parts of a row, the rest filled in by the caller. */
function fromParts(v: string, j: string, status: ElicitationRecord['status'], expiresAt: string): ElicitationRecord {
  const i = JSON.parse(`{${v},${j}}`) as Immutable;
  return {
    id: i.elicitationId,
    kind: i.kind,
    userId: i.userId,
    type: i.elicitationType,
    message: i.message,
    metadata: i.metadata,
    status,
    createdAt: i.createdAt,
    expiresAt: Number(expiresAt),
    finishedAt: undefined,
    purgeAt: 0,
    data: undefined,
    consumedAt: undefined,
    sessionId: i.sessionId,
  };
}

/** A record from its row (FIELDS order). */
function toRecord(row: Row): ElicitationRecord {
  const record = fromParts(row[0]!, row[1]!, row[2] as ElicitationRecord['status'], row[3]!);
  record.purgeAt = Number(row[4]);
  if (row[5] !== null) record.finishedAt = Number(row[5]);
  if (row[6] !== null) record.data = JSON.parse(row[6]!);
  if (row[7] !== null) record.consumedAt = Number(row[7]);
  return record;
}

/**
 * Events whose PUBLISH a finish script already made, so that the channel does not send them again when the
 * service publishes them right after (id → `status:at`). Entries live one to two rotations (a second or two),
 * so an event that is never published through the channel costs nothing for long.
 */
class SentInScript {
  private current = new Map<string, string>();
  private previous = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;

  add(id: string, tag: string): void {
    this.current.set(id, tag);
    if (!this.timer) {
      this.timer = setInterval(() => {
        this.previous = this.current;
        this.current = new Map();
        if (this.previous.size === 0) this.stop();
      }, 1_000);
      this.timer.unref();
    }
  }

  /** True (once) when the finish script already published this event. */
  take(id: string, tag: string): boolean {
    for (const map of [this.current, this.previous]) {
      if (map.get(id) === tag) {
        map.delete(id);
        return true;
      }
    }
    return false;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** An open event channel of this store. */
interface OwnChannel extends ElicitationEventChannel {
  /** What this channel's messages start with, up to the event's type (exclusive). */
  readonly head: string;
  readonly sent: SentInScript;
}

/**
 * The shared store for several app instances, on Redis through ioredis (standalone, Sentinel or
 * Cluster). Every operation is one round trip: a Lua script (sent as EVALSHA) or a single command, and
 * completion is an atomic compare-and-set. Lifecycle events travel between instances on Redis pub/sub
 * over a dedicated subscriber connection; while exactly one event channel is open on the store, `finish`
 * publishes the event of the record it finished from its own script (the event the service publishes right
 * after is then not sent again).
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
  private readonly channels = new Set<OwnChannel>();

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
    const v = JSON.stringify({
      elicitationId: record.id,
      userId: record.userId,
      kind: record.kind,
      elicitationType: record.type,
      sessionId: record.sessionId,
    });
    const j = JSON.stringify({ message: record.message, metadata: record.metadata, createdAt: record.createdAt });
    const created = await this.run('create', () =>
      this.scripts.elicitCreate(
        this.keys.record(record.id),
        this.keys.user(record.userId),
        this.keys.deadlines,
        // Fixed windows aligned to multiples of windowMs, so every instance counts in the same one.
        this.keys.rate(record.userId, quota ? Math.floor(record.createdAt / quota.windowMs) : 0),
        this.keys.pending,
        record.id,
        v.slice(1, -1),
        j.slice(1, -1),
        record.userId,
        record.type,
        record.createdAt,
        record.expiresAt,
        record.purgeAt,
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
    const row = await this.run('consume', () => this.scripts.elicitConsume(this.keys.record(id), now, this.keys.base, id));
    return row ? toRecord(row) : undefined;
  }

  async hit(key: string, windowMs: number, now: number): Promise<CounterHit> {
    const window = Math.floor(now / windowMs);
    const [count] = await this.run('hit', () => this.scripts.elicitHit(this.keys.counter(key, window), 2 * windowMs));
    return { count, resetAt: (window + 1) * windowMs };
  }

  override async peekHits(key: string, windowMs: number, now: number): Promise<number> {
    const count = await this.run('peekHits', () => this.redis.get(this.keys.counter(key, Math.floor(now / windowMs))));
    return count === null ? 0 : Number(count);
  }

  async get(id: string, now: number): Promise<ElicitationRecord | undefined> {
    const row = await this.run('get', () => this.redis.hmget(this.keys.record(id), ...FIELDS));
    if (row[0] === null || row[1] === null) return undefined;
    const record = toRecord(row);
    return record.purgeAt <= now ? undefined : record;
  }

  async finish(id: string, change: FinishChange): Promise<TransitionResult> {
    const data = change.status === 'completed' && change.data ? JSON.stringify(change.data) : '';
    // With one event channel open, the script publishes the lifecycle event itself (in the same step, one
    // hop earlier), and the channel skips it when the service publishes it right after.
    const channel = this.channels.size === 1 ? this.channels.values().next().value : undefined;
    const args: Array<string | number> = [id, change.status, change.now, change.purgeAt, data, this.keys.base, this.graceMs];
    // With a channel, the script also gets the message's head and tail (the record's part goes between).
    if (channel) args.push(this.keys.channel, `${channel.head}${JSON.stringify(change.status)},`, `,"at":${JSON.stringify(change.now)}}}`);
    const reply = await this.run('finish', () =>
      this.scripts.elicitFinish(this.keys.record(id), this.keys.deadlines, this.keys.pending, ...args),
    );
    if (reply === 0) return { ok: false, reason: 'not-found' };
    if (reply.length === 3) {
      // Finished now: the reply carries only what the store does not know already.
      const record = fromParts(reply[1]!, reply[2]!, change.status, reply[0]!);
      record.finishedAt = change.now;
      record.purgeAt = change.purgeAt;
      if (data) record.data = JSON.parse(data);
      channel?.sent.add(id, `${change.status}:${change.now}`);
      return { ok: true, record };
    }
    const record = toRecord(reply);
    if (record.status === 'pending') return { ok: false, reason: 'expired', record };
    return { ok: false, reason: 'already-finished', status: record.status as Exclude<typeof record.status, 'pending'>, record };
  }

  async findLatestCompleted(userId: string, type: string, now: number): Promise<ElicitationRecord | undefined> {
    const row = await this.run('findLatestCompleted', () =>
      this.scripts.elicitFindLatest(this.keys.completed(userId, type), now, this.keys.base),
    );
    return row ? toRecord(row) : undefined;
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
    const sent = new SentInScript();
    const channel: OwnChannel = {
      // Messages are {"origin":…,"event":{"type":…,…}}: the finish script writes the same shape.
      head: `{"origin":${JSON.stringify(origin)},"event":{"type":`,
      sent,
      publish: async (event) => {
        if (sent.take(event.elicitationId, `${event.type}:${event.at}`)) return;
        await this.run('publish', () => this.redis.publish(channelName, JSON.stringify({ origin, event })));
      },
      close: async () => {
        this.channels.delete(channel);
        sent.stop();
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
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Redis).hgetall === 'function' &&
    typeof (value as Redis).duplicate === 'function'
  );
}

function defineScripts(redis: RedisClient): void {
  const define = (name: string, numberOfKeys: number, lua: string) => {
    if (!(name in redis)) redis.defineCommand(name, { numberOfKeys, lua });
  };
  define('elicitCreate', 5, CREATE);
  define('elicitConsume', 1, CONSUME);
  define('elicitHit', 1, HIT);
  define('elicitFinish', 3, FINISH);
  define('elicitFindLatest', 1, FIND_LATEST);
  define('elicitList', 1, LIST);
  define('elicitSweep', 1, SWEEP);
}
