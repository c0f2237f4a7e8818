import type { AddPasskeyResult, ElicitationPasskeyStore, PasskeyResealStep, StoredPasskey } from '../stores/passkey-store.js';
import { openPasskey, resealMoves, sealPasskey } from '../stores/sealed-passkey.codec.js';
import { callRedis, type RedisClient } from './redis.client.js';
import type { RedisStoreKeys } from './redis.key-ring.js';

/*
 * The passkeys of the Redis store (`ElicitationPasskeyStore`), under the store's key space (so in its hash tag, one slot
 * on a Cluster: every script below is one atomic step, whichever users and ids it reads):
 *   {prefix}:v2:pk:<id>            one passkey: b its user, public key, name and transports, sealed together
 *                                  (stores/sealed-passkey.codec.ts); n counter, c createdAt, l lastUsedAt, r removedAt,
 *                                  in clear
 *   {prefix}:v2:pku:<user name>    the user's passkeys not removed, scored by createdAt (one per name of the key ring,
 *                                  the user's name a keyed hash: written under the first, read and counted under all)
 *   {prefix}:v2:pka                every passkey's id, removed or not, scored by createdAt: what `resealPasskeys` walks
 * No TTL: a passkey is kept, removed or not, until an operator deletes it (a removed one's public key still verifies
 * what it signed). Each operation is one script or one command, so one round trip.
 */

const ADD_PASSKEY = `-- KEYS: the passkey, every passkey's id, then the user's sets (one per name of the ring, the first first). ARGV: id,
-- maxPerUser, sealed, counter, createdAt. 'exists' when the id is kept (removed or not, whoever's), 'limit' when the
-- user has maxPerUser.
if redis.call('EXISTS', KEYS[1]) == 1 then return 'exists' end
local kept = 0
for i = 3, #KEYS do kept = kept + redis.call('ZCARD', KEYS[i]) end
if kept >= tonumber(ARGV[2]) then return 'limit' end
redis.call('HSET', KEYS[1], 'b', ARGV[3], 'n', ARGV[4], 'c', ARGV[5])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[1])
return 'added'
`;

/** The fields a passkey is read from, in order. */
const PASSKEY_FIELDS = ['b', 'n', 'c', 'l', 'r'] as const;
const LUA_PASSKEY_FIELDS = PASSKEY_FIELDS.map((f) => `'${f}'`).join(', ');

const LIST_PASSKEYS = `-- KEYS: the user's sets (one per name of the ring). ARGV: base. Returns {id, then PASSKEY_FIELDS} per passkey of the
-- sets (in each set's order: the store merges them by createdAt).
local out = {}
for i = 1, #KEYS do
  for _, id in ipairs(redis.call('ZRANGE', KEYS[i], 0, -1)) do
    local h = redis.call('HMGET', ARGV[1] .. ':pk:' .. id, ${LUA_PASSKEY_FIELDS})
    if h[1] then out[#out + 1] = { id, h[1], h[2], h[3], h[4] or false, h[5] or false } end
  end
end
return out
`;

const REMOVE_PASSKEY = `-- KEYS: the passkey, then the user's sets (one per name of the ring). ARGV: id, now. Returns 1 when the passkey was
-- in one of the user's sets (the user's, not removed): out of it, removedAt set; else 0, nothing changed.
for i = 2, #KEYS do
  if redis.call('ZREM', KEYS[i], ARGV[1]) == 1 then
    if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
    redis.call('HSET', KEYS[1], 'r', ARGV[2])
    return 1
  end
end
return 0
`;

const USE_PASSKEY = `-- KEYS: the passkey. ARGV: expected counter, new counter, now. Returns 1 when written (kept, not removed, counter as
-- expected), else 0.
local h = redis.call('HMGET', KEYS[1], 'n', 'r')
if not h[1] or h[2] or tonumber(h[1]) ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'n', ARGV[2], 'l', ARGV[3])
return 1
`;

