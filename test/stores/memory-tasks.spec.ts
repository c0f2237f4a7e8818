import { describe, expect, it } from '@jest/globals';
import { MemoryTasks } from '../../src/stores/memory-tasks.js';
import { workingTask } from '../../src/testing/store-contract.tasks.js';

const T0 = 1_800_000_000_000;
const LIMIT = { maxOpenPerUser: 10 };

describe('MemoryTasks', () => {
  it('forgets expired tasks in the sweep (what is due only), and frees their places', async () => {
    const tasks = new MemoryTasks();
    const short = workingTask({ createdAt: T0, expiresAt: T0 + 1_000 });
    const long = workingTask({ createdAt: T0, expiresAt: T0 + 60_000 });
    await tasks.createTask(short, LIMIT);
    await tasks.createTask(long, LIMIT);
    expect(tasks.sweep(T0 + 500)).toBe(0);
    expect(tasks.size).toBe(2);
    // Due buckets only: the one-second bucket holding now waits for the next sweep.
    expect(tasks.sweep(T0 + 2_000)).toBe(1);
    expect(tasks.size).toBe(1);
    await expect(tasks.getTask(short.id, T0 + 2_000)).resolves.toBeUndefined();
    await expect(tasks.getTask(long.id, T0 + 2_000)).resolves.toEqual(long);
    expect(tasks.sweep(T0 + 61_000)).toBe(1);
    expect(tasks.size).toBe(0);
  });

  it('files a task again when a write moves its expiresAt on, and forgets it only then', async () => {
    const tasks = new MemoryTasks();
    const task = workingTask({ createdAt: T0, expiresAt: T0 + 1_000 });
    await tasks.createTask(task, LIMIT);
    await expect(tasks.putTask({ ...task, version: 2, expiresAt: T0 + 10_000 }, T0 + 100)).resolves.toBe('written');
    expect(tasks.sweep(T0 + 2_000)).toBe(0);
    await expect(tasks.getTask(task.id, T0 + 2_000)).resolves.toMatchObject({ version: 2 });
    expect(tasks.sweep(T0 + 11_000)).toBe(1);
    expect(tasks.size).toBe(0);
  });
});
