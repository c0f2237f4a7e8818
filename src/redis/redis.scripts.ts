import type { CreateResult } from '../stores/elicitation-store.js';
import type { RedisClient } from './redis.client.js';
import { ASKED_UPGRADE_SCRIPTS, type AskedUpgradeScripts } from './redis.asked-scripts.js';
import { TASK_SCRIPTS, type TaskScripts } from './redis.tasks.js';
import { NOTICE_SCRIPTS, type NoticeScripts } from './redis.notices.js';
import { OPEN_LIST_SCRIPTS, type OpenListScripts } from './redis.open-list.js';
import { APPEND_EVENT, EXTEND_TTL } from './redis.lua-parts.js';
import { FIELDS, LUA_FIELDS, type Row } from './redis.row-codec.js';

/*
 * The Lua scripts of the Redis store: one per operation that is more than one command, so that every store
 * operation stays one round trip (EVALSHA; the redis.bench rows "redis round trips per <operation>", target
 * == 1.0, guard it). Keys are the store's key space (redis.key-space.ts); records are hashes of the fields
 * in redis.row-codec.ts. CREATE, FINISH, EXTEND_EXPIRY and SWEEP append the lifecycle event of each record they
 * create, finish, extend or expire to the event stream themselves (APPEND_EVENT, with the pieces of
 * stores/event-wire.ts).
 *
 * Names of users, completed indexes and counters come one per key of the `encryptionKey` ring, the first
 * key's first (RedisNames): writes use the first, reads and counts all of them, so a rotation neither loses
 * an index nor restarts a count. CREATE, FIND_LATEST, LIST, FIND_ASKED and HIT take a variable number of keys (the
 * caller passes the count first); with one key in the ring they do what they did with one name.
 */

const CREATE = `${EXTEND_TTL}${APPEND_EVENT}
-- KEYS: record, deadlines, pending set, user index (the first user name), then the user's rate counters (one
-- per user name, first first).
-- ARGV: id, v, j, completed name (first), createdAt, expiresAt, purgeAt, graceMs, perUserLimit, windowMs,
-- maxPendingPerUser, maxPending (the four limits are '' when no quota applies), the five arguments of the
-- "created" event (13-17: all '' to append none), the asked name (first; '' without an askKey), base, then the
-- user names (first first). Returns 1, or 0 on id collision, or a refusal code (then no event).
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local user = ARGV[20]
if ARGV[9] ~= '' then
  local n = redis.call('INCR', KEYS[5])
  if n == 1 then redis.call('PEXPIRE', KEYS[5], 2 * tonumber(ARGV[10])) end
  for i = 6, #KEYS do n = n + tonumber(redis.call('GET', KEYS[i]) or '0') end
  if n > tonumber(ARGV[9]) then return 'rate-limited' end
  local mine = 0
  for i = 20, #ARGV do mine = mine + redis.call('ZLEXCOUNT', KEYS[3], '[' .. ARGV[i] .. ':', '(' .. ARGV[i] .. ';') end
  if mine >= tonumber(ARGV[11]) then return 'user-pending-limit' end
  if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[12]) then return 'pending-limit' end
end
local keep = tonumber(ARGV[7]) - tonumber(ARGV[5]) + tonumber(ARGV[8])
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'j', ARGV[3], 'u', user, 't', ARGV[4], 's', 'pending', 'e', ARGV[6], 'p', ARGV[7])
redis.call('PEXPIRE', KEYS[1], keep)
redis.call('ZADD', KEYS[4], ARGV[5], ARGV[1])
extend(KEYS[4], keep)
if ARGV[18] ~= '' then
  local a = ARGV[19] .. ':a:' .. ARGV[18]
  redis.call('HSET', KEYS[1], 'a', ARGV[18])
  redis.call('ZADD', a, ARGV[5], ARGV[1])
  extend(a, keep)
end
-- The two sets of everyone's records outlive each record they hold.
redis.call('ZADD', KEYS[2], ARGV[6], ARGV[1])
extend(KEYS[2], keep)
redis.call('ZADD', KEYS[3], 0, user .. ':' .. ARGV[1])
extend(KEYS[3], keep)
if ARGV[13] ~= '' then append_event(ARGV[13], ARGV[14], ARGV[15], ARGV[16] .. ARGV[2] .. ARGV[17]) end
return 1
`;

/**
 * The compare-and-set out of `pending`. With an event channel open it also appends the lifecycle event to the
 * event stream, as eventMessageStart .. v .. eventMessageEnd (stores/event-wire.ts): the record's part is stored
 * ready-made in `v`, so the script needs no cjson, and the event is written in the same step as the change (no
 * second round trip; guarded by the redis.bench rows "redis round trips per finish", "redis store finish
 * (complete), 32 callers" and "redis cross-instance completion latency p99").
 */
