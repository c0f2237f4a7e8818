/**
 * The keys of one key prefix, all under the hash tag `{prefix}` so that a Redis Cluster keeps them in one slot
 * and every multi-key script is one atomic round trip. The scripts (redis.scripts.ts) build the keys of other
 * records and users from `base` in the same shapes: `r` records, `u` per-user index, `c` completed index,
 * `p` pending set.
 */
export interface RedisKeySpace {
  /** `{prefix}`: what every key starts with (the scripts get it to build keys of their own). */
  readonly base: string;
  /** The hash of one record (fields: see redis.row-codec.ts). */
  record(id: string): string;
  /** The ids of one user's records, scored by creation time. */
  user(userId: string): string;
  /**
   * The completed, unconsumed records of one user and type, scored by completion time. The user id's length
   * is in UTF-8 bytes, as the scripts' `string.len` counts it.
   */
  completed(userId: string, type: string): string;
  /** Creation-rate counter of one user in one window. */
  rate(userId: string, window: number): string;
  /**
   * Pending records of everyone, one sorted set of equal scores whose members are `<userId bytes>:<userId>:<id>`:
   * ZCARD counts all of them, ZLEXCOUNT over `<bytes>:<userId>:` one user's.
   */
  readonly pending: string;
  /** A `hit` counter of one key in one window. */
  counter(key: string, window: number): string;
  /** Every record under its next deadline: `expiresAt` while pending, then `purgeAt`. */
  readonly deadlines: string;
  /** The pub/sub channel of lifecycle events (see redis.event-wire.ts). */
  readonly channel: string;
}

/** The key space of `prefix` (validated by the store: no braces). */
export function keySpace(prefix: string): RedisKeySpace {
  const base = `{${prefix}}`;
  return {
    base,
    record: (id) => `${base}:r:${id}`,
    user: (userId) => `${base}:u:${userId}`,
    completed: (userId, type) => `${base}:c:${Buffer.byteLength(userId)}:${userId}:${type}`,
    rate: (userId, window) => `${base}:q:${window}:${userId}`,
    pending: `${base}:p`,
    counter: (key, window) => `${base}:h:${window}:${key}`,
    deadlines: `${base}:d`,
    channel: `${base}:events`,
  };
}
