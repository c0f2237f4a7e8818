/**
 * Tasks (the MCP Tasks extension) across two demo instances (separate OS processes) sharing one store, Redis and then
 * PostgreSQL: a task made on
 * A is answered with `tasks/update` on B and by a page submitted on B; the instance running a task is killed (SIGKILL)
 * and the other takes it over once its lease runs out; both instances restart while a task waits, and the task
 * completes afterwards. A waiting task is a record in the store: nothing ties it to an instance.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startDemoProcess, type DemoProcess } from '../../examples/demo/demo-process.js';
import { submitPage } from '../../src/testing/submit-page.js';
import { connectV2Client, type V2TestClient } from '../support/mcp-v2-client.js';
import { callTask, getTask, listenTasks, refusal, TASKS, updateTask, waitForTask } from '../support/mcp-tasks-client.js';
import { sharedStores, type SharedStore } from '../support/shared-stores.js';

const LEASE_MS = 1_000;
const STORES = sharedStores('tasks', randomUUID().slice(0, 8));

describe.each(Object.keys(STORES) as Array<keyof typeof STORES>)(
  'tasks across two instances sharing one %s (separate OS processes)',
  (name) => {
    const store = STORES[name];
    store.describe(`on ${name}`, () => tasksAcrossInstances(store));
  },
);

function tasksAcrossInstances(store: SharedStore): void {
  const env = {
    ...store.env,
    ELICITATION_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    ELICITATION_TASK_LEASE_MS: String(LEASE_MS),
    // The conformance fixtures (slow_compute, to kill an instance while it runs a task); bearer users as always.
    MCP_CONFORMANCE: '1',
  };
  const processes: DemoProcess[] = [];
  const clients: V2TestClient[] = [];

  const start = async (): Promise<DemoProcess> => {
    const started = await startDemoProcess(env);
    processes.push(started);
    return started;
  };
  const client = async (instance: DemoProcess, user: string) => {
    const c = await connectV2Client(instance.mcpUrl, { user, extensions: { [TASKS]: {} } });
    clients.push(c);
    return c;
  };

  let a: DemoProcess;
  let b: DemoProcess;
  beforeAll(async () => {
    [a, b] = await Promise.all([start(), start()]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await Promise.all(processes.map((p) => p.stop()));
    await store.cleanUp();
  }, 30_000);

  it('notifies a listener on A of changes made on B (tasks/update, the page): notifications/tasks through to completed', async () => {
    const onB = await client(b, 'carol');
    const id = String((await callTask(onB, 'plan-release', { app: 'docs' })).taskId);
    const listen = await listenTasks(a.mcpUrl, 'carol', [id]);
    const isTask = (status: string) => (m: { method?: string; params?: Record<string, unknown> }) =>
      m.method === 'notifications/tasks' && m.params?.status === status;
    const asking = await listen.next(isTask('input_required'));
    const [formKey] = Object.keys(asking.params?.inputRequests as object);
    await updateTask(onB, id, { [formKey]: { action: 'accept', content: { version: '7.0.0' } } });
    const paging = await listen.next((m) => isTask('input_required')(m) && !(formKey in (m.params?.inputRequests as object)));
    const [pageKey, page] = Object.entries(paging.params?.inputRequests as Record<string, { params: { url: string } }>)[0];
    await updateTask(onB, id, { [pageKey]: { action: 'accept' } });
    const onBPage = `${b.url}${new URL(page.params.url).pathname}`;
    expect((await submitPage(onBPage, { action: 'confirm' }, { cookie: 'demo_user=carol' })).status).toBe(200);
    const done = await listen.next(isTask('completed'));
    expect(done.params?.result).toMatchObject({
      content: [{ text: expect.stringMatching(/^Released docs 7\.0\.0 \(ticket REL-[\w-]{6}\)$/) }],
    });
    await listen.ended;
  }, 30_000);

  it('makes the task on A, takes its answers on B (tasks/update, then the page), and completes it', async () => {
    const onA = await client(a, 'alice');
    const onB = await client(b, 'alice');
    const { taskId } = await callTask(onA, 'plan-release', { app: 'shop' });
    const id = String(taskId);
    // The task is in the store before the answer: B finds it at once.
    expect((await getTask(onB, id)).taskId).toBe(id);
    const asking = await waitForTask(onB, id, (t) => t.status === 'input_required');
    await updateTask(onB, id, { [Object.keys(asking.inputRequests ?? {})[0]]: { action: 'accept', content: { version: '3.1.4' } } });
    const paging = await waitForTask(onA, id, (t) => Object.values(t.inputRequests ?? {}).some((r) => r.params.mode === 'url'));
    const [pageKey, page] = Object.entries(paging.inputRequests ?? {})[0];
    await updateTask(onA, id, { [pageKey]: { action: 'accept' } });
    // The page was made on one instance and is submitted on B.
    const onBPage = `${b.url}${new URL(String(page.params.url)).pathname}`;
    expect((await submitPage(onBPage, { action: 'confirm' }, { cookie: 'demo_user=alice' })).status).toBe(200);
    const done = await waitForTask(onA, id, (t) => t.status === 'completed');
    expect(done.result?.content[0]?.text).toMatch(/^Released shop 3\.1\.4 \(ticket REL-[\w-]{6}\)$/);
    // Another user sees no such task, on either instance.
    const mallory = await client(b, 'mallory');
    expect((await refusal(getTask(mallory, id))).code).toBe(-32602);
  }, 30_000);

  it('takes a task over when the instance running it is killed (SIGKILL): the other runs it once the lease ran out', async () => {
    const victim = await start();
    const onVictim = await client(victim, 'bob');
    const onA = await client(a, 'bob');
    const { taskId } = await callTask(onVictim, 'slow_compute', { seconds: 2, label: 'takeover' });
    await new Promise((r) => setTimeout(r, 200));
    await victim.stop('SIGKILL');
    // A's tasks/get finds the lease run out and runs the task again, from the top.
    const done = await waitForTask(onA, String(taskId), (t) => t.status === 'completed', 15_000);
    expect(done.result?.content[0]?.text).toBe('Computed takeover after 2s');
  }, 40_000);

  it('keeps a waiting task through a restart of both instances, and completes it afterwards', async () => {
    const onA = await client(a, 'carol');
    const { taskId } = await callTask(onA, 'confirm_delete', {});
    const id = String(taskId);
    const asking = await waitForTask(onA, id, (t) => t.status === 'input_required');
    const key = Object.keys(asking.inputRequests ?? {})[0];
    await Promise.all([a.stop(), b.stop()]);
    [a, b] = await Promise.all([start(), start()]);
    const onB = await client(b, 'carol');
    const after = await getTask(onB, id);
    expect(after.status).toBe('input_required');
    expect(Object.keys(after.inputRequests ?? {})).toEqual([key]);
    await updateTask(onB, id, { [key]: { action: 'accept', content: { confirm: true } } });
    const done = await waitForTask(await client(a, 'carol'), id, (t) => t.status === 'completed');
    expect(done.result?.content[0]?.text).toBe('Deleted');
  }, 90_000);

  it('completes a task whose page is answered after a restart, on an instance no MCP request has reached yet', async () => {
    const onA = await client(a, 'dave');
    const { taskId } = await callTask(onA, 'plan-release', { app: 'api' });
    const id = String(taskId);
    const asking = await waitForTask(onA, id, (t) => t.status === 'input_required');
    await updateTask(onA, id, { [Object.keys(asking.inputRequests ?? {})[0]]: { action: 'accept', content: { version: '9.9.9' } } });
    const paging = await waitForTask(onA, id, (t) => Object.values(t.inputRequests ?? {}).some((r) => r.params.mode === 'url'));
    const [pageKey, page] = Object.entries(paging.inputRequests ?? {})[0];
    await updateTask(onA, id, { [pageKey]: { action: 'accept' } });
    await waitForTask(onA, id, (t) => t.status === 'working');
    await Promise.all([a.stop(), b.stop()]);
    [a, b] = await Promise.all([start(), start()]);
    // The browser answers on the new B before any MCP request reached it; the task is picked up on A.
    const onBPage = `${b.url}${new URL(String(page.params.url)).pathname}`;
    expect((await submitPage(onBPage, { action: 'confirm' }, { cookie: 'demo_user=dave' })).status).toBe(200);
    const done = await waitForTask(await client(a, 'dave'), id, (t) => t.status === 'completed', 15_000);
    expect(done.result?.content[0]?.text).toMatch(/^Released api 9\.9\.9 \(ticket REL-[\w-]{6}\)$/);
  }, 90_000);
}
