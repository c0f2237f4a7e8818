/** The Redis store's defaults (its own options: `RedisElicitationStoreOptions`), kept beside it. */
/** Default key prefix of the Redis store (`RedisElicitationStore` option `keyPrefix`). */
export const DEFAULT_REDIS_KEY_PREFIX = 'elicitation';
/** Default time Redis keeps a record past its `purgeAt` when no sweep removed it first: 1 hour. */
export const DEFAULT_REDIS_GRACE_MS = 3_600_000;
/** Default number of records a Redis sweep handles per round trip. */
export const DEFAULT_REDIS_SWEEP_BATCH = 500;
/** Default length cap of the Redis event stream (`RedisElicitationStore` option `eventsMaxLength`): 10,000 events. */
export const DEFAULT_REDIS_EVENTS_MAX_LENGTH = 10_000;
/** Default age cap of the Redis event stream (`RedisElicitationStore` option `eventsMaxAgeMs`): 10 minutes. */
export const DEFAULT_REDIS_EVENTS_MAX_AGE_MS = 10 * 60_000;
