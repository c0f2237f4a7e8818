/**
 * Fenced task runs across real processes (#41 parts 1 and 2): two demo instances on one Redis, then one PostgreSQL,
 * `tasks.leaseMs` 3 s, and the demo's test tool `record_effect` (sleeps, checks its task signal, then appends a line
 * to a file: the side effect). Instance A runs the task and is paused (SIGSTOP) past its lease; one `tasks/get` on B
 * takes the task over; A is resumed: the effect happens once, by B. A cancel on B reaches the run on A: no effect, and
 * the task stays cancelled.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startDemoProcess, type DemoProcess } from '../../examples/demo/demo-process.js';
import { connectV2Client, type V2TestClient } from '../support/mcp-v2-client.js';
import { callTask, cancelTask, getTask, TASKS, waitForTask } from '../support/mcp-tasks-client.js';
import { sharedStores, type SharedStore } from '../support/shared-stores.js';

const LEASE_MS = 3_000;
const STORES = sharedStores('fenced', randomUUID().slice(0, 8));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(Object.keys(STORES) as Array<keyof typeof STORES>)('fenced task runs on two instances sharing one %s', (name) => {
  const store = STORES[name];
  store.describe(`on ${name}`, () => fencedRuns(store));
});

function fencedRuns(store: SharedStore): void {
  const effects = join(tmpdir(), `fenced-runs-${randomUUID()}.log`);
  const env = {
    ...store.env,
    ELICITATION_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    ELICITATION_TASK_LEASE_MS: String(LEASE_MS),
    DEMO_EFFECTS_FILE: effects,
  };
  const processes: DemoProcess[] = [];
  const clients: V2TestClient[] = [];
  let a: DemoProcess;
  let b: DemoProcess;
  const client = async (instance: DemoProcess, user: string) => {
    const c = await connectV2Client(instance.mcpUrl, { user, extensions: { [TASKS]: {} } });
    clients.push(c);
    return c;
  };
  /** The effects recorded under `label`, as `pid label` lines. */
  const recorded = (label: string) =>
    existsSync(effects)
      ? readFileSync(effects, 'utf8')
          .split('\n')
          .filter((line) => line.endsWith(` ${label}`))
      : [];

  beforeAll(async () => {
    [a, b] = await Promise.all([startDemoProcess(env), startDemoProcess(env)]);
    processes.push(a, b);
  }, 60_000);

  afterAll(async () => {
    // A process left stopped by a failed test is resumed first, so that it can be stopped.
    for (const p of processes) p.child.kill('SIGCONT');
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await Promise.all(processes.map((p) => p.stop()));
    await store.cleanUp();
    rmSync(effects, { force: true });
  }, 30_000);

  it('a run paused past its lease (SIGSTOP) and taken over by the other instance does not act: the effect happens once', async () => {
    const onA = await client(a, 'alice');
    const onB = await client(b, 'alice');
    const label = `paused-${randomUUID().slice(0, 8)}`;
    const { taskId } = await callTask(onA, 'record_effect', { ms: 6_000, label });
    await sleep(1_500);
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
    const lines = recorded(label);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(`${b.child.pid} ${label}`);
  }, 45_000);

  it('a cancel on the other instance reaches the run: no effect, and the task stays cancelled', async () => {
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
}