const FINISH = `${EXTEND_TTL}${APPEND_EVENT}
-- KEYS: record, deadlines, pending set. ARGV: id, status, now, purgeAt, data ('' for none), base, graceMs, and
-- to append the lifecycle event as well its five arguments (8-12; the record's v goes between the last two).
-- Returns 0 when not found; {expiresAt, v, j} when finished now; the record's fields (FIELDS) when refused
-- (still pending: expired; otherwise already finished).
local h = redis.call('HMGET', KEYS[1], 's', 'e', 'p', 'u', 't', 'v', 'j', 'a')
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
-- The record's TTL runs to its first purgeAt plus grace: extend it (and the keys that list it) only for a
-- later purgeAt (an expiry).
if tonumber(ARGV[4]) > tonumber(h[3]) then
  redis.call('PEXPIRE', KEYS[1], keep)
  extend(KEYS[2], keep)
  extend(ARGV[6] .. ':u:' .. h[4], keep)
  if h[8] then extend(ARGV[6] .. ':a:' .. h[8], keep) end
end
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
redis.call('ZREM', KEYS[3], h[4] .. ':' .. ARGV[1])
if ARGV[2] == 'completed' then
  local c = ARGV[6] .. ':c:' .. h[5]
  redis.call('ZADD', c, now, ARGV[1])
  extend(c, keep)
end
if ARGV[8] then append_event(ARGV[8], ARGV[9], ARGV[10], ARGV[11] .. h[6] .. ARGV[12]) end
return {h[2], h[6], h[7]}
`;

/**
 * "Need more time?": a pending record, before its expiry and not extended yet, gets its new expiresAt and purgeAt
 * (and x, o: when, and the expiresAt it had), is filed under the new deadline, and its key and the keys that list
 * it live at least to the new purgeAt plus grace. With an event channel open it appends the "extended" event (the
 * new expiresAt is in the message's end piece), as FINISH does.
 */
const EXTEND_EXPIRY = `${EXTEND_TTL}${APPEND_EVENT}
-- KEYS: record, deadlines, pending set. ARGV: id, now, expiresAt, purgeAt, base, graceMs, and to append the
-- "extended" event as well its five arguments (7-11; the record's v goes between the last two).
-- Returns 0 when not found (or past its purgeAt); otherwise {1 when extended now else 0, the record's fields
-- (FIELDS) after the call}.
local h = redis.call('HMGET', KEYS[1], 's', 'e', 'p', 'u', 'v', 'x', 'a')
local now = tonumber(ARGV[2])
if not h[5] or tonumber(h[3]) <= now then return 0 end
if h[1] ~= 'pending' or now >= tonumber(h[2]) or h[6] then return {0, redis.call('HMGET', KEYS[1], ${LUA_FIELDS})} end
redis.call('HSET', KEYS[1], 'e', ARGV[3], 'p', ARGV[4], 'x', ARGV[2], 'o', h[2])
local keep = tonumber(ARGV[4]) - now + tonumber(ARGV[6])
if redis.call('PTTL', KEYS[1]) < keep then redis.call('PEXPIRE', KEYS[1], keep) end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
extend(KEYS[2], keep)
extend(KEYS[3], keep)
extend(ARGV[5] .. ':u:' .. h[4], keep)
if h[7] then extend(ARGV[5] .. ':a:' .. h[7], keep) end
if ARGV[7] then append_event(ARGV[7], ARGV[8], ARGV[9], ARGV[10] .. h[5] .. ARGV[11]) end
return {1, redis.call('HMGET', KEYS[1], ${LUA_FIELDS})}
`;

const FIND_LATEST = `
-- KEYS: the completed indexes of one user and type (one per name). ARGV: now, base. The newest completed,
-- unconsumed, retained record (FIELDS) of all of them; each index is read newest first in slices of 16 ids,
-- and ids of records that are gone are dropped from it on the way.
local now = tonumber(ARGV[1])
local function newest(key)
  local from = 0
  while true do
    local page = redis.call('ZREVRANGE', key, from, from + 15, 'WITHSCORES')
    local gone = 0
    for i = 1, #page, 2 do
      local h = redis.call('HMGET', ARGV[2] .. ':r:' .. page[i], ${LUA_FIELDS})
      if not h[1] then
        redis.call('ZREM', key, page[i])
        gone = gone + 1
      elseif h[3] == 'completed' and not h[8] and tonumber(h[5]) > now then
        return h, tonumber(page[i + 1])
      end
    end
    if #page < 32 then return false, 0 end
    from = from + 16 - gone
  end
end
local best, bestAt = false, 0
for _, key in ipairs(KEYS) do
  local h, at = newest(key)
  if h and (not best or at > bestAt) then best, bestAt = h, at end
end
return best
`;

