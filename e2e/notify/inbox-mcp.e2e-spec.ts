/**
 * The inbox and the notifications of questions asked through MCP (#43), on the demo over real HTTP: two users each
 * get a question from a 2025-11-25 call (SDK 1.x: `connect-service`, a page) and a task from a 2026-07-28 call with
 * the Tasks extension (SDK 2.x: `plan-release`, whose first question is a form the client shows). Each user's inbox
 * (its JSON) lists exactly their own two, the task's form question with its task and a page of its own; the signed
 * webhook gets one `created` notice per question. The person answers the task's form on its page: the task moves on
 * to its approval page (which replaces it in the inbox), and the client's late reply to the form changes nothing.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { startDemoApp, type DemoApp } from '../../examples/demo/demo-app.js';
import { submitPage } from '../../src/testing/submit-page.js';
import { connectClient } from '../support/mcp-client.js';
import { callTask, TASKS, updateTask, waitForTask } from '../support/mcp-tasks-client.js';
import { connectV2Client, type V2TestClient } from '../support/mcp-v2-client.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const SECRET = randomBytes(32).toString('hex');

interface InboxJson {
  questions: Array<{ elicitationId: string; kind: string; message: string; url: string; taskId?: string; askedBy?: { tool: string } }>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the inbox and the notifications of questions asked through MCP (#43)', () => {
  let demo: DemoApp;
  let receiver: WebhookReceiver;
  const clients: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    receiver = await startWebhookReceiver(SECRET);
    demo = await startDemoApp({
      port: 0,
      logger: false,
      throttleLimit: 100_000,
      createPerMinute: 100_000,
      notify: { webhookUrl: receiver.url, webhookSecret: SECRET, outbox: { pollIntervalMs: 200 } },
    });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await demo?.app.close();
    await receiver?.close();
  });

  const inbox = async (user: string): Promise<InboxJson> => {
    const res = await fetch(`${demo.url}/elicit/inbox`, { headers: { Accept: 'application/json', Cookie: `demo_user=${user}` } });
    expect(res.status).toBe(200);
    return (await res.json()) as InboxJson;
  };

  /** A question from a 2025-11-25 call (the URL mode's -32042 ends it): its elicitation id. */
  const askPage = async (user: string, service: string): Promise<string> => {
    const c = await connectClient(demo.mcpUrl, { user });
    clients.push(c);
    const error = await c.client.callTool({ name: 'connect-service', arguments: { service } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UrlElicitationRequiredError);
    return (error as UrlElicitationRequiredError).elicitations[0].elicitationId;
  };

  /** A task from a 2026-07-28 call with the Tasks extension, waiting on its form: the client, the task, the form's key. */
  const askTask = async (user: string, app: string): Promise<{ c: V2TestClient; taskId: string; formKey: string }> => {
    const c = await connectV2Client(demo.mcpUrl, { user, extensions: { [TASKS]: {} } });
    clients.push(c);
    const taskId = String((await callTask(c, 'plan-release', { app })).taskId);
    const waiting = await waitForTask(c, taskId, (t) => t.status === 'input_required');
    const [[formKey, form]] = Object.entries(waiting.inputRequests ?? {});
    expect(form).toMatchObject({ method: 'elicitation/create', params: { mode: 'form' } });
    return { c, taskId, formKey };
  };

  it("each user's inbox lists exactly their own questions, the task's form among them; one signed created notice each", async () => {
    const users = ['inbox-mcp-ann', 'inbox-mcp-bob'];
    const asked = await Promise.all(
      users.map(async (user, i) => ({ user, page: await askPage(user, `svc-${i}`), task: await askTask(user, `app-${i}`) })),
    );
    for (const { user, page, task } of asked) {
      const { questions } = await inbox(user);
      expect(questions).toHaveLength(2);
      const [taskQuestion, pageQuestion] = questions;
      expect(pageQuestion).toMatchObject({ elicitationId: page, askedBy: { tool: 'connect-service' } });
      expect(pageQuestion.taskId).toBeUndefined();
      expect(taskQuestion).toMatchObject({ kind: 'form', taskId: task.taskId, askedBy: { tool: 'plan-release' } });
      expect(taskQuestion.message).toContain(`Which version of app-${users.indexOf(user)}`);
      expect(taskQuestion.url).toBe(`${demo.url}/elicit/${taskQuestion.elicitationId}/form`);
    }

    // The notices: one `created` per question, signed, for its user.
    const ids = new Map<string, string>();
    for (const { user } of asked) for (const q of (await inbox(user)).questions) ids.set(q.elicitationId, user);
    const created = () => receiver.deliveries.filter((d) => ids.has(d.body.data.elicitationId) && d.body.data.event === 'created');
    for (let i = 0; i < 100 && created().length < ids.size; i++) await sleep(100);
    await sleep(500);
    expect(created()).toHaveLength(ids.size);
    for (const d of created()) {
      expect(d.valid).toBe(true);
      expect(d.body.data.userId).toBe(ids.get(d.body.data.elicitationId));
      expect(d.body.data.url).toContain(`/elicit/${d.body.data.elicitationId}/`);
    }
    expect(new Set(created().map((d) => d.body.data.elicitationId)).size).toBe(ids.size);
  }, 60_000);

  it("the task's form answered on its page moves the task on; its approval page takes its place; the client's late reply changes nothing", async () => {
    const user = 'inbox-mcp-cy';
    const { c, taskId, formKey } = await askTask(user, 'docs');
    const [form] = (await inbox(user)).questions;
    expect(form.taskId).toBe(taskId);
    const answered = await submitPage(form.url, { version: '3.1.4' }, { cookie: `demo_user=${user}` });
    expect(answered.status).toBe(200);

    // The task asks its next question, the approval page (in URL mode): the inbox lists it instead of the form.
    const approving = await waitForTask(c, taskId, (t) => t.status === 'input_required' && !(formKey in (t.inputRequests ?? {})));
    const [approval] = Object.values(approving.inputRequests ?? {});
    expect(approval).toMatchObject({ params: { mode: 'url', message: 'Release docs 3.1.4 to production?' } });
    const { questions } = await inbox(user);
    expect(questions.map((q) => [q.kind, q.taskId])).toEqual([['confirm', taskId]]);
    expect(questions[0].elicitationId).not.toBe(form.elicitationId);

    // The client answers the form late: ignored, the version stays the page's.
    await updateTask(c, taskId, { [formKey]: { action: 'accept', content: { version: '9.9.9' } } });
    expect(await submitPage(questions[0].url, { action: 'confirm' }, { cookie: `demo_user=${user}` })).toMatchObject({ status: 200 });
    const done = await waitForTask(c, taskId, (t) => t.status === 'completed');
    expect(done.result?.content[0]?.text).toMatch(/^Released docs 3\.1\.4 \(ticket REL-[\w-]{6}\)$/);
    expect((await inbox(user)).questions).toEqual([]);
  }, 60_000);
});
