import type { CounterHit } from '../stores/elicitation-store.js';
import { callRedis, type RedisClient } from './redis.client.js';
import type { RedisStoreKeys } from './redis.key-ring.js';
import type { RedisKeySpace } from './redis.key-space.js';
import type { Scripts } from './redis.scripts.js';

/**
 * The counters of the Redis store: one key per counter and window (windows aligned to multiples of `windowMs`, so
 * every instance counts in the same one), named by the key ring (one name per key of the ring, summed); a hit is one
 * script that increments the first and reads the others.
 */
export class RedisCounters {
  constructor(
    private readonly redis: RedisClient,
    private readonly scripts: Scripts,
    private readonly keys: RedisKeySpace,
    private readonly keyRing: RedisStoreKeys,
  ) {}

  async hit(key: string, windowMs: number, now: number): Promise<CounterHit> {
    const window = Math.floor(now / windowMs);
    const counters = this.countersOf(key, window);
    const count = await callRedis('hit', () => this.scripts.elicitHit(counters.length, ...counters, 2 * windowMs));
    return { count, resetAt: (window + 1) * windowMs };
  }

  async peek(key: string, windowMs: number, now: number): Promise<number> {
    const counters = this.countersOf(key, Math.floor(now / windowMs));
    const counts = await callRedis('peekHits', () => this.redis.mget(...counters));
    return counts.reduce((sum, count) => sum + Number(count ?? 0), 0);
  }

  /** The Redis keys of counter `key` in `window`, one per name the key ring gives it. */
  private countersOf(key: string, window: number): string[] {
    return this.keyRing
      .require()
      .names.counter(key)
      .map((name) => this.keys.counter(name, window));
  }
}