const LIST = `
-- KEYS: the user's indexes (one per name). ARGV: base
local out = {}
for _, key in ipairs(KEYS) do
  for _, id in ipairs(redis.call('ZRANGE', key, 0, -1)) do
    local h = redis.call('HMGET', ARGV[1] .. ':r:' .. id, ${LUA_FIELDS})
    if not h[1] then redis.call('ZREM', key, id) else out[#out + 1] = h end
  end
end
return out
`;

const FIND_ASKED = `
-- KEYS: the asked indexes of one user and askKey (one per name). ARGV: base. The records they hold (FIELDS), each
-- index newest first; ids of records that are gone are dropped from it on the way.
local out = {}
for _, key in ipairs(KEYS) do
  for _, id in ipairs(redis.call('ZREVRANGE', key, 0, -1)) do
    local h = redis.call('HMGET', ARGV[1] .. ':r:' .. id, ${LUA_FIELDS})
    if not h[1] then redis.call('ZREM', key, id) else out[#out + 1] = h end
  end
end
return out
`;

const SWEEP = `${EXTEND_TTL}${APPEND_EVENT}
-- KEYS: deadlines. ARGV: now, retentionMs, base, batch, graceMs, and to append each "expired" event as well
-- its five arguments (6-10; the record's v goes between the last two).
local now = tonumber(ARGV[1])
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[4]))
local expired = {}
for _, id in ipairs(due) do
  local key = ARGV[3] .. ':r:' .. id
  local h = redis.call('HMGET', key, 's', 'e', 'p', 'u', 't', 'a')
  if not h[1] or not h[4] then
    redis.call('ZREM', KEYS[1], id)
  elseif h[1] == 'pending' and tonumber(h[2]) <= now then
    local purgeAt = now + tonumber(ARGV[2])
    local keep = purgeAt - now + tonumber(ARGV[5])
    redis.call('ZREM', ARGV[3] .. ':p', h[4] .. ':' .. id)
    redis.call('HSET', key, 's', 'expired', 'f', now, 'p', purgeAt)
    redis.call('PEXPIRE', key, keep)
    extend(ARGV[3] .. ':u:' .. h[4], keep)
    if h[6] then extend(ARGV[3] .. ':a:' .. h[6], keep) end
    redis.call('ZADD', KEYS[1], purgeAt, id)
    extend(KEYS[1], keep)
    local row = redis.call('HMGET', key, ${LUA_FIELDS})
    expired[#expired + 1] = row
    if ARGV[6] then append_event(ARGV[6], ARGV[7], ARGV[8], ARGV[9] .. row[1] .. ARGV[10]) end
  elseif h[1] ~= 'pending' and tonumber(h[3]) <= now then
    redis.call('DEL', key)
    redis.call('ZREM', KEYS[1], id)
    redis.call('ZREM', ARGV[3] .. ':u:' .. h[4], id)
    redis.call('ZREM', ARGV[3] .. ':c:' .. h[5], id)
    if h[6] then redis.call('ZREM', ARGV[3] .. ':a:' .. h[6], id) end
  else
    -- Not due after all: re-queue at the record's real deadline.
    redis.call('ZADD', KEYS[1], h[1] == 'pending' and h[2] or h[3], id)
  end
end
return {#due, expired}
`;

const CONSUME = `
-- KEYS: record. ARGV: now, base, id. Returns the record with its data (FIELDS) and removes the data, once; the
-- record leaves the completed index. h holds FIELDS (status 3, purgeAt 5, consumedAt 8), then u and t.
local h = redis.call('HMGET', KEYS[1], ${LUA_FIELDS}, 'u', 't')
local u, t = h[${FIELDS.length + 1}], h[${FIELDS.length + 2}]
if h[3] ~= 'completed' or tonumber(h[5]) <= tonumber(ARGV[1]) or h[8] or not u then return false end
redis.call('HDEL', KEYS[1], 'd')
redis.call('HSET', KEYS[1], 'c', ARGV[1])
redis.call('ZREM', ARGV[2] .. ':c:' .. t, ARGV[3])
h[${FIELDS.length + 1}], h[${FIELDS.length + 2}] = nil, nil
return h
`;

