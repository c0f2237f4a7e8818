/**
 * Fenced task runs across real processes (#41 parts 1 and 2): two demo instances on one Redis, then one PostgreSQL,
 * `tasks.leaseMs` 3 s, and the demo's test tool `record_effect` (sleeps, checks its task signal, then appends a line
 * to a file: the side effect). Instance A runs the task and is paused (SIGSTOP) past its lease; one `tasks/get` on B
 * takes the task over; A is resumed: the effect happens once, by B. A cancel on B reaches the run on A: no effect, and
 * the task stays cancelled.
 */
import { randomUUID } from 'node:crypto';
import { expect, it } from '@jest/globals';
import { callTask, cancelTask, getTask, waitForTask } from '../support/mcp-tasks-client.js';
import { describeTwoInstances, LEASE_MS, sleep } from '../support/two-instances.js';

describeTwoInstances('fenced task runs', 'fenced', (instances) => {
  const { client } = instances;
  /** The effects recorded under `label`, as `pid label` lines. */
  const recorded = (label: string) =>
    instances
      .effects()
      .filter((parts) => parts.length === 2 && parts[1] === label)
      .map((parts) => parts.join(' '));

  it('a run paused past its lease (SIGSTOP) and taken over by the other instance does not act: the effect happens once', async () => {
    const { a, b } = instances;
    const onA = await client(a, 'alice');
    const onB = await client(b, 'alice');
    const label = `paused-${randomUUID().slice(0, 8)}`;
    const { taskId } = await callTask(onA, 'record_effect', { ms: 6_000, label });
    // Paused once its run is under way (on a loaded machine the run may start late, and a run not started yet when
    // A is paused is simply A's to start after it resumes).
    const started = Date.now();
    while (!instances.effects().some((parts) => parts[1] === label && parts[2] === 'started') && Date.now() - started < 10_000)
      await sleep(50);
    expect(instances.effects()).toContainEqual([String(a.child.pid), label, 'started']);
    await sleep(500);
    a.child.kill('SIGSTOP');
    try {
      // Past A's lease by the store's clock: B's tasks/get takes the task over and runs it from the top.
      await sleep(LEASE_MS + 1_300);
      expect((await getTask(onB, String(taskId))).status).toBe('working');
    } finally {
      a.child.kill('SIGCONT');
    }
    const done = await waitForTask(onB, String(taskId), (t) => t.status === 'completed', 20_000);
    expect(done.result?.content[0]?.text).toBe(`recorded ${label}`);
    // A's run woke up after its deadline: its signal was aborted when it checked, so it recorded nothing.
    await sleep(1_500);
    // Once: by B, which took the task over, or (when A's overdue renewal reached the store before B's take-over) by A's
    // next run, after the paused one gave the task back. Never by the paused run, whose signal it checked was aborted.
    const lines = recorded(label);
    expect(lines).toHaveLength(1);
    expect([`${a.child.pid} ${label}`, `${b.child.pid} ${label}`]).toContain(lines[0]);
  }, 45_000);

  it('a cancel on the other instance reaches the run: no effect, and the task stays cancelled', async () => {
    const { a, b } = instances;
    const onA = await client(a, 'bob');
    const onB = await client(b, 'bob');
    const label = `cancelled-${randomUUID().slice(0, 8)}`;
    const { taskId } = await callTask(onA, 'record_effect', { ms: 2_500, label });
    await sleep(500);
    await cancelTask(onB, String(taskId));
    // The run on A heard of it within leaseMs / 3 and its check before the effect saw the signal aborted.
    await sleep(2_500 + LEASE_MS / 3 + 500);
    expect(recorded(label)).toEqual([]);
    expect((await getTask(onA, String(taskId))).status).toBe('cancelled');
  }, 30_000);
});
