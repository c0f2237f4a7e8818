import type { AuditLink, ElicitationAuditChainStore } from '../stores/audit-chain-store.js';
import { callRedis, type RedisClient } from './redis.client.js';

/*
 * The audit chains of the Redis store (`ElicitationAuditChainStore`): a list per stream, under the store's key space
 * (so in its hash tag), `{prefix}:v2:ac:<stream>`, the `seq`-th line at index `seq - 1`. A line is appended by a
 * script only when the list holds `seq - 1` lines, so of two appends of one `seq` one wins. The stream's name is in
 * the key's name, in clear: the module names streams, never after a user. No TTL: lines are kept until an operator
 * deletes them.
 */

const APPEND_AUDIT_LINK = `-- KEYS: the stream's list. ARGV: seq, line. Returns 1 when appended (the list held seq - 1 lines), else 0.
if redis.call('LLEN', KEYS[1]) ~= tonumber(ARGV[1]) - 1 then return 0 end
redis.call('RPUSH', KEYS[1], ARGV[2])
return 1
`;

const LAST_AUDIT_LINK = `-- KEYS: the stream's list. Returns {its length, its last line} ({0} when empty).
local n = redis.call('LLEN', KEYS[1])
if n == 0 then return { 0 } end
return { n, redis.call('LINDEX', KEYS[1], -1) }
`;

/** The audit-chain scripts as commands of the client. */
interface AuditChainScripts {
  elicitAppendAuditLink(list: string, seq: number, line: string): Promise<0 | 1>;
  elicitLastAuditLink(list: string): Promise<[number, string?]>;
}

const AUDIT_CHAIN_SCRIPTS: Record<keyof AuditChainScripts, { numberOfKeys: number; lua: string }> = {
  elicitAppendAuditLink: { numberOfKeys: 1, lua: APPEND_AUDIT_LINK },
  elicitLastAuditLink: { numberOfKeys: 1, lua: LAST_AUDIT_LINK },
};

/** Defines the audit-chain scripts as commands of `redis` (once per client, as `defineScripts` does the store's others). */
function defineAuditChainScripts(redis: RedisClient): RedisClient & AuditChainScripts {
  for (const [name, definition] of Object.entries(AUDIT_CHAIN_SCRIPTS)) {
    if (!(name in redis)) redis.defineCommand(name, definition);
  }
  if (!hasAuditChainScripts(redis)) throw new Error('ioredis did not define the elicitation store audit-chain scripts');
  return redis;
}

function hasAuditChainScripts(redis: RedisClient): redis is RedisClient & AuditChainScripts {
  return Object.keys(AUDIT_CHAIN_SCRIPTS).every((name) => typeof Reflect.get(redis, name) === 'function');
}

/** The audit-chain members of `RedisElicitationStore` (see `ElicitationAuditChainStore`). */
export class RedisAuditChain implements ElicitationAuditChainStore {
  private readonly redis: RedisClient & AuditChainScripts;

  /** The store's client and key space base (`{prefix}:v2`). */
  constructor(
    redis: RedisClient,
    private readonly base: string,
  ) {
    this.redis = defineAuditChainScripts(redis);
  }

  async lastAuditLink(stream: string): Promise<AuditLink | undefined> {
    const [seq, line] = await callRedis('lastAuditLink', () => this.redis.elicitLastAuditLink(this.key(stream)));
    return seq > 0 && line !== undefined ? { stream, seq, line } : undefined;
  }

  async appendAuditLink(link: AuditLink): Promise<boolean> {
    if (!Number.isSafeInteger(link.seq) || link.seq < 1) return false;
    const appended = await callRedis('appendAuditLink', () => this.redis.elicitAppendAuditLink(this.key(link.stream), link.seq, link.line));
    return appended === 1;
  }

  async readAuditLinks(stream: string, fromSeq: number, limit: number): Promise<AuditLink[]> {
    const from = Math.max(1, Math.floor(fromSeq));
    const count = Math.floor(limit);
    if (count <= 0) return [];
    const lines = await callRedis('readAuditLinks', () => this.redis.lrange(this.key(stream), from - 1, from - 2 + count));
    return lines.map((line, i) => ({ stream, seq: from + i, line }));
  }

  private key(stream: string): string {
    return `${this.base}:ac:${stream}`;
  }
}
