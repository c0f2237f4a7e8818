import type { ElicitationCallStateStore } from '../stores/call-state-store.js';
import { callRedis, type RedisClient } from './redis.client.js';

/**
 * The call states of the Redis store (`ElicitationCallStateStore`): one string per state, under the store's key space,
 * `{prefix}:v2:cs:<key>`, expiring at its `expiresAt` (Redis forgets it); taken with `GETDEL`, so one caller gets it.
 */
export class RedisCallStates implements ElicitationCallStateStore {
  constructor(
    private readonly redis: RedisClient,
    /** The store's key space (`{prefix}:v2`). */
    private readonly base: string,
  ) {}

  async keepCallState(key: string, value: string, expiresAt: number): Promise<void> {
    await callRedis('keepCallState', () => this.redis.set(this.key(key), value, 'PXAT', Math.max(1, Math.round(expiresAt))));
  }

  async takeCallState(key: string): Promise<string | undefined> {
    return (await callRedis('takeCallState', () => this.redis.getdel(this.key(key)))) ?? undefined;
  }

  private key(key: string): string {
    return `${this.base}:cs:${key}`;
  }
}
