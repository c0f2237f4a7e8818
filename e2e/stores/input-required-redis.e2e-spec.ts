/**
 * Protocol 2026-07-28 across two demo instances (separate OS processes) sharing one Redis: the call is
 * asked on A, the page is submitted on B, and the retry (same sealed requestState, another client and
 * transport) is served by B. Nothing ties a modern call to an instance but the state and the store.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import request from 'supertest';
import { deletePrefix, describeRedis, REDIS_URL } from '../../test/support/redis.js';
import { startDemoProcess, type DemoProcess } from '../../examples/demo/demo-process.js';
import { textOf } from '../support/mcp-client.js';
import { connectV2Client, type V2TestClient } from '../support/mcp-v2-client.js';
import { submitForm } from '../support/page-form.js';

const PREFIX = `e2e-modern-${randomUUID().slice(0, 8)}`;
const SECRET = 'ghp_MODERN_MULTI_INSTANCE_SECRET_7';
const UUID_V4 = '[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}';

/** Renders the page of `url` on `instance` and submits its form there, as the signed-in browser. */
const submitOn = (instance: DemoProcess, url: string, form: Record<string, string>, user: string) =>
  submitForm(instance.url, new URL(url).pathname, form, { Cookie: `demo_user=${user}` });

describeRedis('protocol 2026-07-28 across two instances sharing one Redis (separate OS processes)', () => {
  const env = {
    ELICITATION_STORE: 'redis',
    REDIS_URL,
    ELICITATION_REDIS_PREFIX: PREFIX,
    // Shared key ring: B opens the requestState A sealed, and reads the CSRF tokens and secrets.
    ELICITATION_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    ELICITATION_PENDING_RETRY_WAIT_MS: '200',
  };
  let a: DemoProcess;
  let b: DemoProcess;
  const processes: DemoProcess[] = [];
  const clients: V2TestClient[] = [];

  beforeAll(async () => {
    const started = await Promise.allSettled([startDemoProcess(env), startDemoProcess(env)]);
    for (const s of started) if (s.status === 'fulfilled') processes.push(s.value);
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    [a, b] = processes;
  }, 40_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await Promise.all(processes.map((p) => p.stop()));
    const redis = new Redis(REDIS_URL);
    try {
      await deletePrefix(redis, PREFIX);
    } finally {
      await redis.quit();
    }
  }, 30_000);

  /** A modern SDK 2.x client in manual mode on `instance`: it sees every input_required result. */
  const manualClient = async (instance: DemoProcess, user: string) => {
    const c = await connectV2Client(instance.mcpUrl, { user, manual: true });
    clients.push(c);
    return c;
  };
  const statusOn = async (instance: DemoProcess, id: string): Promise<string> =>
    ((await request(instance.url).get(`/elicit/${id}/status`).expect(200)).body as { status: string }).status;
  const pageOf = (instance: DemoProcess, url: string) => {
    const match = new RegExp(`^${instance.url.replace(/[.]/g, '\\.')}/elicit/(${UUID_V4})/api-key$`).exec(url);
    if (!match) throw new Error(`not a bare api-key page URL of ${instance.url}: ${url}`);
    return match[1];
  };

  it('asks on A, takes the page on B, and B completes the retry carrying the state A sealed', async () => {
    const onA = await manualClient(a, 'alice');
    const onB = await manualClient(b, 'alice');
    const args = { service: 'github' };

    const first = await onA.callRaw('connect-service', args);
    const asked = onA.toolCalls()[0].response!.result!;
    expect(asked.resultType).toBe('input_required');
    expect(Object.keys(asked.inputRequests)).toEqual(['elicitation-1']);
    expect(asked.inputRequests['elicitation-1'].params).not.toHaveProperty('elicitationId');
    expect(typeof asked.requestState).toBe('string');
    const url = first.inputRequests['elicitation-1'].params.url as string;
    const id = pageOf(a, url);

    const page = await submitOn(b, url, { apiKey: SECRET, action: 'submit' }, 'alice');
    expect(page.status).toBe(200);
    expect(page.text).toContain('The API key was received');

    const done = await onB.callRaw('connect-service', args, {
      inputResponses: { 'elicitation-1': { action: 'accept' } },
      requestState: asked.requestState,
    });
    expect(textOf(done)).toBe('Connected to github');
    const retry = onB.toolCalls()[0];
    expect(retry.request.params!.requestState).toBe(asked.requestState);
    expect(retry.response!.result!.resultType).toBe('complete');
    expect(JSON.stringify([...onA.wire, ...onB.wire].map((w) => w.response))).not.toContain(SECRET);
    for (const instance of [a, b]) expect(await statusOn(instance, id)).toBe('completed');

    // Redeemed on B, so A refuses the same state (single use is kept in the shared store).
    const replay = await onA
      .callRaw('connect-service', args, { inputResponses: { 'elicitation-1': { action: 'accept' } }, requestState: asked.requestState })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(replay).toMatchObject({ code: -32602 });
  });

  it('answers a retry on B with only requestState while the page asked on A is pending, then completes on B', async () => {
    const onA = await manualClient(a, 'bob');
    const onB = await manualClient(b, 'bob');
    const args = { service: 'gitlab' };

    const first = await onA.callRaw('connect-service', args);
    expect(first.resultType).toBe('input_required');
    const url = first.inputRequests['elicitation-1'].params.url as string;
    const id = pageOf(a, url);

    // B waits up to 200 ms for the page, which nobody submits, then asks the client to retry later.
    await onB.callRaw('connect-service', args, {
      inputResponses: { 'elicitation-1': { action: 'accept' } },
      requestState: first.requestState,
    });
    const later = onB.toolCalls()[0].response!.result!;
    expect(later.resultType).toBe('input_required');
    expect(later).not.toHaveProperty('inputRequests');
    expect(typeof later.requestState).toBe('string');
    expect(later.requestState).not.toBe(first.requestState);
    expect(await statusOn(b, id)).toBe('pending');

    expect((await submitOn(a, url, { apiKey: 'glpat-on-a' }, 'bob')).status).toBe(200);
    const done = await onB.callRaw('connect-service', args, { requestState: later.requestState });
    expect(textOf(done)).toBe('Connected to gitlab');
    expect(onB.toolCalls()[1].response!.result!.resultType).toBe('complete');
    for (const instance of [a, b]) expect(await statusOn(instance, id)).toBe('completed');
  });
});