const SCAN_PASSKEYS = `-- KEYS: every passkey's id. ARGV: cursor, count, base. One ZSCAN step: {next cursor, then id and sealed part of each
-- passkey it found}.
local step = redis.call('ZSCAN', KEYS[1], ARGV[1], 'COUNT', tonumber(ARGV[2]))
local out = { step[1] }
for i = 1, #step[2], 2 do
  local id = step[2][i]
  local b = redis.call('HGET', ARGV[3] .. ':pk:' .. id, 'b')
  if b then out[#out + 1] = id; out[#out + 1] = b end
end
return out
`;

const RESEAL_PASSKEY = `-- KEYS: the passkey, then its user's sets (one per name of the ring, the first first). ARGV: id, sealed part read,
-- sealed part under the first key. A compare-and-set: 0 when the sealed part is no longer the one read; else it is
-- replaced and the passkey, if filed under an older name of its user (a removed one is filed under none), filed under
-- the first; 1.
local h = redis.call('HMGET', KEYS[1], 'b', 'c')
if h[1] ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'b', ARGV[3])
for i = 3, #KEYS do
  if redis.call('ZREM', KEYS[i], ARGV[1]) == 1 then redis.call('ZADD', KEYS[2], h[2], ARGV[1]) end
end
return 1
`;

/** A passkey as LIST_PASSKEYS returns it: its id, then `PASSKEY_FIELDS`. */
type PasskeyRow = [string, string, string, string, string | null, string | null];

/** The passkey scripts as commands of the client. */
interface PasskeyScripts {
  elicitAddPasskey(numKeys: number, ...keysAndArgv: (string | number)[]): Promise<AddPasskeyResult>;
  elicitListPasskeys(numKeys: number, ...keysAndArgv: (string | number)[]): Promise<PasskeyRow[]>;
  elicitRemovePasskey(numKeys: number, ...keysAndArgv: (string | number)[]): Promise<0 | 1>;
  elicitUsePasskey(passkey: string, expected: number, counter: number, now: number): Promise<0 | 1>;
  elicitScanPasskeys(all: string, cursor: string, count: number, base: string): Promise<string[]>;
  elicitResealPasskey(numKeys: number, ...keysAndArgv: (string | number)[]): Promise<0 | 1>;
}

const PASSKEY_SCRIPTS: Record<keyof PasskeyScripts, { numberOfKeys?: number; lua: string }> = {
  elicitAddPasskey: { lua: ADD_PASSKEY },
  elicitListPasskeys: { lua: LIST_PASSKEYS },
  elicitRemovePasskey: { lua: REMOVE_PASSKEY },
  elicitUsePasskey: { numberOfKeys: 1, lua: USE_PASSKEY },
  elicitScanPasskeys: { numberOfKeys: 1, lua: SCAN_PASSKEYS },
  elicitResealPasskey: { lua: RESEAL_PASSKEY },
};

/** Defines the passkey scripts as commands of `redis` (once per client, as `defineScripts` does the store's others). */
function definePasskeyScripts(redis: RedisClient): RedisClient & PasskeyScripts {
  for (const [name, definition] of Object.entries(PASSKEY_SCRIPTS)) {
    if (!(name in redis)) redis.defineCommand(name, definition);
  }
  if (!hasPasskeyScripts(redis)) throw new Error('ioredis did not define the elicitation store passkey scripts');
  return redis;
}

function hasPasskeyScripts(redis: RedisClient): redis is RedisClient & PasskeyScripts {
  return Object.keys(PASSKEY_SCRIPTS).every((name) => typeof Reflect.get(redis, name) === 'function');
}

/** The passkey members of `RedisElicitationStore` (see `ElicitationPasskeyStore`). */
export class RedisPasskeys implements ElicitationPasskeyStore {
  private readonly redis: RedisClient & PasskeyScripts;

