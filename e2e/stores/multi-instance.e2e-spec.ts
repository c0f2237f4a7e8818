import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import request from 'supertest';
import { startDemoProcess, type DemoProcess } from '../../examples/demo/demo-process.js';
import { connectClient, textOf, type TestClient } from '../support/mcp-client.js';
import { csrfFor, postForm, submitForm } from '../support/page-form.js';
import { sharedStores, type SharedStore } from '../support/shared-stores.js';

const RUN = randomUUID().slice(0, 8);
const SECRET = 'ghp_MULTI_INSTANCE_SECRET_42';

/** The page of an elicitation URL, on another instance. */
const on = (instance: DemoProcess, url: string) => `${instance.url}${new URL(url).pathname}`;
/** Renders the page on `instance` and submits its form there. */
const submit = (instance: DemoProcess, url: string, form: Record<string, string>, user = 'alice') =>
  submitForm(instance.url, new URL(url).pathname, form, { Cookie: `demo_user=${user}` });

async function requiredError(call: Promise<unknown>): Promise<UrlElicitationRequiredError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UrlElicitationRequiredError);
  return error as UrlElicitationRequiredError;
}

const BACKENDS = sharedStores('multi', RUN);

describe.each(Object.keys(BACKENDS) as Array<keyof typeof BACKENDS>)('several instances sharing one %s (separate OS processes)', (name) => {
  const backend = BACKENDS[name];
  backend.describe(`on ${name}`, () => multiInstance(backend));
});

function multiInstance(backend: SharedStore): void {
  // Instances sharing a store share the key ring (secrets sealed on B are read on A; CSRF tokens).
  const env = { ...backend.env, ELICITATION_ENCRYPTION_KEY: randomBytes(32).toString('base64') };
  let a: DemoProcess;
  let b: DemoProcess;
  const clients: TestClient[] = [];
  const processes: DemoProcess[] = [];

  beforeAll(async () => {
    // Each is stopped in afterAll as soon as it is up, even when the other fails to start.
    const started = (p: DemoProcess) => (processes.push(p), p);
    [a, b] = await Promise.all([startDemoProcess(env).then(started), startDemoProcess(env).then(started)]);
  }, 100_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await Promise.all(processes.map((p) => p.stop()));
    await backend.cleanUp();
  }, 30_000);

  const connect = async (instance: DemoProcess, user = 'alice') => {
    const c = await connectClient(instance.mcpUrl, { user });
    clients.push(c);
    return c;
  };

  it('completes on B what a session on A asked for; A notifies its client within a second; the retry on A succeeds', async () => {
    const client = await connect(a);
    const onB = await connect(b);
    const { elicitations } = await requiredError(client.client.callTool({ name: 'connect-service', arguments: { service: 'github' } }));
    const [el] = elicitations;
    expect(el.url.startsWith(`${a.url}/elicit/`)).toBe(true);

    const notified = client.completion(el.elicitationId, 1_000);
    const started = Date.now();
    const page = await submit(b, el.url, { apiKey: SECRET, action: 'submit' });
    expect(page.status).toBe(200);
    expect(page.text).toContain('The API key was received');
    await notified;
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(client.completed).toEqual([el.elicitationId]);

    const retry = await client.client.callTool({ name: 'connect-service', arguments: { service: 'github' } });
    expect(textOf(retry)).toBe('Connected to github');
    expect(JSON.stringify(retry)).not.toContain(SECRET);
    // Both instances report the same status, and neither reveals the key.
    for (const instance of [a, b]) {
      const status = await request(instance.url).get(`/elicit/${el.elicitationId}/status`).expect(200);
      expect(status.body).toMatchObject({ status: 'completed', completed: true });
      expect(status.text).not.toContain(SECRET);
    }
    // No instance notifies a session it does not hold.
    await new Promise((r) => setTimeout(r, 200));
    expect(onB.completed).toEqual([]);
    // Each move put one event on the shared log (the store appended it with the move, and said so: nothing was
    // published after it), which A heard once: one notification.
    expect(await backend.moves(el.elicitationId)).toEqual(['created', 'completed']);
    expect(client.completed).toEqual([el.elicitationId]);
  });

  it('wakes a tool waiting on A when the page is confirmed on B', async () => {
    let confirmStatus = 0;
    const client = await connectClient(a.mcpUrl, {
      user: 'bob',
      onElicit: (params) => {
        // A supertest request only goes out once awaited (it is a lazy thenable).
        if (params.mode === 'url')
          setTimeout(() => void submit(b, params.url, { action: 'confirm' }, 'bob').then((r) => (confirmStatus = r.status)), 50);
        return Promise.resolve({ action: 'accept' });
      },
    });
    clients.push(client);
    const result = await client.client.callTool({ name: 'approve-deploy', arguments: { app: 'shop' } }, undefined, { timeout: 10_000 });
    expect(textOf(result)).toBe('Deployed shop');
    // The tool can finish on A before B's answer to the page has been read here: wait for it (bounded).
    for (let i = 0; i < 100 && confirmStatus === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(confirmStatus).toBe(200);
  });

  it('completes once when submits race across A and B', async () => {
    const client = await connect(a, 'carol');
    const { elicitations } = await requiredError(client.client.callTool({ name: 'connect-service', arguments: { service: 'gitlab' } }));
    const path = new URL(elicitations[0].url).pathname;
    // Forms rendered on either instance, then posted across both at once (the key ring is shared).
    const pairs = await Promise.all(
      Array.from({ length: 40 }, (_, i) => csrfFor((i % 2 ? b : a).url, path, { Cookie: 'demo_user=carol' })),
    );
    const responses = await Promise.all(
      pairs.map((pair, i) => postForm((i % 2 ? a : b).url, path, { apiKey: `key-${i}` }, pair, { Cookie: 'demo_user=carol' })),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([200, ...Array<number>(39).fill(409)]);
    await client.completion(elicitations[0].elicitationId, 2_000);
    expect(client.completed.filter((id) => id === elicitations[0].elicitationId)).toHaveLength(1);
  });

  it('survives a restart: created on A, A killed, completed on a new process, found by a new session', async () => {
    const first = await connectClient(a.mcpUrl, { user: 'dave' });
    const { elicitations } = await requiredError(first.client.callTool({ name: 'connect-service', arguments: { service: 'aws' } }));
    await first.close().catch(() => undefined);
    await a.stop('SIGKILL');

    const restarted = await startDemoProcess(env, { port: a.port });
    processes.push(restarted);
    await request(restarted.url)
      .get(`/elicit/${elicitations[0].elicitationId}/status`)
      .expect(200, /"status":"pending"/);
    expect((await submit(restarted, on(restarted, elicitations[0].url), { apiKey: 'aws-key' }, 'dave')).status).toBe(200);
    const fresh = await connect(restarted, 'dave');
    expect(textOf(await fresh.client.callTool({ name: 'connect-service', arguments: { service: 'aws' } }))).toBe('Connected to aws');
  }, 40_000);
}
