import type { ElicitationNoticeStore, NewNotice, NoticeOutboxStats, NoticeOutcome, StoredNotice } from '../stores/notice-store.js';
import { callRedis } from './redis.client.js';
import { EXTEND_TTL } from './redis.lua-parts.js';

/*
 * The outbox of the Redis store (`ElicitationNoticeStore`), under the store's key space (so in its hash tag):
 *   {prefix}:v2:n:<id>   one notice: e elicitationId, d dueAt (a claim's lease end while claimed), f forgetAt, b body,
 *                        s state (`pending` or `failed`), a attempts, o owner, l lastError; in clear (a notice holds
 *                        ids, times and the module's body, never an answer or a secret); its TTL runs to its
 *                        forgetAt plus graceMs
 *   {prefix}:v2:nd       the pending notices' ids, scored by dueAt (a claim takes the earliest due)
 *   {prefix}:v2:nf       every notice's id, pending or failed, scored by forgetAt (so failed = ZCARD nf - ZCARD nd)
 *   {prefix}:v2:nc       the notices delivered, a counter
 * The sets and the counter are extended on write to outlive the notices they count. Each operation is one script, so
 * one round trip and one atomic step; each first forgets the notices past their forgetAt (each is forgotten once, so
 * a script forgets what fell due since the last one).
 */

const FORGET_PAST = `local function forget_past(base, pending, forget, now)
  local gone = redis.call('ZRANGEBYSCORE', forget, '-inf', now)
  for _, id in ipairs(gone) do
    redis.call('DEL', base .. ':n:' .. id)
    redis.call('ZREM', pending, id)
  end
  if #gone > 0 then redis.call('ZREMRANGEBYSCORE', forget, '-inf', now) end
end
`;

const ADD_NOTICES = `${EXTEND_TTL}${FORGET_PAST}
-- KEYS: pending (nd), forget (nf). ARGV: base, now, graceMs, then five per notice: id, elicitationId, dueAt,
-- forgetAt, body. Keeps the notices whose ids it does not hold; returns how many it added.
local base, now, grace = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
forget_past(base, KEYS[1], KEYS[2], now)
local added = 0
for i = 4, #ARGV, 5 do
  local key = base .. ':n:' .. ARGV[i]
  if redis.call('EXISTS', key) == 0 then
    redis.call('HSET', key, 'e', ARGV[i + 1], 'd', ARGV[i + 2], 'f', ARGV[i + 3], 'b', ARGV[i + 4], 's', 'pending', 'a', 0)
    local keep = math.max(tonumber(ARGV[i + 3]) - now, 0) + grace
    redis.call('PEXPIRE', key, keep)
    redis.call('ZADD', KEYS[1], ARGV[i + 2], ARGV[i])
    redis.call('ZADD', KEYS[2], ARGV[i + 3], ARGV[i])
    extend(KEYS[1], keep)
    extend(KEYS[2], keep)
    added = added + 1
  end
end
return added
`;

const CLAIM_NOTICES = `${FORGET_PAST}
-- KEYS: pending (nd), forget (nf). ARGV: base, now, limit, leaseMs, owner. Claims the earliest due (dueAt <= now,
-- then by id): owner, one more attempt, dueAt moved to the lease's end. Returns each claimed notice as {id,
-- elicitationId, dueAt, forgetAt, body, attempts, lastError}.
local base, now = ARGV[1], tonumber(ARGV[2])
forget_past(base, KEYS[1], KEYS[2], now)
local lease_end = now + tonumber(ARGV[4])
local out = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))) do
  local key = base .. ':n:' .. id
  local h = redis.call('HMGET', key, 'e', 'f', 'b', 's', 'a', 'l')
  if h[1] and h[4] == 'pending' then
    local attempts = tonumber(h[5]) + 1
    redis.call('HSET', key, 'o', ARGV[5], 'a', attempts, 'd', lease_end)
    redis.call('ZADD', KEYS[1], lease_end, id)
    out[#out + 1] = { id, h[1], lease_end, h[2], h[3], attempts, h[6] }
  else
    redis.call('ZREM', KEYS[1], id)
  end
end
return out
`;

const SETTLE_NOTICE = `${EXTEND_TTL}${FORGET_PAST}
-- KEYS: pending (nd), forget (nf), delivered (nc). ARGV: base, now, graceMs, id, owner, outcome (delivered, retry,
-- failed, dropped), dueAt (retry), error and body ('' when absent, else '=' and the text). Returns 1 when settled,
-- 0 when the notice is gone or not owner's (changing nothing).
local base, now = ARGV[1], tonumber(ARGV[2])
forget_past(base, KEYS[1], KEYS[2], now)
local id, kind = ARGV[4], ARGV[6]
local key = base .. ':n:' .. id
local h = redis.call('HMGET', key, 's', 'o', 'f')
if h[1] ~= 'pending' or h[2] ~= ARGV[5] or tonumber(h[3]) <= now then return 0 end
if kind == 'delivered' or kind == 'dropped' then
  redis.call('DEL', key)
  redis.call('ZREM', KEYS[1], id)
  redis.call('ZREM', KEYS[2], id)
  if kind == 'delivered' then
    redis.call('INCR', KEYS[3])
    extend(KEYS[3], tonumber(h[3]) - now + tonumber(ARGV[3]))
  end
elseif kind == 'retry' then
  redis.call('HSET', key, 'd', ARGV[7])
  if ARGV[8] ~= '' then redis.call('HSET', key, 'l', string.sub(ARGV[8], 2)) end
  if ARGV[9] ~= '' then redis.call('HSET', key, 'b', string.sub(ARGV[9], 2)) end
  redis.call('ZADD', KEYS[1], ARGV[7], id)
elseif kind == 'failed' then
  redis.call('HSET', key, 's', 'failed', 'l', string.sub(ARGV[8], 2))
  redis.call('ZREM', KEYS[1], id)
else
  return redis.error_reply('unknown outcome ' .. kind)
end
return 1
`;

