/**
 * Steps that run once (#41 part 3) across real processes: two demo instances on one Redis, then one PostgreSQL,
 * `tasks.leaseMs` 3 s, and the demo's test tool `ticket_then_ask` (opens a ticket in a step, appending a line with the
 * step's idempotency key to a file, then asks who approves it). A step recorded on one instance is not run again when
 * the task goes on on the other; a plain 2026-07-28 call's retry on the other instance does not run it again either;
 * and an instance killed (SIGKILL) between the step's effect and its record leaves the step to the instance that takes
 * the task over, which runs it again under the same idempotency key, once.
 */
import { randomUUID } from 'node:crypto';
import { expect, it } from '@jest/globals';
import type { V2TestClient } from '../support/mcp-v2-client.js';
import { connectClient, textOf, type TestClient } from '../support/mcp-client.js';
import { submitPage } from '../../src/testing/index.js';
import { callTask, getTask, updateTask, waitForTask } from '../support/mcp-tasks-client.js';
import { describeTwoInstances, LEASE_MS, sleep } from '../support/two-instances.js';

describeTwoInstances('steps', 'steps', (instances) => {
  const { client } = instances;
  /** The step's runs under `label`: the pid that ran it and the idempotency key it got. */
  const attempts = (label: string) =>
    instances
      .effects()
      .filter((parts) => parts[1] === label)
      .map(([pid, , key]) => ({ pid: Number(pid), key }));
  /** Answers the task's one open question (the approver form) and waits for the result. */
  const approve = async (c: V2TestClient, taskId: string, by: string) => {
    const asking = await waitForTask(c, taskId, (t) => t.status === 'input_required', 20_000);
    const [key, request] = Object.entries(asking.inputRequests ?? {})[0];
    expect(String(request.params.message)).toMatch(/^Who approves ticket T-[\w-]{8}\?$/);
    await updateTask(c, taskId, { [key]: { action: 'accept', content: { by } } });
    return waitForTask(c, taskId, (t) => t.status === 'completed', 20_000);
  };

  it('a step recorded by the run on A is given back, not run, when the task goes on on B', async () => {
    const { a, b } = instances;
    const onA = await client(a, 'alice');
    const onB = await client(b, 'alice');
    const label = `moved-${randomUUID().slice(0, 8)}`;
    const { taskId } = await callTask(onA, 'ticket_then_ask', { label, holdMs: 0 });
    const done = await approve(onB, String(taskId), 'bob');
    const runs = attempts(label);
    expect(runs).toEqual([{ pid: a.child.pid, key: expect.stringMatching(/^[\w-]{43}$/) }]);
    expect(done.result?.content[0]?.text).toBe(`ticket T-${runs[0].key.slice(0, 8)} approved by bob`);
  }, 45_000);

  it('a plain 2026-07-28 call: the retry on B gets the step from the sealed requestState and does not run it', async () => {
    const { a, b } = instances;
    const onA = await client(a, 'carol', { tasks: false });
    const onB = await client(b, 'carol', { tasks: false });
    const label = `plain-${randomUUID().slice(0, 8)}`;
    const asked = await onA.callRaw('ticket_then_ask', { label, holdMs: 0 });
    expect(asked.resultType).toBe('input_required');
    const [key] = Object.keys(asked.inputRequests ?? {});
    const done = await onB.callRaw(
      'ticket_then_ask',
      { label, holdMs: 0 },
      { inputResponses: { [key]: { action: 'accept', content: { by: 'dave' } } }, requestState: asked.requestState },
    );
    const runs = attempts(label);
    expect(runs).toHaveLength(1);
    expect(runs[0].pid).toBe(a.child.pid);
    expect(JSON.stringify(done)).toContain(`ticket T-${runs[0].key.slice(0, 8)} approved by dave`);
    expect(String(asked.requestState)).not.toContain(runs[0].key.slice(0, 8));
  }, 45_000);

  it('a 2025-11-25 call that ends with a link on A: its continuation on B gets the step from the store and does not run it', async () => {
    const { a, b } = instances;
    const label = `legacy-${randomUUID().slice(0, 8)}`;
    const onA = await connectClient(a.mcpUrl, { user: 'gina', elicitation: null });
    const onB = await connectClient(b.mcpUrl, { user: 'gina', elicitation: null });
    try {
      const call = (c: TestClient) => c.client.callTool({ name: 'ticket_then_ask', arguments: { label, holdMs: 0 } });
      const page = /(https?:\/\/\S+\/elicit\/[0-9a-f-]{36}\/form)/.exec(textOf(await call(onA)))?.[1];
      expect(page).toBeDefined();
      expect((await submitPage(page!, { by: 'hank' }, { cookie: 'demo_user=gina' })).status).toBe(200);
      const runs = attempts(label);
      expect(runs).toEqual([{ pid: a.child.pid, key: expect.stringMatching(/^[\w-]{43}$/) }]);
      expect(textOf(await call(onB))).toBe(`ticket T-${runs[0].key.slice(0, 8)} approved by hank`);
      expect(attempts(label)).toHaveLength(1);
    } finally {
      await Promise.all([onA.close(), onB.close()].map((p) => p.catch(() => undefined)));
    }
  }, 45_000);

  it('A killed (SIGKILL) between the step and its record: B takes the task over and runs the step again, with the same key, once', async () => {
    const { a, b } = instances;
    const onB = await client(b, 'erin');
    const onA = await client(a, 'erin');
    const label = `killed-${randomUUID().slice(0, 8)}`;
    const { taskId } = await callTask(onA, 'ticket_then_ask', { label, holdMs: 4_000 });
    const started = Date.now();
    while (attempts(label).length === 0 && Date.now() - started < 10_000) await sleep(50);
    expect(attempts(label)).toHaveLength(1);
    a.child.kill('SIGKILL');
    // Past A's lease by the store's clock: B's tasks/get takes the task over and runs the body from the top.
    await sleep(LEASE_MS + 1_000);
    expect((await getTask(onB, String(taskId))).status).toBe('working');
    const done = await approve(onB, String(taskId), 'frank');
    const runs = attempts(label);
    expect(runs.map((r) => r.pid)).toEqual([a.child.pid, b.child.pid]);
    expect(runs[1].key).toBe(runs[0].key);
    expect(done.result?.content[0]?.text).toBe(`ticket T-${runs[0].key.slice(0, 8)} approved by frank`);
    // The answer's run got the step from the task: still two.
    expect(attempts(label)).toHaveLength(2);
  }, 60_000);
});
