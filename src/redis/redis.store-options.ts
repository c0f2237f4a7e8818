import {
  DEFAULT_REDIS_EVENTS_MAX_AGE_MS,
  DEFAULT_REDIS_EVENTS_MAX_LENGTH,
  DEFAULT_REDIS_GRACE_MS,
  DEFAULT_REDIS_KEY_PREFIX,
  DEFAULT_REDIS_SWEEP_BATCH,
} from './redis.defaults.js';
import { ElicitationConfigError } from '../errors/elicitation-config.error.js';

/** Options of `RedisElicitationStore`. */
export interface RedisElicitationStoreOptions {
  /**
   * Prefix of every key, the event stream's included. It is also the keys' Redis Cluster hash tag, so all of one
   * deployment's elicitations live in one slot and every multi-key operation is one atomic round trip.
   * Give each deployment (or tenant) its own prefix. Letters, digits and `._:-` only.
   * @default 'elicitation'
   */
  keyPrefix?: string;
  /**
   * How long, at least, Redis keeps a record after its `purgeAt` if no sweep removed it first (a safety net
   * for deployments that disable the sweep), in milliseconds. The record's TTL is set at creation (to its
   * first `purgeAt` plus this) and only ever extended, so a record finished before it expired may stay until
   * its first `purgeAt` plus this. The sweep forgets records at their `purgeAt` either way.
   * @default 3600000 (1 hour)
   */
  graceMs?: number;
  /**
   * Records a sweep handles per round trip (the sweep loops until nothing is due).
   * @default 500
   */
  sweepBatch?: number;
  /**
   * About how many lifecycle events the event stream keeps (`XADD MAXLEN ~`: Redis trims whole stream nodes, so
   * up to ~100 more). An instance whose connection drops reads the events it missed from the stream when it is
   * back; those trimmed before then are lost to it (it logs a warning). Keep it above your peak events per
   * second (each elicitation makes two: `created` and its final status) times the longest outage to ride out.
   * Each event takes about 0.5 KB of Redis memory (10,000: about 5 MB). A whole number of at least 1.
   * @default 10000
   */
  eventsMaxLength?: number;
  /**
   * How long, at most, the event stream keeps an event, in milliseconds (`XTRIM MINID ~`, by the time in the
   * entry's id; the cut runs when the key's TTL is renewed, about once a minute, so an event may stay up to a
   * minute longer), and the stream key's TTL once no event comes (it is extended by each one). A whole number of at
   * least 1000.
   * @default 600000 (10 minutes)
   */
  eventsMaxAgeMs?: number;
}

/** The options of a `RedisElicitationStore` with their defaults, checked. */
export interface ResolvedRedisStoreOptions {
  readonly keyPrefix: string;
  readonly graceMs: number;
  readonly sweepBatch: number;
  readonly eventsMaxLength: number;
  readonly eventsMaxAgeMs: number;
}

/** The options with their defaults (`redis.defaults.ts`); a config error names the option a bad value was given for. */
export function resolveRedisStoreOptions(options: RedisElicitationStoreOptions): ResolvedRedisStoreOptions {
  const keyPrefix = options.keyPrefix ?? DEFAULT_REDIS_KEY_PREFIX;
  if (!/^[A-Za-z0-9._:-]{1,100}$/.test(keyPrefix)) {
    throw new ElicitationConfigError('keyPrefix', 'must be 1-100 letters, digits, ".", "_", ":" or "-" (no braces)', { value: keyPrefix });
  }
  return {
    keyPrefix,
    graceMs: options.graceMs ?? DEFAULT_REDIS_GRACE_MS,
    sweepBatch: options.sweepBatch ?? DEFAULT_REDIS_SWEEP_BATCH,
    eventsMaxLength: wholeNumber('eventsMaxLength', options.eventsMaxLength ?? DEFAULT_REDIS_EVENTS_MAX_LENGTH, 1),
    eventsMaxAgeMs: wholeNumber('eventsMaxAgeMs', options.eventsMaxAgeMs ?? DEFAULT_REDIS_EVENTS_MAX_AGE_MS, 1_000),
  };
}

/** `value` when it is a whole number of at least `min`, else a config error naming `option`. */
function wholeNumber(option: string, value: number, min: number): number {
  if (Number.isSafeInteger(value) && value >= min) return value;
  throw new ElicitationConfigError(option, `must be a whole number of at least ${min}`, { value });
}