const NOTICE_STATS = `${FORGET_PAST}
-- KEYS: pending (nd), forget (nf), delivered (nc). ARGV: base, now. Returns {pending, failed, delivered, the
-- earliest dueAt of a pending notice (false with none)}.
forget_past(ARGV[1], KEYS[1], KEYS[2], tonumber(ARGV[2]))
local pending = redis.call('ZCARD', KEYS[1])
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return { pending, redis.call('ZCARD', KEYS[2]) - pending, redis.call('GET', KEYS[3]) or '0', first[2] or false }
`;

/** A claimed notice as CLAIM_NOTICES returns it. */
type ClaimedRow = [string, string, number, string, string, number, string | null];

/** The outbox's scripts as commands of the client (see `defineScripts`). */
export interface NoticeScripts {
  elicitAddNotices(pending: string, forget: string, ...argv: (string | number)[]): Promise<number>;
  elicitClaimNotices(pending: string, forget: string, ...argv: (string | number)[]): Promise<ClaimedRow[]>;
  elicitSettleNotice(pending: string, forget: string, delivered: string, ...argv: (string | number)[]): Promise<0 | 1>;
  elicitNoticeStats(
    pending: string,
    forget: string,
    delivered: string,
    ...argv: (string | number)[]
  ): Promise<[number, number, string, string | null]>;
}

export const NOTICE_SCRIPTS: Record<keyof NoticeScripts, { numberOfKeys?: number; lua: string }> = {
  elicitAddNotices: { numberOfKeys: 2, lua: ADD_NOTICES },
  elicitClaimNotices: { numberOfKeys: 2, lua: CLAIM_NOTICES },
  elicitSettleNotice: { numberOfKeys: 3, lua: SETTLE_NOTICE },
  elicitNoticeStats: { numberOfKeys: 3, lua: NOTICE_STATS },
};

/** An optional text as SETTLE_NOTICE reads it: `''` when absent, else `=` and the text (so `''` stays a text). */
const optional = (text: string | undefined): string => (text === undefined ? '' : `=${text}`);

/** The outbox members of `RedisElicitationStore` (see `ElicitationNoticeStore`). */
export class RedisNotices implements ElicitationNoticeStore {
  private readonly pending: string;
  private readonly forget: string;
  private readonly delivered: string;

  /** The store's scripts (`defineScripts`), key space base and grace. */
  constructor(
    private readonly scripts: NoticeScripts,
    private readonly base: string,
    private readonly graceMs: number,
  ) {
    this.pending = `${base}:nd`;
    this.forget = `${base}:nf`;
    this.delivered = `${base}:nc`;
  }

  async addNotices(notices: readonly NewNotice[], now: number): Promise<number> {
    const argv = notices.flatMap((n) => [n.id, n.elicitationId, n.dueAt, n.forgetAt, n.body]);
    return callRedis('addNotices', () => this.scripts.elicitAddNotices(this.pending, this.forget, this.base, now, this.graceMs, ...argv));
  }

  async claimNotices(owner: string, now: number, limit: number, leaseMs: number): Promise<StoredNotice[]> {
    const rows = await callRedis('claimNotices', () =>
      this.scripts.elicitClaimNotices(this.pending, this.forget, this.base, now, Math.max(0, limit), leaseMs, owner),
    );
    return rows.map(([id, elicitationId, dueAt, forgetAt, body, attempts, lastError]) => ({
      id,
      elicitationId,
      dueAt: Number(dueAt),
      forgetAt: Number(forgetAt),
      body,
      state: 'pending',
      attempts: Number(attempts),
      owner,
      ...(lastError !== null && { lastError }),
    }));
  }

  async settleNotice(id: string, owner: string, outcome: NoticeOutcome, now: number): Promise<boolean> {
    const [dueAt, error, body] =
      outcome.kind === 'retry'
        ? [outcome.dueAt, optional(outcome.error), optional(outcome.body)]
        : ['', outcome.kind === 'failed' ? optional(outcome.error) : '', ''];
    const settled = await callRedis('settleNotice', () =>
      this.scripts.elicitSettleNotice(
        this.pending,
        this.forget,
        this.delivered,
        this.base,
        now,
        this.graceMs,
        id,
        owner,
        outcome.kind,
        dueAt,
        error,
        body,
      ),
    );
    return settled === 1;
  }

  async noticeStats(now: number): Promise<NoticeOutboxStats> {
    const [pending, failed, delivered, oldest] = await callRedis('noticeStats', () =>
      this.scripts.elicitNoticeStats(this.pending, this.forget, this.delivered, this.base, now),
    );
    return { pending, failed, delivered: Number(delivered), ...(oldest !== null && { oldestDueAt: Number(oldest) }) };
  }
}
