/**
 * Tasks (the MCP Tasks extension, 2026-07-28) through `@rekog/mcp-nest`: the MCP-Nest demo's `plan-release` is a
 * `@Tool()` method marked `@Elicitation({ execution: { taskSupport: 'optional' } })`. The demo runs compiled as its
 * own Node process (Jest cannot load MCP-Nest in process: see mcp-nest.e2e-spec.ts), driven by a real SDK 2.x
 * client that declares the extension, with the bearer identity MCP-Nest's route puts in `req.user`.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MCP_NEST_DEMO_MAIN, startDemoProcess, type DemoProcess } from '../../examples/demo/demo-process.js';
import { submitPage } from '../../src/testing/index.js';
import { connectV2Client, type V2TestClient } from '../support/mcp-v2-client.js';
import { callTask, cancelTask, getTask, refusal, TASKS, updateTask, waitForTask } from '../support/mcp-tasks-client.js';

let demo: DemoProcess;
const clients: V2TestClient[] = [];
/** Where the demo's `plan-release` records each ticket it opens (its step): `<pid> open-ticket <key> <app> <version>`. */
const tickets = join(tmpdir(), `mcp-nest-tickets-${randomUUID()}.log`);
const ticketsOpened = (app: string) =>
  (existsSync(tickets) ? readFileSync(tickets, 'utf8').split('\n') : []).filter((line) => line.split(' ')[3] === app);

beforeAll(async () => {
  demo = await startDemoProcess({ DEMO_EFFECTS_FILE: tickets }, { main: MCP_NEST_DEMO_MAIN, readyMs: 60_000 });
}, 90_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await demo?.stop();
  rmSync(tickets, { force: true });
}, 30_000);

async function client(user: string, withTasks = true, manual = false): Promise<V2TestClient> {
  const c = await connectV2Client(demo.mcpUrl, { user, manual, ...(withTasks && { extensions: { [TASKS]: {} } }) });
  clients.push(c);
  return c;
}

/** Signs `user` in on the demo's pages and returns the browser's cookie. */
async function signIn(user: string): Promise<string> {
  const res = await fetch(`${demo.url}/demo/login?user=${encodeURIComponent(user)}`, { redirect: 'manual' });
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('demo_user='));
  if (!cookie) throw new Error('the demo login set no demo_user cookie');
  return cookie.split(';')[0];
}

