/**
 * The Redis store's tasks as they sit in Redis, read by a raw ioredis client: the user and body sealed in the one
 * shape of every shared store (stores/sealed-task.codec.ts), and a task sealed in the shape this store used before
 * (`[userId, body]`) still read, then sealed in the one shape at its next write.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { keySpace } from '../../src/redis/redis.key-space.js';
import { RedisElicitationStore } from '../../src/redis/redis.store.js';
import { openTask } from '../../src/stores/sealed-task.codec.js';
import { workingTask } from '../../src/testing/store-contract.tasks.js';
import { deletePrefix, describeRedis, REDIS_URL } from '../support/redis.js';
import { keyed, TEST_STORE_KEYS } from '../support/store-keys.js';

const PREFIX = `test-tasks-${randomUUID().slice(0, 8)}`;
const LIMIT = { maxOpenPerUser: 5 };

describeRedis('Redis tasks at rest', () => {
  let client: Redis;
  let store: RedisElicitationStore;
  const taskKey = (id: string) => `${keySpace(PREFIX).base}:t:${id}`;

  beforeAll(() => {
    client = new Redis(REDIS_URL);
    store = keyed(new RedisElicitationStore(client, { keyPrefix: PREFIX }));
  });

  afterAll(async () => {
    await deletePrefix(client, PREFIX);
    await client.quit();
  });

  it('seals the user and body as every shared store does', async () => {
    const task = workingTask({ userId: 'alice@example.com', createdAt: Date.now(), expiresAt: Date.now() + 60_000 });
    expect(await store.createTask(task, LIMIT)).toBe('created');
    const sealed = await client.hget(taskKey(task.id), 'b');
    expect(openTask(task.id, sealed!, TEST_STORE_KEYS)).toEqual({ userId: task.userId, body: task.body });
  });

  it('reads a task sealed as [userId, body] before, and seals it in the one shape at its next write', async () => {
    const now = Date.now();
    const task = workingTask({ userId: 'bob@example.com', createdAt: now, expiresAt: now + 60_000 });
    await store.createTask(task, LIMIT);
    await client.hset(taskKey(task.id), 'b', TEST_STORE_KEYS.seal(JSON.stringify([task.userId, task.body]), `task:${task.id}`));
    expect(await store.getTask(task.id, now)).toEqual(task);
    const next = { ...task, status: 'input_required' as const, version: 2, updatedAt: now + 1, body: '{"tool":"deploy","step":2}' };
    expect(await store.putTask(next, now + 1)).toBe('written');
    const sealed = await client.hget(taskKey(task.id), 'b');
    expect(openTask(task.id, sealed!, TEST_STORE_KEYS)).toEqual({ userId: task.userId, body: next.body });
    expect(await store.getTask(task.id, now + 1)).toEqual(next);
  });
});
