import type { ElicitationStoreKeys } from '../stores/elicitation-store.js';
import { openTask, sealTask, type SealedTaskParts } from '../stores/sealed-task.codec.js';
import { callRedis } from './redis.client.js';
import type { RedisStoreKeys } from './redis.key-ring.js';
import { EXTEND_TTL } from './redis.lua-parts.js';
import {
  OPEN_TASK_STATUSES,
  type CreateTaskResult,
  type ElicitationTaskStore,
  type FinishedTaskLimit,
  type PutTaskResult,
  type StoredTask,
  type TaskStatus,
} from '../stores/task-store.js';

/*
 * The tasks of the Redis store (the MCP Tasks extension), a hash per task and a sorted set per user of the user's
 * open tasks scored by expiresAt, under the store's key space:
 *   {prefix}:v2:t:<id>             s status, c createdAt, m updatedAt, e expiresAt, n version, o/l the lease's owner
 *                                  and until (Redis's clock: a grant is stamped with TIME), u the user's name (keyed hash), b the user id and the binding's body,
 *                                  sealed together (stores/sealed-task.codec.ts); its TTL runs to expiresAt plus
 *                                  graceMs
 *   {prefix}:v2:to:<user name>     the user's open tasks, scored by expiresAt (one per name of the key ring)
 *   {prefix}:v2:tf:<user name>     the user's finished tasks, scored by when they finished (`tasks.maxFinishedPerUser`)
 *   {prefix}:v2:tf                 every finished task as `<user name> <id>`, scored the same (`tasks.maxFinished`)
 * Each operation is one script, so one round trip; the write is a compare-and-set on `n`.
 */

/**
 * A lease's `until` as written: the one given, or (a grant: `grantMs`) Redis's own clock now plus the grant, so that a
 * lease is timed by one clock whatever the instances' clocks say.
 */
const LUA_LEASE_UNTIL = `local function lease_until(given, grant)
  if grant == '' then return given end
  local t = redis.call('TIME')
  return tostring(tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(grant))
end
`;

/** The statuses of an open task (`OPEN_TASK_STATUSES`, the one definition) as a Lua set: `is_open[status]`. */
export const LUA_IS_OPEN = `local is_open = { ${OPEN_TASK_STATUSES.map((status) => `[${JSON.stringify(status)}] = true`).join(', ')} }\n`;

const CREATE_TASK = `${EXTEND_TTL}${LUA_IS_OPEN}${LUA_LEASE_UNTIL}
-- KEYS: the task, then the user's open sets (one per name of the ring, the first first).
-- ARGV: id, status, updatedAt, expiresAt, version, lease owner ('' for none), lease until, lease grant ('' for none),
-- body (as PUT_TASK's), then createdAt, user name (first), maxOpenPerUser, graceMs.
if redis.call('EXISTS', KEYS[1]) == 1 then return 'exists' end
local open = 0
for i = 2, #KEYS do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', ARGV[10])
  open = open + redis.call('ZCARD', KEYS[i])
end
if open >= tonumber(ARGV[12]) then return 'user-task-limit' end
redis.call('HSET', KEYS[1], 's', ARGV[2], 'c', ARGV[10], 'm', ARGV[3], 'e', ARGV[4], 'n', ARGV[5], 'b', ARGV[9], 'u', ARGV[11])
if ARGV[6] ~= '' then redis.call('HSET', KEYS[1], 'o', ARGV[6], 'l', lease_until(ARGV[7], ARGV[8])) end
local keep = tonumber(ARGV[4]) - tonumber(ARGV[10]) + tonumber(ARGV[13])
redis.call('PEXPIRE', KEYS[1], keep)
if is_open[ARGV[2]] then
  redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
  extend(KEYS[2], keep)
end
return 'created'
`;

/**
 * A task that just finished is filed in its user's finished set and the store's (scored by when it finished), and the
 * oldest finished past the bounds are forgotten, never the one just filed. Entries older than a task's lifetime are
 * dropped first: their tasks expired (a task finishes after it was created, and lives `ttl` from its creation).
 */
