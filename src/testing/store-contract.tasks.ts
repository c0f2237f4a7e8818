import { randomUUID } from 'node:crypto';
import type { ElicitationRecordStore } from '../stores/elicitation-store.js';
import { OPEN_TASK_STATUSES, TASK_STATUSES, type ElicitationTaskStore, type StoredTask } from '../stores/task-store.js';
import { T0, TTL, type ContractGroupApi } from './contract-test-api.js';

/** A working task of user u1 created at T0, living TTL (version 1, no lease). */
export function workingTask(overrides: Partial<StoredTask> = {}): StoredTask {
  const createdAt = overrides.createdAt ?? T0;
  return {
    id: randomUUID(),
    userId: 'u1',
    status: 'working',
    createdAt,
    updatedAt: createdAt,
    expiresAt: createdAt + TTL,
    version: 1,
    body: '{"tool":"deploy"}',
    ...overrides,
  };
}

const LIMIT = { maxOpenPerUser: 3 };

/**
 * A task as read, less what is left of its lease (`remainingMs`, the store's clock: checked to be a number), to compare
 * with the task as written.
 */
function asWritten(read: StoredTask | undefined): StoredTask | undefined {
  if (!read?.lease) return read;
  const { remainingMs, ...lease } = read.lease;
  if (typeof remainingMs !== 'number' || !Number.isFinite(remainingMs)) {
    throw new Error(`a task read with a lease has no remainingMs (the lease left by the store's clock): ${String(remainingMs)}`);
  }
  return { ...read, lease };
}

