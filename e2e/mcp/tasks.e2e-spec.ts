/**
 * Tool calls as tasks (the MCP Tasks extension, `io.modelcontextprotocol/tasks`, on 2026-07-28), driven over real HTTP
 * by a real SDK 2.x client pinned to 2026-07-28 that declares the extension: the demo's `plan-release` asks a form
 * (an input request of the task, answered with `tasks/update`) and then a page (answered by the browser: the task
 * moves on by itself). The task lives in the store between steps: nothing waits in the process.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startDemoApp, type DemoApp } from '../../examples/demo/demo-app.js';
import { submitPage } from '../../src/testing/submit-page.js';
import { startLadderApp, type LadderApp } from '../support/ladder-app.js';
import { connectV2Client, type V2TestClient } from '../support/mcp-v2-client.js';
import {
  callTask,
  cancelTask,
  getTask,
  listenTasks,
  refusal,
  TASKS,
  updateTask,
  waitForTask,
  type DetailedTask,
} from '../support/mcp-tasks-client.js';

describe('Tasks (io.modelcontextprotocol/tasks) on 2026-07-28, with a real SDK 2.x client', () => {
  let demo: DemoApp;
  const open: V2TestClient[] = [];

  beforeAll(async () => {
    demo = await startDemoApp({ port: 0, logger: false, throttleLimit: 100_000 });
  });
  afterAll(async () => {
    await Promise.all(open.map((c) => c.close().catch(() => undefined)));
    await demo.app.close();
  });

  const client = async (user: string, withTasks = true) => {
    const c = await connectV2Client(demo.mcpUrl, { user, ...(withTasks && { extensions: { [TASKS]: {} } }) });
    open.push(c);
    return c;
  };

  it('advertises the extension in server/discover', async () => {
    const c = await client('tasks-discover');
    expect(c.client.getServerCapabilities()?.extensions).toMatchObject({ [TASKS]: {} });
  });

  it('runs plan-release as a task: a form answered by tasks/update, then a page answered in the browser', async () => {
    const c = await client('tasks-alice');
    const created = await callTask(c, 'plan-release', { app: 'shop' });
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    expect(created.taskId).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number.isInteger(created.ttlMs) && Number.isInteger(created.pollIntervalMs)).toBe(true);
    expect(created).not.toHaveProperty('requestState');
    expect(created).not.toHaveProperty('result');
    const taskId = String(created.taskId);

    // The form: an input request of the task.
    const asking = await waitForTask(c, taskId, (t) => t.status === 'input_required');
    const [formKey, form] = Object.entries(asking.inputRequests ?? {})[0];
    expect(form).toMatchObject({ method: 'elicitation/create', params: { mode: 'form' } });
    expect(JSON.stringify(form.params.requestedSchema)).toContain('version');

    // An invalid answer: asked again under a new key, naming the field.
    await updateTask(c, taskId, { [formKey]: { action: 'accept', content: { version: 'soon' } } });
    const again = await waitForTask(c, taskId, (t) => t.status === 'input_required' && !(formKey in (t.inputRequests ?? {})));
    const [againKey, againForm] = Object.entries(again.inputRequests ?? {})[0];
    expect(againKey).not.toBe(formKey);
    expect(String(againForm.params.message)).toContain('Please correct: version');

    // A valid answer: the next question is the page, in URL mode.
    await updateTask(c, taskId, { [againKey]: { action: 'accept', content: { version: '1.4.0' } } });
    const paging = await waitForTask(c, taskId, (t) => t.status === 'input_required' && !(againKey in (t.inputRequests ?? {})));
    const [pageKey, page] = Object.entries(paging.inputRequests ?? {})[0];
    expect(page).toMatchObject({ method: 'elicitation/create', params: { mode: 'url' } });
    const url = String(page.params.url);
    expect(url).toContain('/confirm');

    // The client opened the page: nothing is outstanding, the task waits on the person.
    await updateTask(c, taskId, { [pageKey]: { action: 'accept' } });
    const waiting = await waitForTask(c, taskId, (t) => t.status === 'working');
    expect(waiting.inputRequests).toBeUndefined();
    expect(waiting.statusMessage).toContain('page');

    // The person confirms in the browser: the task completes by itself.
    expect((await submitPage(url, { action: 'confirm' }, { cookie: 'demo_user=tasks-alice' })).status).toBe(200);
    const done = await waitForTask(c, taskId, (t) => t.status === 'completed');
    expect(done.result?.content[0]?.text).toMatch(/^Released shop 1\.4\.0 \(ticket REL-[\w-]{6}\)$/);
    expect(done).not.toHaveProperty('requestState');

    // An answer to a key already answered, or unknown, is ignored (acknowledged all the same).
    await expect(updateTask(c, taskId, { [formKey]: { action: 'decline' }, nope: { action: 'accept' } })).resolves.toBeDefined();
    expect((await getTask(c, taskId)).status).toBe('completed');
  });

  it("refuses another user's task as unknown (-32602), and every task method without the extension (-32021)", async () => {
    const alice = await client('tasks-owner');
    const { taskId } = await callTask(alice, 'plan-release', { app: 'blog' });
    const mallory = await client('tasks-mallory');
    for (const request of [
      getTask(mallory, String(taskId)),
      updateTask(mallory, String(taskId), {}),
      cancelTask(mallory, String(taskId)),
    ]) {
      expect((await refusal(request)).code).toBe(-32602);
    }
    const plain = await client('tasks-owner', false);
    expect((await refusal(getTask(plain, String(taskId)))).code).toBe(-32021);
    expect((await refusal(getTask(alice, 'no-such-task'))).code).toBe(-32602);
  });

  it('runs the tool as a plain call (input_required, no task) when the request does not declare the extension', async () => {
    const c = await connectV2Client(demo.mcpUrl, { user: 'tasks-plain', manual: true });
    open.push(c);
    const result = await c.callRaw('plan-release', { app: 'wiki' });
    expect(result.resultType).toBe('input_required');
    expect(result).not.toHaveProperty('taskId');
  });

  it('asks in input_required rounds first, then continues as a task that keeps the answers (taskStart: continueAsTask)', async () => {
    // The conformance fixture test_tool_with_task is registered under MCP_CONFORMANCE=1 (read per request).
    process.env.MCP_CONFORMANCE = '1';
    try {
      const c = await connectV2Client(demo.mcpUrl, { user: 'tasks-first', manual: true, extensions: { [TASKS]: {} } });
      open.push(c);
      const round1 = await c.callRaw('test_tool_with_task', {});
      expect(round1.resultType).toBe('input_required');
      expect(round1).not.toHaveProperty('taskId');
      expect(Object.keys(round1.inputRequests)).toEqual(['user_name']);
      await c
        .callRaw(
          'test_tool_with_task',
          {},
          { inputResponses: { user_name: { action: 'accept', content: { name: 'Alice' } } }, requestState: round1.requestState },
        )
        .catch(() => undefined); // the SDK refuses resultType "task": read it off the wire
      const round2: Record<string, unknown> = c.toolCalls().at(-1)?.response?.result ?? {};
      expect(round2).toMatchObject({ resultType: 'task', status: 'working' });
      expect(round2).not.toHaveProperty('requestState');
      const done = await waitForTask(c, String(round2.taskId), (t) => t.status === 'completed');
      expect(done.result?.content[0]?.text).toBe('Hello, Alice!');
    } finally {
      delete process.env.MCP_CONFORMANCE;
    }
  });

  it('sends notifications/tasks on a subscriptions/listen for the task: each change, until it completes, then ends the stream', async () => {
    const c = await client('tasks-listen');
    const taskId = String((await callTask(c, 'plan-release', { app: 'shop' })).taskId);
    const listen = await listenTasks(demo.mcpUrl, 'tasks-listen', [taskId, 'no-such-task'], { id: 'sub-1' });
    expect(listen.status).toBe(200);
    const stamped = { 'io.modelcontextprotocol/subscriptionId': 'sub-1' };
    const ack = await listen.next((m) => m.method === 'notifications/subscriptions/acknowledged');
    expect(ack.params).toEqual({ notifications: { taskIds: [taskId] }, _meta: stamped });

    // The form question, pushed: the same detailed task tasks/get gives, stamped with the subscription.
    const isTask = (status: string) => (m: { method?: string; params?: Record<string, unknown> }) =>
      m.method === 'notifications/tasks' && m.params?.status === status;
    const asking = await listen.next(isTask('input_required'));
    expect(asking.params).toMatchObject({ taskId, _meta: stamped });
    expect(asking.params).not.toHaveProperty('resultType');
    const [formKey] = Object.keys(asking.params?.inputRequests as object);
    await updateTask(c, taskId, { [formKey]: { action: 'accept', content: { version: '5.0.0' } } });
    const paging = await listen.next((m) => isTask('input_required')(m) && !(formKey in (m.params?.inputRequests as object)));
    const [pageKey, page] = Object.entries(paging.params?.inputRequests as Record<string, { params: { url: string } }>)[0];
    await updateTask(c, taskId, { [pageKey]: { action: 'accept' } });
    await listen.next(isTask('working'));

    expect((await submitPage(page.params.url, { action: 'confirm' }, { cookie: 'demo_user=tasks-listen' })).status).toBe(200);
    const done = await listen.next(isTask('completed'));
    expect(done.params?.result).toMatchObject({
      content: [{ type: 'text', text: expect.stringMatching(/^Released shop 5\.0\.0 \(ticket REL-[\w-]{6}\)$/) }],
    });
    // Nothing more to follow: the graceful end of the subscription, then the stream closes.
    expect((await listen.next((m) => m.id === 'sub-1')).result).toEqual({ resultType: 'complete', _meta: stamped });
    await listen.ended;
    // Each state once, in order.
    const statuses = listen.messages.filter((m) => m.method === 'notifications/tasks').map((m) => m.params?.status);
    expect(statuses.at(-1)).toBe('completed');
    expect(statuses.filter((s) => s === 'completed')).toHaveLength(1);
  });

  it('follows no task of another user (an empty acknowledgement, the stream ended), and refuses a listen without the extension (-32021)', async () => {
    const alice = await client('tasks-listen-owner');
    const taskId = String((await callTask(alice, 'plan-release', { app: 'blog' })).taskId);
    const mallory = await listenTasks(demo.mcpUrl, 'tasks-listen-mallory', [taskId]);
    expect((await mallory.next((m) => m.method === 'notifications/subscriptions/acknowledged')).params?.notifications).toEqual({
      taskIds: [],
    });
    await mallory.ended;
    expect(mallory.messages.some((m) => m.method === 'notifications/tasks')).toBe(false);

    const plain = await listenTasks(demo.mcpUrl, 'tasks-listen-owner', [taskId], { extension: false });
    expect(plain.status).toBe(400);
    await plain.ended;
    expect(plain.messages[0]?.error?.code).toBe(-32021);
    const bad = await listenTasks(demo.mcpUrl, 'tasks-listen-owner', 'not-a-list');
    await bad.ended;
    expect(bad.messages[0]?.error).toMatchObject({ code: -32602, message: expect.stringContaining('notifications.taskIds') });
  });

  it.each([
    ['as tasks', 'modern', true],
    ['as plain calls on 2026-07-28', 'modern', false],
    ['as plain calls on 2025-11-25', 'legacy', false],
  ] as const)(
    'reaches a client without elicitation by the link %s: each call ends with the next page, and no answer is asked twice',
    async (_, era, asTask) => {
      const user = `linked-${era}-${String(asTask)}`;
      const c = await connectV2Client(demo.mcpUrl, { user, era, elicitation: null, ...(asTask && { extensions: { [TASKS]: {} } }) });
      open.push(c);
      const cookie = `demo_user=${user}`;
      const call = async () => {
        if (!asTask) return (await c.client.callTool({ name: 'plan-release', arguments: { app: 'shop' } })) as DetailedTask['result'];
        const created = await callTask(c, 'plan-release', { app: 'shop' });
        const done = await waitForTask(c, String(created.taskId), (t) => t.status === 'completed');
        // No input request the client never declared.
        expect(done.inputRequests).toBeUndefined();
        return done.result;
      };
      const linkOf = async (kind: string) => {
        const result = await call();
        // Not an error: the link result, whose first line a person can act on.
        expect(result?.isError).toBeFalsy();
        const url = new RegExp(`^Open this page to continue: (\\S+/${kind})$`, 'm').exec(result?.content[0]?.text ?? '')?.[1];
        expect(url).toBeDefined();
        return url!;
      };
      // The version, asked on its hosted form page; the person answers in the browser.
      expect((await submitPage(await linkOf('form'), { version: '1.4.0' }, { cookie })).status).toBe(200);
      // Called again: the version is taken up, and the approval is the next page.
      expect((await submitPage(await linkOf('confirm'), { action: 'confirm' }, { cookie })).status).toBe(200);
      // Called again: both answers are taken up (the version is not asked again), and the tool runs.
      expect((await call())?.content[0]?.text).toMatch(/^Released shop 1\.4\.0 \(ticket REL-[\w-]{6}\)$/);
    },
  );

  it('cancels a task: tasks/cancel acknowledges, tasks/get says cancelled, its page is cancelled too', async () => {
    const c = await client('tasks-cancel');
    const { taskId } = await callTask(c, 'plan-release', { app: 'docs' });
    const asking = await waitForTask(c, String(taskId), (t) => t.status === 'input_required');
    await updateTask(c, String(taskId), {
      [Object.keys(asking.inputRequests ?? {})[0]]: { action: 'accept', content: { version: '2.0.0' } },
    });
    const paging = await waitForTask(c, String(taskId), (t) => Object.values(t.inputRequests ?? {}).some((r) => r.params.mode === 'url'));
    const url = String(Object.values(paging.inputRequests ?? {})[0].params.url);
    const ack = c.wire.length;
    await cancelTask(c, String(taskId));
    const acked = c.wire[ack]?.response?.result ?? {};
    expect(acked).toMatchObject({ resultType: 'complete' });
    for (const field of ['taskId', 'status', 'result', 'error', 'inputRequests']) expect(acked).not.toHaveProperty(field);
    expect((await getTask(c, String(taskId))).status).toBe('cancelled');
    const pageNow = await fetch(url, { headers: { cookie: 'demo_user=tasks-cancel' } });
    expect(pageNow.status).toBe(409);
  });
});

describe('Tasks over time, and what the module acts on', () => {
  /** Task lifetime of the second demo: short, so that expiry is seen. */
  const TASK_TTL_MS = 5_000;
  let demo: DemoApp;
  const open: V2TestClient[] = [];

  beforeAll(async () => {
    demo = await startDemoApp({
      port: 0,
      logger: false,
      throttleLimit: 100_000,
      taskTtlMs: TASK_TTL_MS,
      // Acts as if no client could show a URL: a task's page question goes over the form bridge.
      clientPolicy: (client) => (client.declared?.form ? { form: {} } : client.declared),
    });
  });
  afterAll(async () => {
    await Promise.all(open.map((c) => c.close().catch(() => undefined)));
    await demo.app.close();
  });

  const client = async (user: string) => {
    const c = await connectV2Client(demo.mcpUrl, { user, extensions: { [TASKS]: {} } });
    open.push(c);
    return c;
  };

  it("asks a task's page question over the form bridge when clientPolicy drops URL mode (the client declared both)", async () => {
    const c = await client('tasks-policy');
    const taskId = String((await callTask(c, 'plan-release', { app: 'shop' })).taskId);
    const asking = await waitForTask(c, taskId, (t) => t.status === 'input_required');
    const [formKey] = Object.keys(asking.inputRequests ?? {});
    await updateTask(c, taskId, { [formKey]: { action: 'accept', content: { version: '3.0.0' } } });
    const bridging = await waitForTask(c, taskId, (t) => t.status === 'input_required' && !(formKey in (t.inputRequests ?? {})));
    const [bridgeKey, bridge] = Object.entries(bridging.inputRequests ?? {})[0];
    expect(bridge.params.mode).toBe('form');
    expect(Object.keys((bridge.params.requestedSchema as { properties: object }).properties)).toContain('finished');
    const url = /https?:\/\/\S+\/confirm/.exec(String(bridge.params.message))?.[0];
    expect(url).toBeDefined();

    // The person confirms on the page, then says so in the bridge's form: the task completes.
    expect((await submitPage(url!, { action: 'confirm' }, { cookie: 'demo_user=tasks-policy' })).status).toBe(200);
    await updateTask(c, taskId, { [bridgeKey]: { action: 'accept', content: { finished: true } } });
    const done = await waitForTask(c, taskId, (t) => t.status === 'completed');
    expect(done.result?.content[0]?.text).toMatch(/^Released shop 3\.0\.0 \(ticket REL-[\w-]{6}\)$/);
  });

  it('keeps a task answered two seconds later, and forgets one left past its ttlMs (-32602)', async () => {
    const c = await client('tasks-later');
    const started = Date.now();
    const kept = String((await callTask(c, 'plan-release', { app: 'api' })).taskId);
    const left = String((await callTask(c, 'plan-release', { app: 'cli' })).taskId);
    expect((await getTask(c, left)).ttlMs).toBe(TASK_TTL_MS);
    const asking = await waitForTask(c, kept, (t) => t.status === 'input_required');

    // The person answers two seconds later: the task is still there, and moves on.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const [formKey] = Object.keys(asking.inputRequests ?? {});
    await updateTask(c, kept, { [formKey]: { action: 'decline' } });
    const done = await waitForTask(c, kept, (t) => t.status === 'completed');
    expect(done.result?.content[0]?.text).toBe('Release cancelled');

    // The other one, never answered, is gone once its ttlMs has passed: tasks/get says "not found".
    expect((await getTask(c, left)).status).toBe('input_required');
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + TASK_TTL_MS + 200 - Date.now())));
    const refused = await refusal(getTask(c, left));
    expect(refused.code).toBe(-32602);
    expect(refused.message).toContain('Task not found');
  }, 20_000);

  it("answers a call past the user's cap on open tasks with the JSON-RPC error -32005, never a tool result; other users are not counted", async () => {
    const c = await client('tasks-capped');
    // plan-release waits for an answer: each task stays open (tasks.maxOpenPerUser, 20 by default).
    for (let i = 0; i < 20; i++) expect(await callTask(c, 'plan-release', { app: `app-${i}` })).toMatchObject({ resultType: 'task' });
    const refused = await refusal(callTask(c, 'plan-release', { app: 'one-too-many' }));
    expect(refused.code).toBe(-32005);
    expect(refused.message).toContain('tasks.maxOpenPerUser = 20');
    expect((refused as { data?: unknown }).data).toEqual({ limit: 'tasks.maxOpenPerUser', value: 20 });
    // Another user still gets a task.
    expect(await callTask(await client('tasks-not-capped'), 'plan-release', { app: 'other' })).toMatchObject({ resultType: 'task' });
  }, 20_000);
});

