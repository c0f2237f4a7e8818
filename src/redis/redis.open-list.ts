import type { ElicitationStoreKeys } from '../stores/elicitation-store.js';
import { openCursorOf, readOpenCursor, type OpenPage, type OpenPageRequest } from '../stores/notice-store.js';
import { callRedis } from './redis.client.js';
import type { RedisKeySpace } from './redis.key-space.js';
import { LUA_FIELDS, toRecord, type Row } from './redis.row-codec.js';

/*
 * The inbox of the Redis store (`listOpen`): a user's open records, newest first, a page per script. It reads the
 * index the store already keeps of a user's pending records, the pending set (`{prefix}:v2:p`, members
 * `<user name>:<id>`, which CREATE adds, and FINISH and SWEEP remove), so it needs no key of its own and no change to
 * the scripts that write: a user holds few pending records (`limits.maxPendingPerUser`, 20 by default), and the page
 * is cut from all of them. A record's `createdAt` is sealed in the record; its user index (`{prefix}:v2:u:<name>`)
 * scores it by it in clear.
 */

/**
 * Byte-wise `a < b`: Lua's `<` on strings follows the server's collation (`strcoll`: Redis sets the locale), and the
 * order of ids must be the code-unit order of every other store (ids are ASCII).
 */
const LUA_BYTES_BEFORE = `local function bytes_before(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a < #b
end
`;

const LIST_OPEN = `${LUA_BYTES_BEFORE}
-- KEYS: the pending set. ARGV: base, now, limit, the cursor's createdAt and id ('' and '' for the first page), then
-- the user's names (one per key of the ring). Returns {1 when more open records follow the page else 0, then the
-- page's records (FIELDS), newest first (createdAt, then id, descending)}. Members of records that are gone are
-- dropped from the pending set on the way.
local now, limit = tonumber(ARGV[2]), tonumber(ARGV[3])
local after_at, after_id = tonumber(ARGV[4]), ARGV[5]
local open = {}
for i = 6, #ARGV do
  local name = ARGV[i]
  local index = ARGV[1] .. ':u:' .. name
  for _, member in ipairs(redis.call('ZRANGEBYLEX', KEYS[1], '[' .. name .. ':', '(' .. name .. ';')) do
    local id = string.sub(member, #name + 2)
    local h = redis.call('HMGET', ARGV[1] .. ':r:' .. id, 's', 'e')
    if not h[1] then
      redis.call('ZREM', KEYS[1], member)
    elseif h[1] == 'pending' and tonumber(h[2]) > now then
      local at = tonumber(redis.call('ZSCORE', index, id))
      if at and (not after_at or at < after_at or (at == after_at and bytes_before(id, after_id))) then
        open[#open + 1] = { at, id }
      end
    end
  end
end
table.sort(open, function(a, b)
  if a[1] ~= b[1] then return a[1] > b[1] end
  return bytes_before(b[2], a[2])
end)
local out = { #open > limit and 1 or 0 }
for i = 1, math.min(limit, #open) do
  out[#out + 1] = redis.call('HMGET', ARGV[1] .. ':r:' .. open[i][2], ${LUA_FIELDS})
end
return out
`;

/** The inbox's script as a command of the client (see `defineScripts`). */
export interface OpenListScripts {
  /** `[1 when more follow, else 0, ...the page's rows]`. */
  elicitListOpen(pending: string, ...argv: (string | number)[]): Promise<[0 | 1, ...Row[]]>;
}

export const OPEN_LIST_SCRIPTS: Record<keyof OpenListScripts, { numberOfKeys?: number; lua: string }> = {
  elicitListOpen: { numberOfKeys: 1, lua: LIST_OPEN },
};

/** Where `listOpenRecords` reads: the store's scripts, key space, and the keys of its ring with the user's names. */
export interface OpenListSource {
  readonly scripts: OpenListScripts;
  readonly keys: Pick<RedisKeySpace, 'base' | 'pending'>;
  readonly sealing: ElicitationStoreKeys;
  /** The user's names (`RedisNames.user`), one per key of the ring. */
  readonly userNames: readonly string[];
}

/**
 * One page of a user's open records (`ElicitationInboxStore.listOpen`) in one script: the user's pending records
 * under each of the ring's names, past the cursor, sorted and cut in Redis; the page's records opened as `get` opens
 * them.
 */
export async function listOpenRecords(source: OpenListSource, now: number, page: OpenPageRequest): Promise<OpenPage> {
  const { scripts, keys, sealing, userNames } = source;
  const after = readOpenCursor(page.after);
  const [more, ...rows] = await callRedis('listOpen', () =>
    scripts.elicitListOpen(keys.pending, keys.base, now, page.limit, after?.createdAt ?? '', after?.id ?? '', ...userNames),
  );
  const records = rows.map((row) => toRecord(row, sealing));
  const last = records.at(-1);
  return { records, ...(more === 1 && last && { next: openCursorOf(last) }) };
}