const LUA_FILE_FINISHED = `local function forget_oldest(set, over, keep, member_of)
  while redis.call('ZCARD', set) > over do
    local oldest = redis.call('ZRANGE', set, 0, 1)
    local member = oldest[1] == keep and oldest[2] or oldest[1]
    redis.call('ZREM', set, member)
    member_of(member)
  end
end
local function file_finished(base, user, id, now, ttl, per_user, all)
  local mine, every = base .. ':tf:' .. user, base .. ':tf'
  redis.call('ZREMRANGEBYSCORE', mine, '-inf', now - ttl)
  redis.call('ZREMRANGEBYSCORE', every, '-inf', now - ttl)
  redis.call('ZADD', mine, now, id)
  redis.call('ZADD', every, now, user .. ' ' .. id)
  redis.call('PEXPIRE', mine, ttl)
  forget_oldest(mine, per_user, id, function(gone)
    redis.call('DEL', base .. ':t:' .. gone)
    redis.call('ZREM', every, user .. ' ' .. gone)
  end)
  forget_oldest(every, all, user .. ' ' .. id, function(gone)
    local at = string.find(gone, ' ', 1, true)
    local owner, gone_id = string.sub(gone, 1, at - 1), string.sub(gone, at + 1)
    redis.call('DEL', base .. ':t:' .. gone_id)
    redis.call('ZREM', base .. ':tf:' .. owner, gone_id)
  end)
end
`;

const PUT_TASK = `${EXTEND_TTL}${LUA_IS_OPEN}${LUA_LEASE_UNTIL}${LUA_FILE_FINISHED}
-- KEYS: the task. ARGV: id, status, updatedAt, expiresAt, version, lease owner ('' for none), lease until, lease grant
-- ('' for none), body, now, base, graceMs, maxFinishedPerUser and maxFinished ('' for no bound). Written only over
-- version - 1, before the stored expiresAt.
local h = redis.call('HMGET', KEYS[1], 'n', 'e', 'u', 's', 'c')
local now = tonumber(ARGV[10])
if not h[1] or tonumber(h[2]) <= now then return 'not-found' end
if tonumber(h[1]) ~= tonumber(ARGV[5]) - 1 then return 'conflict' end
redis.call('HSET', KEYS[1], 's', ARGV[2], 'm', ARGV[3], 'e', ARGV[4], 'n', ARGV[5], 'b', ARGV[9])
if ARGV[6] ~= '' then redis.call('HSET', KEYS[1], 'o', ARGV[6], 'l', lease_until(ARGV[7], ARGV[8])) else redis.call('HDEL', KEYS[1], 'o', 'l') end
local open = ARGV[11] .. ':to:' .. h[3]
if ARGV[4] ~= h[2] then
  local keep = tonumber(ARGV[4]) - now + tonumber(ARGV[12])
  redis.call('PEXPIRE', KEYS[1], keep)
  if is_open[ARGV[2]] then
    redis.call('ZADD', open, ARGV[4], ARGV[1])
    extend(open, keep)
  end
end
if not is_open[ARGV[2]] then
  redis.call('ZREM', open, ARGV[1])
  if is_open[h[4]] and ARGV[13] ~= '' then
    file_finished(ARGV[11], h[3], ARGV[1], now, tonumber(ARGV[4]) - tonumber(h[5]), tonumber(ARGV[13]), tonumber(ARGV[14]))
  end
end
return 'written'
`;

/** The task fields read back, in order. */
const TASK_FIELDS = ['s', 'c', 'm', 'e', 'n', 'o', 'l', 'b'] as const;

/** KEYS: the task. Its fields (TASK_FIELDS, in order), then Redis's clock now in ms (for the lease's `remainingMs`). */
const GET_TASK = `local h = redis.call('HMGET', KEYS[1], ${TASK_FIELDS.map((f) => `'${f}'`).join(', ')})
local t = redis.call('TIME')
h[${TASK_FIELDS.length + 1}] = tostring(tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
return h
`;