describe('tasks without a verified user (tasks.allowAnonymous), with a real SDK 2.x client', () => {
  const apps: LadderApp[] = [];
  const clients: V2TestClient[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await Promise.all(apps.map((l) => l.app.close()));
  });

  /** An app whose resolveMcpUser verifies nobody (the route still lets the bearer in), with an optional and a required task tool. */
  async function anonymousCaller(tasks: { allowAnonymous?: boolean }): Promise<V2TestClient> {
    const ladder = await startLadderApp({ resolveMcpUser: () => undefined, tasks }, (elicitation, server) => {
      const done = () => ({ content: [{ type: 'text' as const, text: 'done' }] });
      elicitation.registerTool(server, 'may-task', { description: 'A task if asked', execution: { taskSupport: 'optional' } }, done);
      elicitation.registerTool(server, 'must-task', { description: 'Only a task', execution: { taskSupport: 'required' } }, done);
    });
    apps.push(ladder);
    const c = await connectV2Client(ladder.mcpUrl, { user: 'nobody-verified', extensions: { [TASKS]: {} } });
    clients.push(c);
    return c;
  }

  it('off (the default): an optional tool runs as a plain call, a required one is refused with -32600 naming tasks.allowAnonymous', async () => {
    const c = await anonymousCaller({});
    const plain = await callTask(c, 'may-task', {});
    expect(plain).not.toHaveProperty('taskId');
    expect(plain).toMatchObject({ content: [{ type: 'text', text: 'done' }] });
    const refused = await refusal(callTask(c, 'must-task', {}));
    expect(refused.code).toBe(-32600);
    expect(refused.message).toContain('tasks.allowAnonymous');
  });

  it('on: the call makes a task bound to no user', async () => {
    const c = await anonymousCaller({ allowAnonymous: true });
    const created = await callTask(c, 'may-task', {});
    expect(created).toMatchObject({ resultType: 'task' });
    const done = await waitForTask(c, String(created.taskId), (t) => t.status === 'completed');
    expect(done.result?.content[0]?.text).toBe('done');
  });
});