  /** The store's client, key space base (`{prefix}:v2`) and key ring. */
  constructor(
    redis: RedisClient,
    private readonly base: string,
    private readonly keyRing: RedisStoreKeys,
  ) {
    this.redis = definePasskeyScripts(redis);
  }

  async addPasskey(passkey: StoredPasskey, maxPerUser: number): Promise<AddPasskeyResult> {
    const { keys, names } = this.keyRing.require();
    const keyList = [this.key(passkey.id), this.allKey(), ...this.userKeys(names.user(passkey.userId))];
    const sealed = sealPasskey(passkey, keys);
    return callRedis('addPasskey', () =>
      this.redis.elicitAddPasskey(keyList.length, ...keyList, passkey.id, maxPerUser, sealed, passkey.counter, passkey.createdAt),
    );
  }

  async getPasskey(id: string): Promise<StoredPasskey | undefined> {
    const { keys } = this.keyRing.require();
    const [b, n, c, l, r] = await callRedis('getPasskey', () => this.redis.hmget(this.key(id), ...PASSKEY_FIELDS));
    if (b === null || n === null || c === null) return undefined;
    return openPasskey(id, b, clearParts(n, c, l, r), keys);
  }

  async listPasskeys(userId: string): Promise<StoredPasskey[]> {
    const { keys, names } = this.keyRing.require();
    const keyList = this.userKeys(names.user(userId));
    const rows = await callRedis('listPasskeys', () => this.redis.elicitListPasskeys(keyList.length, ...keyList, this.base));
    return rows
      .map(([id, b, n, c, l, r]) => openPasskey(id, b, clearParts(n, c, l, r), keys))
      .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  }

  async removePasskey(userId: string, id: string, now: number): Promise<boolean> {
    const { names } = this.keyRing.require();
    const keyList = [this.key(id), ...this.userKeys(names.user(userId))];
    return (await callRedis('removePasskey', () => this.redis.elicitRemovePasskey(keyList.length, ...keyList, id, now))) === 1;
  }

  async usePasskey(id: string, expected: number, counter: number, now: number): Promise<boolean> {
    this.keyRing.require();
    return (await callRedis('usePasskey', () => this.redis.elicitUsePasskey(this.key(id), expected, counter, now))) === 1;
  }

  async resealPasskeys(cursor: string | undefined, limit: number): Promise<PasskeyResealStep> {
    const { keys, names } = this.keyRing.require();
    const [next, ...found] = await callRedis('resealPasskeys', () =>
      this.redis.elicitScanPasskeys(this.allKey(), cursor ?? '0', limit, this.base),
    );
    const pairs = Array.from({ length: found.length / 2 }, (_, i) => [found[2 * i], found[2 * i + 1]] as const);
    const { moves, unreadable } = resealMoves(pairs, keys);
    let moved = 0;
    for (const move of moves) {
      const keyList = [this.key(move.id), ...this.userKeys(names.user(move.userId))];
      moved += await callRedis('resealPasskeys', () =>
        this.redis.elicitResealPasskey(keyList.length, ...keyList, move.id, move.old, move.sealed),
      );
    }
    return { moved, unreadable, ...(next !== '0' && { next }) };
  }

  private key(id: string): string {
    return `${this.base}:pk:${id}`;
  }

  private allKey(): string {
    return `${this.base}:pka`;
  }

  private userKeys(userNames: readonly string[]): string[] {
    return userNames.map((name) => `${this.base}:pku:${name}`);
  }
}

/** The part of a passkey kept in clear, from its fields (`false` from a script, `null` from HMGET: missing). */
function clearParts(n: string, c: string, l: string | null | false, r: string | null | false) {
  return {
    counter: Number(n),
    createdAt: Number(c),
    ...(typeof l === 'string' && { lastUsedAt: Number(l) }),
    ...(typeof r === 'string' && { removedAt: Number(r) }),
  };
}
