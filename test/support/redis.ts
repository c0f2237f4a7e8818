import type { describe } from '@jest/globals';
import { describeOrSkip } from './describe-or-skip.js';
import { Redis } from 'ioredis';

/** The Redis the tests use: `REDIS_URL`, default the local server. */
export const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

async function probe(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1_000, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** Whether a real Redis answers at REDIS_URL (probed once per test file). */
export const redisAvailable = await probe(REDIS_URL);

/**
 * `describe` for tests that need a real Redis. Without one they are skipped with a visible message,
 * unless `REQUIRE_REDIS=1` (set by .ci/run), where they run and fail.
 */
export const describeRedis: typeof describe = describeOrSkip(
  redisAvailable ? undefined : `no Redis answers at ${REDIS_URL} (set REDIS_URL)`,
  'REQUIRE_REDIS',
);

/** Every key matching `pattern` (SCAN, so it never blocks the server). */
export async function scanKeys(client: Redis, pattern: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    keys.push(...found);
  } while (cursor !== '0');
  return keys;
}

/** Deletes every key of the given key prefixes (the store's hash-tagged key space). */
export async function deletePrefix(client: Redis, prefix: string): Promise<void> {
  const keys = await scanKeys(client, `{${prefix}*`);
  for (let i = 0; i < keys.length; i += 1000) await client.del(...keys.slice(i, i + 1000));
}

/** One connection of `CLIENT LIST`. */
export interface RedisClientInfo {
  addr: string;
  name: string;
  cmd: string;
}

/** The connections of the Redis `admin` talks to, from `CLIENT LIST`. */
export async function redisClients(admin: Redis): Promise<RedisClientInfo[]> {
  const list = (await admin.call('CLIENT', 'LIST')) as string;
  return list
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map(
      (line) =>
        Object.fromEntries(
          line
            .trim()
            .split(' ')
            .map((field) => field.split(/=(.*)/s).slice(0, 2)),
        ) as unknown as RedisClientInfo,
    );
}