const HIT = `
-- KEYS: the counter of one window under each name (first first). ARGV: its TTL. Counts one hit under the
-- first name (the first hit sets the TTL) and returns the count under all of them.
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
for i = 2, #KEYS do n = n + tonumber(redis.call('GET', KEYS[i]) or '0') end
return n
`;

const KEY_RINGS = `
-- KEYS: the key rings of the instances (a sorted set: members '<instance id>:<key ids, comma-separated>', scores
-- the time each entry lives until). ARGV: now, instance id, its key ids, the time its entry lives until ('' to
-- remove it), that TTL in ms. Forgets the entries whose time has passed and the instance's earlier entry, records
-- the new one, and returns the live members. The set lives as long as its longest-lived entry.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local prefix = ARGV[2] .. ':'
for _, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if string.sub(member, 1, #prefix) == prefix then redis.call('ZREM', KEYS[1], member) end
end
if ARGV[4] ~= '' then
  redis.call('ZADD', KEYS[1], ARGV[4], prefix .. ARGV[3])
  if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[5]) then redis.call('PEXPIRE', KEYS[1], ARGV[5]) end
end
return redis.call('ZRANGE', KEYS[1], 0, -1)
`;

const APPEND = `${EXTEND_TTL}${APPEND_EVENT}
-- KEYS: the event stream. ARGV: maxLen, maxAgeMs, message. Appends an event no other script appended.
append_event(KEYS[1], ARGV[1], ARGV[2], ARGV[3])
return 1
`;

/** What `create` refused, as the CREATE script answers it. */
type CreateRefusal = Exclude<CreateResult, 'created'>;

/**
 * The scripts as commands of the client (ioredis `defineCommand`), with what each resolves. Those with a
 * variable number of keys take the count first (`numKeys`), then the keys, then the arguments.
 */
export interface Scripts extends AskedUpgradeScripts, TaskScripts, NoticeScripts, OpenListScripts {
  /** 1 when created, 0 on an id collision, or the refusal. */
  elicitCreate(numKeys: number, ...keysAndArgv: (string | number)[]): Promise<0 | 1 | CreateRefusal>;
  elicitConsume(r: string, now: number, base: string, id: string): Promise<Row | null>;
  elicitHit(numKeys: number, ...keysAndArgv: (string | number)[]): Promise<number>;
  /** The live members of the key-ring set, after recording (or removing) one instance's entry. */
  elicitKeyRings(k: string, now: number, instanceId: string, keyIds: string, until: number | '', ttlMs: number): Promise<string[]>;
  elicitFinish(r: string, d: string, p: string, ...argv: (string | number)[]): Promise<0 | Row>;
  /** 0 when not found; else [1 when extended now or 0 when refused, the record's fields after the call]. */
  elicitExtend(r: string, d: string, p: string, ...argv: (string | number)[]): Promise<0 | [0 | 1, Row]>;
  elicitFindLatest(numKeys: number, ...keysAndArgv: (string | number)[]): Promise<Row | null>;
  elicitList(numKeys: number, ...keysAndArgv: (string | number)[]): Promise<Row[]>;
  elicitFindAsked(numKeys: number, ...keysAndArgv: (string | number)[]): Promise<Row[]>;
  elicitSweep(d: string, ...argv: (string | number)[]): Promise<[number, Row[]]>;
  elicitAppendEvent(stream: string, maxLen: number, maxAgeMs: number, message: string): Promise<1>;
}

/** Each script's command name, number of keys (none: variable, given first on each call) and source. */
const DEFINITIONS: Record<keyof Scripts, { numberOfKeys?: number; lua: string }> = {
  elicitCreate: { lua: CREATE },
  elicitConsume: { numberOfKeys: 1, lua: CONSUME },
  elicitHit: { lua: HIT },
  elicitKeyRings: { numberOfKeys: 1, lua: KEY_RINGS },
  elicitFinish: { numberOfKeys: 3, lua: FINISH },
  elicitExtend: { numberOfKeys: 3, lua: EXTEND_EXPIRY },
  elicitFindLatest: { lua: FIND_LATEST },
  elicitList: { lua: LIST },
  elicitFindAsked: { lua: FIND_ASKED },
  elicitSweep: { numberOfKeys: 1, lua: SWEEP },
  elicitAppendEvent: { numberOfKeys: 1, lua: APPEND },
  ...ASKED_UPGRADE_SCRIPTS,
  ...TASK_SCRIPTS,
  ...NOTICE_SCRIPTS,
  ...OPEN_LIST_SCRIPTS,
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