/** The tasks group of the record contract (the MCP Tasks extension): run when `offers` lists `createTask`, `getTask` and `putTask`. */
export function taskTests({ itIfOffered, expect }: ContractGroupApi<ElicitationRecordStore>): void {
  const tasksOf = (s: ElicitationRecordStore): ElicitationTaskStore => {
    if (!s.createTask || !s.getTask || !s.putTask)
      throw new Error('the store lacks createTask, getTask or putTask, but options.offers lists them');
    return { createTask: s.createTask.bind(s), getTask: s.getTask.bind(s), putTask: s.putTask.bind(s) };
  };

  itIfOffered('putTask', 'creates a task, reads it back as stored (a copy), and refuses an id that exists', async (store) => {
    const tasks = tasksOf(store);
    const task = workingTask({ lease: { owner: 'instance-a', until: T0 + 5_000 } });
    await expect(tasks.createTask(task, LIMIT)).resolves.toBe('created');
    const read = await tasks.getTask(task.id, T0 + 1);
    expect(asWritten(read)).toEqual(task);
    await expect(tasks.createTask({ ...task, body: 'other' }, LIMIT)).resolves.toBe('exists');
    expect(asWritten(await tasks.getTask(task.id, T0 + 2))).toEqual(task);
    await expect(tasks.getTask(randomUUID(), T0)).resolves.toBeUndefined();
  });

  itIfOffered('putTask', 'writes a change only over the version before it: one of two racing writers wins', async (store) => {
    const tasks = tasksOf(store);
    const task = workingTask();
    await tasks.createTask(task, LIMIT);
    const mine: StoredTask = { ...task, version: 2, status: 'input_required', updatedAt: T0 + 10, body: 'asked' };
    const theirs: StoredTask = { ...task, version: 2, lease: { owner: 'instance-b', until: T0 + 5_000 }, body: 'taken' };
    const results = await Promise.all([tasks.putTask(mine, T0 + 10), tasks.putTask(theirs, T0 + 10)]);
    expect([...results].sort()).toEqual(['conflict', 'written']);
    const won = results[0] === 'written' ? mine : theirs;
    expect(asWritten(await tasks.getTask(task.id, T0 + 11))).toEqual(won);
    // A stale writer (version 2 again) and a writer skipping a version are both refused.
    await expect(tasks.putTask({ ...won, body: 'stale' }, T0 + 12)).resolves.toBe('conflict');
    await expect(tasks.putTask({ ...won, version: 4 }, T0 + 12)).resolves.toBe('conflict');
    // The next version is taken, the lease dropped with it.
    const next: StoredTask = { ...won, version: 3, lease: undefined, status: 'working', body: 'resumed' };
    await expect(tasks.putTask(next, T0 + 13)).resolves.toBe('written');
    const read = await tasks.getTask(task.id, T0 + 14);
    expect(read).toMatchObject({ version: 3, status: 'working', body: 'resumed' });
    expect(read?.lease).toBeUndefined();
  });

  itIfOffered(
    'putTask',
    "times a lease by the store's own clock: a grant sets until from it, a read says what is left, a kept lease stays as it was",
    async (store) => {
      const tasks = tasksOf(store);
      // A grant on create: until is the store's clock plus grantMs (the until written is ignored).
      const before = Date.now();
      const task = workingTask({ lease: { owner: 'instance-a', until: 1, grantMs: 3_000 } });
      await expect(tasks.createTask(task, LIMIT)).resolves.toBe('created');
      const granted = await tasks.getTask(task.id, T0 + 1);
      expect(granted?.lease?.owner).toBe('instance-a');
      expect(granted?.lease?.grantMs).toBeUndefined();
      // The store's clock is this machine's within a second (a store elsewhere: keep its clock in sync).
      expect(granted?.lease?.until).toBeGreaterThan(before + 1_999);
      expect(granted?.lease?.until).toBeLessThanOrEqual(Date.now() + 4_000);
      expect(granted?.lease?.remainingMs).toBeGreaterThan(1_000);
      expect(granted?.lease?.remainingMs).toBeLessThanOrEqual(3_000);
      // Written without a grant, the lease is kept as it is.
      const kept: StoredTask = { ...task, version: 2, lease: { owner: 'instance-a', until: granted!.lease!.until } };
      await expect(tasks.putTask(kept, T0 + 2)).resolves.toBe('written');
      expect((await tasks.getTask(task.id, T0 + 3))?.lease?.until).toBe(granted?.lease?.until);
      // A renewal of 0 ms: the lease ran out by the store's clock.
      await expect(tasks.putTask({ ...kept, version: 3, lease: { owner: 'instance-b', until: 1, grantMs: 0 } }, T0 + 4)).resolves.toBe(
        'written',
      );
      const lapsed = await tasks.getTask(task.id, T0 + 5);
      expect(lapsed?.lease?.owner).toBe('instance-b');
      expect(lapsed?.lease?.remainingMs).toBeLessThanOrEqual(0);
    },
  );

  itIfOffered('putTask', 'forgets a task at its expiresAt: not read, not written', async (store) => {
    const tasks = tasksOf(store);
    const task = workingTask();
    await tasks.createTask(task, LIMIT);
    expect(asWritten(await tasks.getTask(task.id, task.expiresAt - 1))).toEqual(task);
    await expect(tasks.getTask(task.id, task.expiresAt)).resolves.toBeUndefined();
    await expect(tasks.putTask({ ...task, version: 2 }, task.expiresAt)).resolves.toBe('not-found');
    await expect(tasks.putTask({ ...workingTask(), version: 2 }, T0)).resolves.toBe('not-found');
  });

  itIfOffered(
    'putTask',
    "caps a user's open tasks: a finished or expired task frees its place, other users are not counted",
    async (store) => {
      const tasks = tasksOf(store);
      const open = [workingTask(), workingTask(), workingTask({ expiresAt: T0 + 1_000 })];
      for (const task of open) await expect(tasks.createTask(task, LIMIT)).resolves.toBe('created');
      await expect(tasks.createTask(workingTask({ createdAt: T0 + 10 }), LIMIT)).resolves.toBe('user-task-limit');
      await expect(tasks.createTask(workingTask({ userId: 'u2', createdAt: T0 + 10 }), LIMIT)).resolves.toBe('created');
      // Completed: its place is free.
      await expect(tasks.putTask({ ...open[0], version: 2, status: 'completed', body: 'done' }, T0 + 20)).resolves.toBe('written');
      const fourth = workingTask({ createdAt: T0 + 30 });
      await expect(tasks.createTask(fourth, LIMIT)).resolves.toBe('created');
      await expect(tasks.createTask(workingTask({ createdAt: T0 + 40 }), LIMIT)).resolves.toBe('user-task-limit');
      // Expired: its place is free too.
      await expect(tasks.createTask(workingTask({ createdAt: T0 + 1_000 }), LIMIT)).resolves.toBe('created');
      // The completed task is still read until it expires.
      await expect(tasks.getTask(open[0].id, T0 + 1_001)).resolves.toMatchObject({ status: 'completed', body: 'done' });
    },
  );

  itIfOffered(
    'putTask',
    'counts as open exactly the statuses of an open task (OPEN_TASK_STATUSES), created so or moved there',
    async (store) => {
      const tasks = tasksOf(store);
      const one = { maxOpenPerUser: 1 };
      for (const status of TASK_STATUSES) {
        const open = OPEN_TASK_STATUSES.includes(status);
        const created = workingTask({ userId: `created-${status}`, status });
        await expect(tasks.createTask(created, one)).resolves.toBe('created');
        const afterCreated = workingTask({ userId: created.userId, createdAt: T0 + 1 });
        await expect(tasks.createTask(afterCreated, one)).resolves.toBe(open ? 'user-task-limit' : 'created');
        const moved = workingTask({ userId: `moved-${status}` });
        await tasks.createTask(moved, one);
        await expect(tasks.putTask({ ...moved, version: 2, status, updatedAt: T0 + 1 }, T0 + 1)).resolves.toBe('written');
        const afterMoved = workingTask({ userId: moved.userId, createdAt: T0 + 2 });
        await expect(tasks.createTask(afterMoved, one)).resolves.toBe(open ? 'user-task-limit' : 'created');
      }
    },
  );

  itIfOffered(
    'putTask',
    'keeps at most maxFinishedPerUser finished tasks of a user and maxFinished in all: the oldest finished are forgotten first, open ones never',
    async (store) => {
      const tasks = tasksOf(store);
      const keep = { maxFinishedPerUser: 2, maxFinished: 3 };
      const limit = { maxOpenPerUser: 10 };
      const [a, b, c, open] = [workingTask(), workingTask(), workingTask(), workingTask()];
      const [d, e] = [workingTask({ userId: 'u2' }), workingTask({ userId: 'u2' })];
      for (const task of [a, b, c, open, d, e]) await expect(tasks.createTask(task, limit)).resolves.toBe('created');
      const finish = (task: StoredTask, at: number) =>
        tasks.putTask({ ...task, version: 2, status: 'completed', updatedAt: at, body: `done ${at}` }, at, keep);
      // u1 finishes a, then c, then b: the third is one too many, and a (finished first, though not created first) goes.
      await expect(finish(a, T0 + 10)).resolves.toBe('written');
      await expect(finish(c, T0 + 20)).resolves.toBe('written');
      await expect(tasks.getTask(a.id, T0 + 21)).resolves.toMatchObject({ status: 'completed' });
      await expect(finish(b, T0 + 30)).resolves.toBe('written');
      await expect(tasks.getTask(a.id, T0 + 31)).resolves.toBeUndefined();
      await expect(tasks.getTask(c.id, T0 + 31)).resolves.toMatchObject({ status: 'completed', body: `done ${T0 + 20}` });
      await expect(tasks.getTask(b.id, T0 + 31)).resolves.toMatchObject({ status: 'completed', body: `done ${T0 + 30}` });
      // u2 finishes d: c, b and d are three finished in all, the bound.
      await expect(finish(d, T0 + 40)).resolves.toBe('written');
      await expect(tasks.getTask(c.id, T0 + 41)).resolves.toMatchObject({ status: 'completed' });
      // And e: four in all, so c, the oldest finished of any user, goes.
      await expect(finish(e, T0 + 50)).resolves.toBe('written');
      await expect(tasks.getTask(c.id, T0 + 51)).resolves.toBeUndefined();
      for (const kept of [b, d, e]) await expect(tasks.getTask(kept.id, T0 + 51)).resolves.toMatchObject({ status: 'completed' });
      // An open task is never forgotten for the finished ones.
      await expect(tasks.getTask(open.id, T0 + 51)).resolves.toMatchObject({ status: 'working' });
    },
  );

  itIfOffered('getTasks', 'reads several tasks in one call, as getTask reads each, in the order asked', async (store) => {
    const tasks = tasksOf(store);
    if (!store.getTasks) throw new Error('the store lacks getTasks, but options.offers lists it');
    const leased = workingTask({ lease: { owner: 'instance-a', until: T0 + 5_000 } });
    const soon = workingTask({ expiresAt: T0 + 100 });
    const other = workingTask({ userId: 'someone-else', status: 'input_required' });
    for (const task of [leased, soon, other]) await tasks.createTask(task, LIMIT);
    const unknown = randomUUID();
    const read = await store.getTasks([other.id, unknown, leased.id, soon.id, leased.id], T0 + 1);
    expect(read.map(asWritten)).toEqual([other, undefined, leased, soon, leased]);
    // Each read as getTask reads it (the lease's remainingMs by the store's clock), each its own copy.
    expect(typeof read[2]?.lease?.remainingMs).toBe('number');
    expect(read[2]).not.toBe(read[4]);
    // From its expiresAt on, a task is not read; no ids, no tasks.
    const later = await store.getTasks([soon.id, other.id], T0 + 100);
    expect(later.map((task) => task?.id)).toEqual([undefined, other.id]);
    await expect(store.getTasks([], T0)).resolves.toEqual([]);
  });
}