describe('tasks.createPerMinute, with a real SDK 2.x client', () => {
  let ladder: LadderApp;
  const clients: V2TestClient[] = [];
  beforeAll(async () => {
    ladder = await startLadderApp({ tasks: { createPerMinute: 3 } }, (elicitation, server) => {
      elicitation.registerTool(server, 'quick-task', { description: 'A task', execution: { taskSupport: 'required' } }, () => ({
        content: [{ type: 'text' as const, text: 'done' }],
      }));
    });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await ladder.app.close();
  });
  const client = async (user: string) => {
    const c = await connectV2Client(ladder.mcpUrl, { user, extensions: { [TASKS]: {} } });
    clients.push(c);
    return c;
  };

  it('refuses the creation past the quota with -32005 naming tasks.createPerMinute, although every task finished; other users are not counted', async () => {
    const c = await client('quota-alice');
    for (let i = 0; i < 3; i++) {
      const created = await callTask(c, 'quick-task', {});
      await waitForTask(c, String(created.taskId), (t) => t.status === 'completed');
    }
    const refused = await refusal(callTask(c, 'quick-task', {}));
    expect(refused.code).toBe(-32005);
    expect(refused.message).toContain('tasks.createPerMinute = 3');
    expect((refused as { data?: unknown }).data).toEqual({ limit: 'tasks.createPerMinute', value: 3 });
    expect(await callTask(await client('quota-bob'), 'quick-task', {})).toMatchObject({ resultType: 'task' });
  });
});
