import type { CreateResult } from '../stores/elicitation-store.js';
import type { RedisClient } from './redis.client.js';
import { LUA_FIELDS, type Row } from './redis.row-codec.js';

/*
 * The Lua scripts of the Redis store: one per operation that is more than one command, so that every store
 * operation stays one round trip (EVALSHA; the redis.bench rows "redis round trips per <operation>", target
 * == 1.0, guard it). Keys are the store's key space (redis.key-space.ts); records are hashes of the fields
 * in redis.row-codec.ts, and FINISH publishes the pieces of redis.event-wire.ts.
 */

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

/**
 * The compare-and-set out of `pending`. With an event channel open it also publishes the lifecycle event, as
 * eventMessageStart .. v .. eventMessageEnd (redis.event-wire.ts): the record's part is stored ready-made in
 * `v`, so the script needs no cjson, and the event leaves one hop earlier than a PUBLISH from the service
 * would (guarded by the redis.bench rows "redis store finish (complete), 32 callers" and "redis cross-instance
 * completion latency p99").
 */
const FINISH = `${EXTEND_TTL}
-- KEYS: record, deadlines, pending set. ARGV: id, status, now, purgeAt, data ('' for none), base, graceMs, and
-- to publish the lifecycle event as well: channel, message start, message end (the record's v goes between).
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

/** What `create` refused, as the CREATE script answers it. */
type CreateRefusal = Exclude<CreateResult, 'created'>;

/** The scripts as commands of the client (ioredis `defineCommand`), with what each resolves. */
export interface Scripts {
  /** 1 when created, 0 on an id collision, or the refusal. */
  elicitCreate(r: string, u: string, d: string, q: string, p: string, ...argv: (string | number)[]): Promise<0 | 1 | CreateRefusal>;
  elicitConsume(r: string, now: number, base: string, id: string): Promise<Row | null>;
  elicitHit(key: string, windowMs: number): Promise<[number, number]>;
  elicitFinish(r: string, d: string, p: string, ...argv: (string | number)[]): Promise<0 | Row>;
  elicitFindLatest(c: string, ...argv: (string | number)[]): Promise<Row | null>;
  elicitList(u: string, ...argv: (string | number)[]): Promise<Row[]>;
  elicitSweep(d: string, ...argv: (string | number)[]): Promise<[number, Row[]]>;
}

/** Each script's command name, number of keys and source. */
const DEFINITIONS: Record<keyof Scripts, { numberOfKeys: number; lua: string }> = {
  elicitCreate: { numberOfKeys: 5, lua: CREATE },
  elicitConsume: { numberOfKeys: 1, lua: CONSUME },
  elicitHit: { numberOfKeys: 1, lua: HIT },
  elicitFinish: { numberOfKeys: 3, lua: FINISH },
  elicitFindLatest: { numberOfKeys: 1, lua: FIND_LATEST },
  elicitList: { numberOfKeys: 1, lua: LIST },
  elicitSweep: { numberOfKeys: 1, lua: SWEEP },
};

/**
 * Defines the scripts as commands of `redis` (once per client: stores sharing a client share them) and
 * returns the client typed with them. ioredis sends each as EVALSHA, loading it on the first NOSCRIPT.
 */
export function defineScripts(redis: RedisClient): RedisClient & Scripts {
  for (const [name, definition] of Object.entries(DEFINITIONS)) {
    if (!(name in redis)) redis.defineCommand(name, definition);
  }
  if (!hasScripts(redis)) throw new Error('ioredis did not define the elicitation store scripts');
  return redis;
}

function hasScripts(redis: RedisClient): redis is RedisClient & Scripts {
  return Object.keys(DEFINITIONS).every((name) => typeof Reflect.get(redis, name) === 'function');
}
