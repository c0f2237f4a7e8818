/**
 * The sealed part of a task (stores/sealed-task.codec.ts), one shape on every shared store: `{"userId":…,"body":…}`
 * sealed and bound to the task's id. On a real server: test/redis/redis.tasks.spec.ts, test/postgres/postgres.rows.spec.ts.
 */
import { describe, expect, it } from '@jest/globals';
import { StoreKeyRing } from '../../src/security/store-key-ring.js';
import { openTask, sealTask } from '../../src/stores/sealed-task.codec.js';
import { workingTask } from '../../src/testing/store-contract.tasks.js';
import { TEST_STORE_KEYS } from '../support/store-keys.js';

describe('the sealed task', () => {
  it('seals the user and the body together as one JSON object, bound to the task id', () => {
    const task = workingTask({ userId: 'alice@example.com', body: '{"tool":"deploy","args":{"env":"prod"}}' });
    const sealed = sealTask(task, TEST_STORE_KEYS);
    for (const clear of [task.userId, 'deploy', 'prod']) expect(sealed).not.toContain(clear);
    const opened = TEST_STORE_KEYS.open(sealed, `task:${task.id}`);
    expect(Object.keys(JSON.parse(opened) as object)).toEqual(['userId', 'body']);
    expect(openTask(task.id, sealed, TEST_STORE_KEYS)).toEqual({ userId: task.userId, body: task.body });
    expect(() => openTask(workingTask().id, sealed, TEST_STORE_KEYS)).toThrow();
    expect(() => openTask(task.id, sealed, new StoreKeyRing([Buffer.alloc(32, 9)]))).toThrow();
  });

  it('reads an earlier shape only through the reader its store passes, and refuses any other', () => {
    const task = workingTask();
    const asArray = TEST_STORE_KEYS.seal(JSON.stringify([task.userId, task.body]), `task:${task.id}`);
    expect(() => openTask(task.id, asArray, TEST_STORE_KEYS)).toThrow(/holds no user and body/);
    const earlier = (opened: unknown) => (Array.isArray(opened) ? { userId: String(opened[0]), body: String(opened[1]) } : undefined);
    expect(openTask(task.id, asArray, TEST_STORE_KEYS, earlier)).toEqual({ userId: task.userId, body: task.body });
    const other = TEST_STORE_KEYS.seal(JSON.stringify({ user: task.userId }), `task:${task.id}`);
    expect(() => openTask(task.id, other, TEST_STORE_KEYS, earlier)).toThrow(/holds no user and body/);
  });
});