describe('an MCP-Nest @Tool() with @Elicitation({ execution: { taskSupport } })', () => {
  it('advertises the extension on the servers MCP-Nest builds', async () => {
    const c = await client('mcpnest-tasks-discover');
    expect(c.client.getServerCapabilities()?.extensions).toMatchObject({ [TASKS]: {} });
  });

  it('runs plan-release as a task: the form answered by tasks/update, the page in the browser, the result from the task', async () => {
    const user = 'mcpnest-tasks-alice';
    const c = await client(user);
    const created = await callTask(c, 'plan-release', { app: 'shop' });
    expect(created).toMatchObject({ resultType: 'task', status: 'working', content: [] });
    const taskId = String(created.taskId);
    expect(taskId).toMatch(/^[0-9a-f-]{36}$/);

    const asking = await waitForTask(c, taskId, (t) => t.status === 'input_required');
    const [formKey, form] = Object.entries(asking.inputRequests ?? {})[0];
    expect(form).toMatchObject({ method: 'elicitation/create', params: { mode: 'form' } });
    await updateTask(c, taskId, { [formKey]: { action: 'accept', content: { version: '2.1.0' } } });

    const paging = await waitForTask(c, taskId, (t) => t.status === 'input_required' && !(formKey in (t.inputRequests ?? {})));
    const [pageKey, page] = Object.entries(paging.inputRequests ?? {})[0];
    expect(page).toMatchObject({ method: 'elicitation/create', params: { mode: 'url' } });
    const url = String(page.params.url);
    expect(url.startsWith(`${demo.url}/elicit/`) && url.endsWith('/confirm')).toBe(true);
    await updateTask(c, taskId, { [pageKey]: { action: 'accept' } });
    expect((await waitForTask(c, taskId, (t) => t.status === 'working')).inputRequests).toBeUndefined();

    // Bound to req.user: bob's browser is refused, alice's confirms, and the task completes by itself.
    expect((await submitPage(url, { action: 'confirm' }, { cookie: await signIn('mcpnest-tasks-bob') })).status).toBe(403);
    expect((await submitPage(url, { action: 'confirm' }, { cookie: await signIn(user) })).status).toBe(200);
    const done = await waitForTask(c, taskId, (t) => t.status === 'completed');
    // The method's return value, as MCP-Nest makes a result of it.
    expect(done.result?.content[0]?.text).toMatch(/^Released shop 2\.1\.0 \(ticket REL-[\w-]{6}\)$/);
    // The ticket was opened in a step: once in the three runs of the method, and the result names that ticket.
    const opened = ticketsOpened('shop');
    expect(opened).toHaveLength(1);
    expect(done.result?.content[0]?.text).toContain(`(ticket REL-${opened[0].split(' ')[2].slice(0, 6)})`);
  });

  it("refuses another user's task (-32602) and the task methods without the extension (-32021); cancels", async () => {
    const alice = await client('mcpnest-tasks-owner');
    const taskId = String((await callTask(alice, 'plan-release', { app: 'blog' })).taskId);
    await waitForTask(alice, taskId, (t) => t.status === 'input_required');
    const mallory = await client('mcpnest-tasks-mallory');
    for (const request of [getTask(mallory, taskId), updateTask(mallory, taskId, {}), cancelTask(mallory, taskId)]) {
      expect((await refusal(request)).code).toBe(-32602);
    }
    const plain = await client('mcpnest-tasks-owner', false);
    expect((await refusal(getTask(plain, taskId))).code).toBe(-32021);

    await cancelTask(alice, taskId);
    expect((await getTask(alice, taskId)).status).toBe('cancelled');
  });

  it('runs as a plain call (input_required, no task) for a request without the extension', async () => {
    const c = await client('mcpnest-tasks-plain', false, true);
    const result = await c.callRaw('plan-release', { app: 'wiki' });
    expect(result.resultType).toBe('input_required');
    expect(result).not.toHaveProperty('taskId');
  });

  it('drop-table (requestApproval) through the adapter: two approvers of three, never the requester, the task completes once', async () => {
    const alice = await client('alice');
    const taskId = String((await callTask(alice, 'drop-table', { table: 'sessions' })).taskId);
    const waiting = await waitForTask(alice, taskId, (t) => t.status === 'input_required');
    const [request] = Object.values(waiting.inputRequests ?? {});
    expect(String(request.params.url)).toMatch(/\/elicit\/[0-9a-f-]{36}\/approval$/);
    const pageOf = async (user: string) => {
      const cookie = await signIn(user);
      const res = await fetch(`${demo.url}/elicit/inbox`, { headers: { Accept: 'application/json', Cookie: cookie } });
      const { questions } = (await res.json()) as { questions: Array<{ kind: string; message: string; url: string }> };
      return { cookie, mine: questions.filter((q) => q.message.startsWith('Drop the table sessions?')) };
    };
    // The requester has the approval's page (where it stands), no page to approve with.
    expect((await pageOf('alice')).mine.map((q) => q.kind)).toEqual(['approval']);
    for (const user of ['bob', 'carol']) {
      const { cookie, mine } = await pageOf(user);
      expect(mine.map((q) => q.kind)).toEqual(['confirm']);
      expect((await submitPage(mine[0].url, { action: 'confirm' }, { cookie })).status).toBe(200);
    }
    const done = await waitForTask(alice, taskId, (t) => t.status === 'completed', 15_000);
    expect(done.result?.content[0]?.text).toMatch(/^Dropped sessions: approved by bob and carol \(fingerprint [0-9a-f]{12}\)$/);
  });
});
