import { EXTEND_TTL } from './redis.lua-parts.js';

/*
 * The Lua scripts of the askKey index's upgrade (redis.asked-upgrade.ts): filing the records written before the
 * index existed, once per key prefix, under a lease. Defined with the store's other scripts (redis.scripts.ts).
 */

const ASKED_START = `
-- KEYS: the upgrade marker, deadlines. ARGV: a lease's token, the lease in ms. Takes the asked index's upgrade
-- (redis.asked-upgrade.ts) for this token, and returns 1, unless the marker is there (done, or another instance
-- runs it) or the prefix holds no record (nothing to file, and no key is written into an empty prefix): 0.
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`;

const ASKED_SCAN = `
-- KEYS: deadlines (every record of the prefix, until it is purged). ARGV: cursor, count, base. One ZSCAN step for
-- the asked index's upgrade (redis.asked-upgrade.ts): the next cursor, then the id and sealed part (j) of each
-- record of the step that has no asked name (a), as {cursor, {id, j, id, j, ...}}.
local step = redis.call('ZSCAN', KEYS[1], ARGV[1], 'COUNT', tonumber(ARGV[2]))
local found = {}
for i = 1, #step[2], 2 do
  local h = redis.call('HMGET', ARGV[3] .. ':r:' .. step[2][i], 'j', 'a')
  if h[1] and not h[2] then
    found[#found + 1] = step[2][i]
    found[#found + 1] = h[1]
  end
end
return {step[1], found}
`;

const ASKED_FILE = `${EXTEND_TTL}
-- KEYS: the upgrade marker. ARGV: the lease's token, the lease in ms, base, then per record: id, asked name
-- (first), createdAt. While the marker still holds the token: renews the lease and files each record that is still
-- there and has no asked name yet as CREATE does (its a field, its entry in the asked index, which lives at least as
-- long as the record); returns how many it filed, or -1 when the lease is gone.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
local filed = 0
for i = 4, #ARGV, 3 do
  local r = ARGV[3] .. ':r:' .. ARGV[i]
  local ttl = redis.call('PTTL', r)
  if ttl > 0 and redis.call('HEXISTS', r, 'a') == 0 then
    local a = ARGV[3] .. ':a:' .. ARGV[i + 1]
    redis.call('HSET', r, 'a', ARGV[i + 1])
    redis.call('ZADD', a, ARGV[i + 2], ARGV[i])
    extend(a, ttl)
    filed = filed + 1
  end
end
return filed
`;

/** The upgrade's scripts as commands of the client (see `Scripts` in redis.scripts.ts). */
export interface AskedUpgradeScripts {
  /** 1 when the upgrade's lease was taken for `token`, 0 when the marker is there or the prefix holds no record. */
  elicitAskedStart(marker: string, d: string, token: string, leaseMs: number): Promise<0 | 1>;
  /** The next cursor, and the id and sealed part of each record of the step without an asked name. */
  elicitAskedScan(d: string, cursor: string, count: number, base: string): Promise<[string, string[]]>;
  /** How many records it filed in their asked index, or -1 when the upgrade's lease is no longer `token`'s. */
  elicitAskedFile(marker: string, token: string, leaseMs: number, base: string, ...records: (string | number)[]): Promise<number>;
}

/** Each upgrade script's command name, number of keys and source. */
export const ASKED_UPGRADE_SCRIPTS: Record<keyof AskedUpgradeScripts, { numberOfKeys: number; lua: string }> = {
  elicitAskedStart: { numberOfKeys: 2, lua: ASKED_START },
  elicitAskedScan: { numberOfKeys: 1, lua: ASKED_SCAN },
  elicitAskedFile: { numberOfKeys: 1, lua: ASKED_FILE },
};
