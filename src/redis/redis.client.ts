import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { ElicitationStoreUnavailableError } from '../errors/elicitation-store-unavailable.error.js';

/** An ioredis connection the store works on: standalone or Sentinel (`Redis`), or `Cluster`. */
export type RedisClient = Redis | Cluster;

/** Whether `value` is an ioredis client (rather than connection options). */
export function isRedisClient(value: unknown): value is RedisClient {
  return (
    typeof value === 'object' &&
    value !== null &&
    'hgetall' in value &&
    typeof value.hgetall === 'function' &&
    'duplicate' in value &&
    typeof value.duplicate === 'function'
  );
}

/**
 * A new connection with the options of `redis` (for a subscriber: a subscribed connection can run no other
 * command). Both branches make the same call; they differ only in the type of what it returns.
 */
export function duplicateClient(redis: RedisClient): RedisClient {
  if (redis instanceof Cluster) return redis.duplicate();
  return redis.duplicate();
}

/**
 * A connection the store creates (and so owns), from a URL or ioredis options. It reconnects quickly (every
 * 100 ms up to 1 s apart) and gives up on a queued command after a failed reconnect or 2 s, so an outage is a
 * quick 503 rather than hung requests, and service (and the event subscription, which inherits these options)
 * comes back within a second of Redis. Given options override these.
 */
export function connectOwnClient(target: string | RedisOptions): Redis {
  const defaults: RedisOptions = {
    maxRetriesPerRequest: 1,
    commandTimeout: 2_000,
    connectTimeout: 2_000,
    retryStrategy: (times) => Math.min(times * 100, 1_000),
  };
  const redis = typeof target === 'string' ? new Redis(target, defaults) : new Redis({ ...defaults, ...target });
  redis.on('error', () => undefined); // reported per operation as ElicitationStoreUnavailableError
  return redis;
}

/** Runs one Redis call, turning connection failures into ElicitationStoreUnavailableError. */
export async function callRedis<T>(operation: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw new ElicitationStoreUnavailableError(operation, error);
  }
}
