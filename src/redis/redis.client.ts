import { Redis, type Cluster, type RedisOptions } from 'ioredis';
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
 * Whether `redis` is a Cluster client. Read from ioredis's own `isCluster` flag, not `instanceof Cluster`: the
 * client is the app's, made by the app's copy of ioredis, which need not be the copy this package resolves.
 */
export function isClusterClient(redis: RedisClient): redis is Cluster {
  return redis.isCluster === true;
}

/**
 * A new connection with the options of `redis`, `override` on top (for the event stream's reader: a
 * connection blocked in XREAD can run no other command). On a Cluster `override` goes to the options of
 * each node's connection.
 */
export function duplicateClient(redis: RedisClient, override: RedisOptions = {}): RedisClient {
  if (isClusterClient(redis)) return redis.duplicate([], { redisOptions: { ...redis.options.redisOptions, ...override } });
  return redis.duplicate(override);
}

/** The `connectionName` (CLIENT SETNAME) the connections of `redis` are opened with, if any. */
export function connectionNameOf(redis: RedisClient): string | undefined {
  return isClusterClient(redis) ? redis.options.redisOptions?.connectionName : redis.options.connectionName;
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
