import type { ElicitationStoreKeys } from '../stores/elicitation-store.js';

/**
 * The layout of the key space, part of every key name: this version keeps no user id, type or IP address in
 * a name, and seals records and events. The keys of an earlier layout (plain `{prefix}:r:…`) are never read
 * nor written; they expire on their own TTLs but `{prefix}:d` and `{prefix}:p`, which an operator deletes
 * (README, "Stores").
 */
const LAYOUT = 'v2';

/**
 * The keys of one key prefix, all under the hash tag `{prefix}` so that a Redis Cluster keeps them in one slot
 * and every multi-key script is one atomic round trip. No name holds a user id, a type or a counter's key:
 * those parts are keyed hashes (`RedisNames`). The scripts (redis.scripts.ts) build the keys of other
 * records and users from `base` in the same shapes: `r` records, `u` per-user index, `c` completed index,
 * `a` asked index, `q` creation rate, `p` pending set.
 *
 * Every key has a TTL. The record's runs to its `purgeAt` plus `graceMs`; every other key is extended on
 * write to outlive the records it holds, so a key outlives nothing it does not need to.
 */
export interface RedisKeySpace {
  /** `{prefix}:v2`: what every key starts with (the scripts get it to build keys of their own). */
  readonly base: string;
  /** The hash of one record (fields: see redis.row-codec.ts). */
  record(id: string): string;
  /** The ids of one user's records, scored by creation time, under the user's name (`RedisNames.user`). */
  user(userName: string): string;
  /** The completed, unconsumed records of one user and type, scored by completion time (`RedisNames.completed`). */
  completed(completedName: string): string;
  /** The records of one user created with one askKey, scored by creation time (`RedisNames.asked`). */
  asked(askedName: string): string;
  /** Creation-rate counter of one user (`RedisNames.user`) in one window. */
  rate(userName: string, window: number): string;
  /**
   * Pending records of everyone, one sorted set of equal scores whose members are `<user name>:<id>`: ZCARD
   * counts all of them, ZLEXCOUNT over `<user name>:` one user's (names have a fixed length and no `:`).
   */
  readonly pending: string;
  /** A `hit` counter (`RedisNames.counter`) in one window. */
  counter(counterName: string, window: number): string;
  /** Every record under its next deadline: `expiresAt` while pending, then `purgeAt`. */
  readonly deadlines: string;
  /**
   * The key rings of the running instances (`announceKeyRing`): key ids only, each entry scored by the time it
   * lives until.
   */
  readonly keyRings: string;
  /**
   * The stream of lifecycle events (entries: stores/event-wire.ts), capped by length and age and with a TTL
   * of its age cap, so it outlives no event it keeps.
   */
  readonly events: string;
  /**
   * The marker of the asked index's upgrade (redis.asked-upgrade.ts): the token of the instance filing the records
   * written before the index, with the TTL of its lease, then `done`, for a year (so that no start scans again).
   */
  readonly askedUpgrade: string;
}

/** The key space of `prefix` (validated by the store: no braces). */
export function keySpace(prefix: string): RedisKeySpace {
  const base = `{${prefix}}:${LAYOUT}`;
  return {
    base,
    record: (id) => `${base}:r:${id}`,
    user: (userName) => `${base}:u:${userName}`,
    completed: (completedName) => `${base}:c:${completedName}`,
    asked: (askedName) => `${base}:a:${askedName}`,
    rate: (userName, window) => `${base}:q:${window}:${userName}`,
    pending: `${base}:p`,
    counter: (counterName, window) => `${base}:h:${window}:${counterName}`,
    deadlines: `${base}:d`,
    keyRings: `${base}:k`,
    events: `${base}:events`,
    askedUpgrade: `${base}:upgrade:a`,
  };
}

/**
 * The hashed parts of key names, one per key of the `encryptionKey` ring, the first key's first (written
 * under the first, read and counted under all, so a rotation finds what was written before it).
 */
export interface RedisNames {
  /** A user id's names (user index, creation rate, pending set members). */
  user(userId: string): readonly string[];
  /** The names of a user's completed index of one type. */
  completed(userId: string, type: string): readonly string[];
  /** The names of a user's asked index of one askKey (`findByAskKey`). */
  asked(userId: string, askKey: string): readonly string[];
  /**
   * A counter key's names. A leading lowercase word before the first `:` stays readable, so operators tell
   * the module's counters apart (`ip`, `form-attempts`, `request-state`, `asked-spent`): `<word>:<hash>`;
   * the whole key is hashed either way. Callers of `hit` keep personal data out of that word.
   */
  counter(key: string): readonly string[];
  /** An identity of the ring: the same for the same keys. */
  readonly ring: string;
}

/** A counter key's readable kind: its leading lowercase word. */
const COUNTER_KIND = /^([a-z][a-z-]{0,31}):/;

/** The names `keys` give. */
export function redisNames(keys: ElicitationStoreKeys): RedisNames {
  return {
    user: (userId) => keys.names('user', userId),
    completed: (userId, type) => keys.names('completed', userId, type),
    asked: (userId, askKey) => keys.names('asked', userId, askKey),
    counter: (key) => {
      const kind = COUNTER_KIND.exec(key)?.[1];
      const names = keys.names('counter', key);
      return kind ? names.map((name) => `${kind}:${name}`) : names;
    },
    ring: keys.names('ring').join(','),
  };
}