/** The task scripts, defined on the client with the store's others (`defineScripts`). */
export interface TaskScripts {
  elicitCreateTask(numKeys: number, ...keysAndArgv: (string | number)[]): Promise<CreateTaskResult>;
  elicitPutTask(task: string, ...argv: (string | number)[]): Promise<PutTaskResult>;
  elicitGetTask(task: string): Promise<Array<string | null>>;
}

export const TASK_SCRIPTS: Record<keyof TaskScripts, { numberOfKeys?: number; lua: string }> = {
  elicitCreateTask: { lua: CREATE_TASK },
  elicitPutTask: { numberOfKeys: 1, lua: PUT_TASK },
  elicitGetTask: { numberOfKeys: 1, lua: GET_TASK },
};

/** The task members of `RedisElicitationStore` (see `ElicitationTaskStore`). */
export class RedisTasks implements ElicitationTaskStore {
  /** The store's scripts (`defineScripts`), key space base, key ring and grace. */
  constructor(
    private readonly scripts: TaskScripts,
    private readonly base: string,
    private readonly keyRing: RedisStoreKeys,
    private readonly graceMs: number,
  ) {}

  async createTask(task: StoredTask, limit: { maxOpenPerUser: number }): Promise<CreateTaskResult> {
    const { keys, names } = this.keyRing.require();
    const users = names.user(task.userId);
    const keyList = [this.key(task.id), ...users.map((user) => `${this.base}:to:${user}`)];
    return callRedis('createTask', () =>
      this.scripts.elicitCreateTask(
        keyList.length,
        ...keyList,
        ...changeArgs(task, keys),
        task.createdAt,
        users[0],
        limit.maxOpenPerUser,
        this.graceMs,
      ),
    );
  }

  async getTask(id: string, now: number): Promise<StoredTask | undefined> {
    const { keys } = this.keyRing.require();
    const [s, c, m, e, n, o, l, b, clock] = await callRedis('getTask', () => this.scripts.elicitGetTask(this.key(id)));
    if (s === null || e === null || b === null || Number(e) <= now) return undefined;
    const { userId, body } = openTask(id, b, keys, sealedAsArray);
    return {
      id,
      userId,
      status: s as TaskStatus,
      createdAt: Number(c),
      updatedAt: Number(m),
      expiresAt: Number(e),
      version: Number(n),
      ...(o !== null && l !== null && { lease: { owner: o, until: Number(l), remainingMs: Number(l) - Number(clock) } }),
      body,
    };
  }

  /** Each task's script sent at once on the connection (one round trip's wait; keys of any slot, for a cluster). */
  getTasks(ids: readonly string[], now: number): Promise<Array<StoredTask | undefined>> {
    return Promise.all(ids.map((id) => this.getTask(id, now)));
  }

  async putTask(task: StoredTask, now: number, finished?: FinishedTaskLimit): Promise<PutTaskResult> {
    const { keys } = this.keyRing.require();
    return callRedis('putTask', () =>
      this.scripts.elicitPutTask(
        this.key(task.id),
        ...changeArgs(task, keys),
        now,
        this.base,
        this.graceMs,
        finished?.maxFinishedPerUser ?? '',
        finished?.maxFinished ?? '',
      ),
    );
  }

  private key(id: string): string {
    return `${this.base}:t:${id}`;
  }
}

/** The arguments both scripts begin with: what a write sets (the user id and the body sealed together). */
function changeArgs(task: StoredTask, keys: ElicitationStoreKeys): Array<string | number> {
  const sealed = sealTask(task, keys);
  const { lease } = task;
  return [
    task.id,
    task.status,
    task.updatedAt,
    task.expiresAt,
    task.version,
    lease?.owner ?? '',
    lease?.until ?? '',
    lease?.grantMs ?? '',
    sealed,
  ];
}

/**
 * A task this store sealed before the shape was one for every store (#40): `[userId, body]`. Read while such a task
 * may live (`tasks.ttlMs`, a day by default; its next write seals it in the one shape), then to be dropped.
 */
function sealedAsArray(opened: unknown): SealedTaskParts | undefined {
  if (!Array.isArray(opened) || opened.length !== 2) return undefined;
  const [userId, body] = opened as unknown[];
  return typeof userId === 'string' && typeof body === 'string' ? { userId, body } : undefined;
}
