/**
 * The fallback ladder end to end (issue #12), with real SDK clients over HTTP:
 * - the `link` rung across two demo processes sharing Redis (asked on A, shown again by B, answered on B's
 *   page, the retry on B continues), in both eras;
 * - keep-alive progress on 2025-11-25 keeping a 5 s client timeout from firing while the page takes 12 s,
 *   and the control without keep-alive, where the same call times out;
 * - a client cancelling the waiting call: the elicitation is cancelled, its page, status, event and
 *   completion notification say so;
 * - the opt-in `model` rung and `submit-elicitation-answer` (good and bad answers), in both eras, and its
 *   refusal for a form with secret fields.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, McpError, type ElicitRequest, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { startDemoApp, type DemoApp } from '../../examples/demo/demo-app.js';
import { freePort, startDemoProcess, type DemoProcess } from '../../examples/demo/demo-process.js';
import { ElicitationEvents } from '../../src/events/elicitation-events.js';
import type { ElicitationEvent } from '../../src/core/elicitation.types.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { ElicitationRecords } from '../../src/lifecycle/elicitation-records.js';
import { FormSchemaError } from '../../src/errors/form-schema.error.js';
import { defineForm } from '../../src/forms/define-form.js';
import { PENDING_QUESTION_META_KEY } from '../../src/mcp/questions/linked-questions.js';
import { createElicitationTestClient, submitPage, type ElicitationTestClient, type TestToolResult } from '../../src/testing/index.js';
import { deletePrefix, describeRedis, REDIS_URL } from '../../test/support/redis.js';
import { startLadderApp, type LadderApp } from '../support/ladder-app.js';
import { connectClient, textOf, type TestClient } from '../support/mcp-client.js';

const ERAS = ['2025-11-25', '2026-07-28'] as const;
type Era = (typeof ERAS)[number];
/** Per run, so users (and the answers stored for them) never meet another run's. */
const RUN = randomUUID().slice(0, 8);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const SUBMIT_TOOL = 'submit-elicitation-answer';

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What a link or model result carries for programs. */
interface PendingInfo {
  elicitationId: string;
  url: string;
  status: string;
  answerWith?: { tool: string; requestedSchema: Record<string, unknown> };
}

/** A link (or model) result's pending question: the same in `structuredContent` and `_meta`. */
function pendingOf(result: TestToolResult): PendingInfo {
  expect(result.isError).toBeFalsy();
  const structured = result.structuredContent as (PendingInfo & { instructions?: string }) | undefined;
  expect(structured).toBeDefined();
  const { instructions, ...info } = structured!;
  expect(instructions).toBe(textOf(result));
  expect(result._meta?.[PENDING_QUESTION_META_KEY]).toEqual(info);
  return info;
}

/** Polls `read` until `done` holds (at most `ms`), then returns the last value read. */
async function until<T>(read: () => T | Promise<T>, done: (value: T) => boolean, ms = 5_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await delay(25);
  }
}

/** The `status` the status route of `origin` reports for `id`. */
async function statusOn(origin: string, id: string): Promise<string> {
  const res = await fetch(`${origin}/elicit/${id}/status`);
  return ((await res.json()) as { status: string }).status;
}

/** The status of `id` on `origin` once it is `status` (polled for at most 5 s; else the last one seen). */
const statusOnceIs = (origin: string, id: string, status: string): Promise<string> =>
  until(
    () => statusOn(origin, id),
    (s) => s === status,
  );

/** Signs `user` in on a demo (`/demo/login`) and returns the browser's cookie. */
async function signIn(origin: string, user: string): Promise<string> {
  const res = await fetch(`${origin}/demo/login?user=${encodeURIComponent(user)}`, { redirect: 'manual' });
  expect(res.status).toBe(200);
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('demo_user='));
  if (!cookie) throw new Error('the demo login set no demo_user cookie');
  return cookie.split(';')[0];
}

/** A rejection's reason (fails when the promise resolves). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

describeRedis('the link rung across two instances sharing Redis (separate OS processes)', () => {
  const prefix = `e2e-ladder-${RUN}`;
  const processes: DemoProcess[] = [];
  const clients: ElicitationTestClient[] = [];
  let a: DemoProcess;
  let b: DemoProcess;

  beforeAll(async () => {
    // Both instances publish B's origin as their public URL, as instances behind one load balancer share
    // one baseUrl: every page URL either gives is the same, and the browser lands on B.
    const portB = await freePort();
    const env = {
      ELICITATION_STORE: 'redis',
      REDIS_URL,
      ELICITATION_REDIS_PREFIX: prefix,
      ELICITATION_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      PUBLIC_URL: `http://127.0.0.1:${portB}`,
      // One elicitation per user and minute: a retry that created a second one would be refused.
      ELICITATION_CREATE_PER_MINUTE: '1',
    };
    const started = await Promise.allSettled([startDemoProcess(env), startDemoProcess(env, { port: portB })]);
    for (const s of started) if (s.status === 'fulfilled') processes.push(s.value);
    for (const s of started) if (s.status === 'rejected') throw s.reason;
    [a, b] = processes;
  }, 40_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await Promise.all(processes.map((p) => p.stop()));
    const redis = new Redis(REDIS_URL);
    await deletePrefix(redis, prefix);
    await redis.quit();
  }, 30_000);

  const connect = async (instance: DemoProcess, era: Era, user: string) => {
    const client = await createElicitationTestClient({ url: instance.mcpUrl, era, user, capabilities: 'none' });
    clients.push(client);
    return client;
  };

  it.each(ERAS)(
    '%s: a client without elicitation gets the page link on A, B gives the same link while it is pending, and after the page is submitted on B the retry on B connects',
    async (era) => {
      const user = `link-${era.slice(0, 4)}-${RUN}`;
      const service = `svc${era.slice(0, 4)}`;
      const [onA, onB] = await Promise.all([connect(a, era, user), connect(b, era, user)]);

      const first = await onA.callTool('connect-service', { service });
      const asked = pendingOf(first);
      expect(asked).toEqual({
        elicitationId: expect.stringMatching(UUID),
        url: `${b.url}/elicit/${asked.elicitationId}/api-key`,
        status: 'pending',
      });
      expect(textOf(first)).toContain(asked.url);
      expect(onA.urls).toEqual([asked.url]);

      // Before the page is submitted: the same question, the same URL, from the other instance (no new elicitation).
      const again = await onB.callTool('connect-service', { service });
      expect(pendingOf(again)).toEqual(asked);
      expect(onB.urls).toEqual([asked.url]);
      expect(await statusOn(a.url, asked.elicitationId)).toBe('pending');
      // The cap holds across instances: a question that needs a new elicitation is refused. The demo caps both the
      // creations per minute and the pending elicitations per user at one: the first answers, unless the minute's
      // window turned between the two calls (its counter starts again), and then the second does.
      const refused = await onB.callTool('connect-service', { service: `${service}x` });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/Too many requests for your input|You have too many open requests for input/);

      const cookie = await signIn(b.url, user);
      const page = await submitPage(asked.url, { apiKey: `key-${RUN}` }, { cookie });
      expect(page.status).toBe(200);
      expect(page.text).toContain('Thank you. The API key was received.');

      const done = await onB.callTool('connect-service', { service });
      expect(done.isError).toBeFalsy();
      expect(textOf(done)).toBe(`Connected to ${service}`);
      expect(JSON.stringify(done)).not.toContain(`key-${RUN}`);
      expect(await statusOn(a.url, asked.elicitationId)).toBe('completed');
    },
    30_000,
  );
});

describe('while a 2025-11-25 call waits for the page (the demo in process)', () => {
  const apps: DemoApp[] = [];
  const clients: TestClient[] = [];
  let keepAlive: DemoApp;
  let silent: DemoApp;

  beforeAll(async () => {
    [keepAlive, silent] = await Promise.all([
      startDemoApp({ port: 0, logger: false, keepAliveMs: 1_000 }),
      startDemoApp({ port: 0, logger: false, keepAliveMs: 0 }),
    ]);
    apps.push(keepAlive, silent);
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await Promise.all(apps.map((d) => d.app.close()));
  });

  /** A raw SDK 1.x client with form and URL mode that accepts every URL question and hands its params on. */
  async function urlClient(demo: DemoApp, user: string) {
    let asked!: (params: ElicitRequest['params'] & { mode: 'url' }) => void;
    const question = new Promise<ElicitRequest['params'] & { mode: 'url' }>((resolve) => (asked = resolve));
    const client = await connectClient(demo.mcpUrl, {
      user,
      onElicit: (params) => {
        if (params.mode === 'url') asked(params);
        return Promise.resolve({ action: params.mode === 'url' ? 'accept' : 'decline' });
      },
    });
    clients.push(client);
    return { client, question };
  }

  const WAITING = 'Waiting for the user to answer: Deploy shop to production?';

  it('keep-alive: progress every second keeps a 5 s timeout (reset on progress) from firing while the page takes 12 s', async () => {
    const user = `keep-${RUN}`;
    const { client, question } = await urlClient(keepAlive, user);
    const progress: Progress[] = [];
    const started = Date.now();
    const call = client.client.callTool({ name: 'approve-deploy', arguments: { app: 'shop' } }, undefined, {
      onprogress: (p) => progress.push(p),
      resetTimeoutOnProgress: true,
      timeout: 5_000,
    });
    call.catch(() => undefined); // awaited below
    const { url } = await question;

    await delay(12_000); // the person takes 12 s on the page (the scenario, not a wait for the machine)
    const page = await submitPage(url, {}, { cookie: `demo_user=${user}` });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Thank you. Your confirmation was received.');

    expect(textOf(await call)).toBe('Deployed shop');
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(12_000);
    const waiting = progress.filter((p) => p.message === WAITING);
    expect(waiting.length).toBeGreaterThanOrEqual(5);
    expect(waiting).toEqual(progress);
    // Progress values grow (the SDK and the spec require it within a request).
    expect(progress.map((p) => p.progress)).toEqual([...progress.map((p) => p.progress)].sort((x, y) => x - y));
  }, 25_000);

  it('control: without keep-alive the same call fails with a request timeout after 5 s, and its elicitation is cancelled', async () => {
    const user = `silent-${RUN}`;
    const { client, question } = await urlClient(silent, user);
    const progress: Progress[] = [];
    const started = Date.now();
    const call = client.client.callTool({ name: 'approve-deploy', arguments: { app: 'shop' } }, undefined, {
      onprogress: (p) => progress.push(p),
      resetTimeoutOnProgress: true,
      timeout: 5_000,
    });
    const { elicitationId } = await question;

    const error = await rejection(call);
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: ErrorCode.RequestTimeout });
    expect(elapsed).toBeGreaterThanOrEqual(5_000);
    expect(elapsed).toBeLessThan(9_000);
    expect(progress).toEqual([]);
    // The SDK cancels the request it gave up on; the server cancels the elicitation.
    expect(await statusOnceIs(silent.url, elicitationId, 'cancelled')).toBe('cancelled');
  }, 15_000);

  /**
   * Calls approve-deploy with an abort signal and aborts it once the server says it is waiting for the
   * person (a keep-alive progress notification) while the page is open.
   */
  async function cancelMidWait(user: string) {
    const { client, question } = await urlClient(keepAlive, user);
    const progress: Progress[] = [];
    const abort = new AbortController();
    const call = client.client.callTool({ name: 'approve-deploy', arguments: { app: 'shop' } }, undefined, {
      signal: abort.signal,
      onprogress: (p) => progress.push(p),
      timeout: 60_000,
    });
    call.catch(() => undefined); // awaited below
    const { url, elicitationId } = await question;
    const id = elicitationId;
    expect(url).toBe(`${keepAlive.url}/elicit/${id}/confirm`);
    await until(
      () => progress.length,
      (n) => n > 0,
    );
    expect(progress[0].message).toBe(WAITING);
    expect(await statusOn(keepAlive.url, id)).toBe('pending');

    const reason = new Error('the user pressed stop');
    abort.abort(reason);
    // SDK 1.x rejects the call with its abort reason wrapped in an McpError.
    const error = await rejection(call);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).message).toContain(reason.message);
    return { client, url, id };
  }

  it('client cancellation mid-wait: the elicitation is cancelled, and its status, page, event and completion notification say so', async () => {
    const user = `cancel-${RUN}`;
    const events: ElicitationEvent[] = [];
    const unsubscribe = keepAlive.app.get(ElicitationEvents).subscribe((event) => void events.push(event));
    try {
      const { client, url, id } = await cancelMidWait(user);

      expect(await statusOnceIs(keepAlive.url, id, 'cancelled')).toBe('cancelled');
      await client.completion(id, 5_000);
      expect(client.completed).toEqual([id]);
      expect(events.filter((e) => e.elicitationId === id).map((e) => e.type)).toEqual(['created', 'cancelled']);
      expect(events.find((e) => e.type === 'cancelled' && e.elicitationId === id)).toMatchObject({ userId: user, kind: 'confirm' });

      // The page no longer takes an answer (409, nothing posted) and says it was withdrawn.
      const page = await submitPage(url, {}, { cookie: `demo_user=${user}` });
      expect(page.status).toBe(409);
      expect(page.text).toMatch(/withdrawn|cancelled|no longer open/i);
      expect(await statusOn(keepAlive.url, id)).toBe('cancelled');
    } finally {
      unsubscribe();
    }
  });

  it('the page of an elicitation the client cancelled does not say it was answered', async () => {
    const user = `cancel-page-${RUN}`;
    const { url, id } = await cancelMidWait(user);
    expect(await statusOnceIs(keepAlive.url, id, 'cancelled')).toBe('cancelled');

    const page = await submitPage(url, {}, { cookie: `demo_user=${user}` });
    expect(page.status).toBe(409);
    expect(page.text).not.toMatch(/already answered/i);
  });
});

describe('the model rung and submit-elicitation-answer (an app with fallback.form [form, url, model])', () => {
  /** The form the model collects (no secrets). */
  const tripForm = defineForm({
    type: 'object',
    properties: {
      traveller: { type: 'string', title: 'Traveller', minLength: 1 },
      nights: { type: 'integer', title: 'Nights', minimum: 1, maximum: 30 },
    },
    required: ['traveller', 'nights'],
  });
  /** A form whose answers may only reach the hosted page (link rung), never the model. */
  const surveyForm = defineForm({
    type: 'object',
    properties: { rating: { type: 'integer', title: 'Rating', minimum: 1, maximum: 5 } },
    required: ['rating'],
  });
  const secretForm = defineForm(
    { type: 'object', properties: { password: { type: 'string', minLength: 1 } }, required: ['password'] },
    { secretFields: ['password'] },
  );

  let ladder: LadderApp;
  let service: ElicitationService;
  let records: ElicitationRecords;
  const refusals: unknown[] = [];
  const clients: ElicitationTestClient[] = [];

  beforeAll(async () => {
    ladder = await startLadderApp({ fallback: { form: ['form', 'url', 'model'] } }, (elicitation, server) => {
      elicitation.registerTool(
        server,
        'plan-trip',
        { description: 'Plans a trip', inputSchema: z.object({ city: z.string() }) },
        async ({ city }: { city: string }, el) => {
          const answer = await el.elicit(`Who travels to ${city}, and for how many nights?`, tripForm);
          if (answer.action !== 'accept') return { content: [{ type: 'text', text: `Trip not planned (${answer.action})` }] };
          const { traveller, nights } = answer.content;
          return { content: [{ type: 'text', text: `Booked ${nights} nights in ${city} for ${traveller} (via ${answer.via})` }] };
        },
      );
      elicitation.registerTool(server, 'rate-stay', { description: 'Asks for a rating on the hosted form' }, async (_args, el) => {
        const answer = await el.elicit('How was your stay?', surveyForm, { fallback: ['form', 'url', 'link'] });
        return { content: [{ type: 'text', text: answer.action === 'accept' ? `Rated ${answer.content.rating}` : answer.action }] };
      });
      elicitation.registerTool(server, 'set-password', { description: 'Asks a secret through the model (refused)' }, async (_args, el) => {
        try {
          await el.elicit('Choose a password', secretForm, { fallback: ['form', 'model'] });
        } catch (error) {
          refusals.push(error);
          throw error;
        }
        return { content: [{ type: 'text', text: 'asked' }] };
      });
    });
    service = ladder.app.get(ElicitationService);
    records = ladder.app.get(ElicitationRecords);
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await ladder?.app.close();
  });

  const connect = async (era: Era, user: string) => {
    const client = await createElicitationTestClient({ url: ladder.mcpUrl, era, user, capabilities: 'none' });
    clients.push(client);
    return client;
  };

  describe.each(ERAS)('%s', (era) => {
    const alice = `model-alice-${era.slice(0, 4)}-${RUN}`;
    const bob = `model-bob-${era.slice(0, 4)}-${RUN}`;

    it('asks the model to collect the answer; bad answers change nothing; a good one is stored and the repeated call uses it', async () => {
      const [client, other] = await Promise.all([connect(era, alice), connect(era, bob)]);
      const submit = (by: ElicitationTestClient, args: Record<string, unknown>) => by.callTool(SUBMIT_TOOL, args);

      const first = await client.callTool('plan-trip', { city: 'Oslo' });
      const asked = pendingOf(first);
      const id = asked.elicitationId;
      expect(asked).toEqual({
        elicitationId: expect.stringMatching(UUID),
        url: `${ladder.url}/elicit/${id}/form`,
        status: 'pending',
        answerWith: { tool: SUBMIT_TOOL, requestedSchema: tripForm.schema },
      });
      const text = textOf(first);
      expect(text).toContain('Ask the user: Who travels to Oslo, and for how many nights?');
      expect(text).toContain(`call the tool "${SUBMIT_TOOL}" with {"elicitationId":"${id}","action":"accept"`);
      expect(text).toContain(JSON.stringify(tripForm.schema));
      expect(text).toContain('call the tool "plan-trip" again with the same arguments');

      const record = await records.read(id);
      expect(record).toMatchObject({ status: 'pending', userId: alice, kind: 'form' });
      const unchanged = async () => expect(await records.read(id)).toEqual(record);

      // Asked again before the answer: the same question, no new elicitation.
      expect(pendingOf(await client.callTool('plan-trip', { city: 'Oslo' }))).toEqual(asked);

      // An unknown id.
      const unknown = randomUUID();
      const notFound = await submit(client, { elicitationId: unknown, action: 'accept', content: { traveller: 'Ada', nights: 3 } });
      expect(notFound.isError).toBe(true);
      expect(textOf(notFound)).toBe('No question with this elicitationId is waiting for an answer from you in the chat.');
      expect(await records.read(unknown)).toBeUndefined();
      await unchanged();

      // Another user's question (another bearer): the same answer as for an unknown id.
      const foreign = await submit(other, { elicitationId: id, action: 'accept', content: { traveller: 'Mallory', nights: 3 } });
      expect(foreign.isError).toBe(true);
      expect(textOf(foreign)).toBe(textOf(notFound));
      await unchanged();
      const foreignDecline = await submit(other, { elicitationId: id, action: 'decline' });
      expect(foreignDecline.isError).toBe(true);
      await unchanged();

      // An answer that does not fit the form: the field is named, the values are not echoed.
      const invalid = await submit(client, { elicitationId: id, action: 'accept', content: { traveller: 'Zebulon-Quux', nights: 99 } });
      expect(invalid.isError).toBe(true);
      expect(textOf(invalid)).toMatch(/^The answer does not fit the form: nights .+\. Ask the user again/);
      expect(textOf(invalid)).not.toContain('Zebulon-Quux');
      expect(textOf(invalid)).not.toContain('99');
      await unchanged();

      // A question asked through the link rung (the hosted form page), not the model rung.
      const linked = pendingOf(await client.callTool('rate-stay'));
      expect(linked.answerWith).toBeUndefined();
      expect(linked.url).toBe(`${ladder.url}/elicit/${linked.elicitationId}/form`);
      const linkedRecord = await records.read(linked.elicitationId);
      expect(linkedRecord).toMatchObject({ status: 'pending', userId: alice, kind: 'form' });
      const notModel = await submit(client, { elicitationId: linked.elicitationId, action: 'accept', content: { rating: 5 } });
      expect(notModel.isError).toBe(true);
      expect(textOf(notModel)).toBe(textOf(notFound));
      expect(await records.read(linked.elicitationId)).toEqual(linkedRecord);
      await unchanged();

      // The good answer.
      const accepted = await submit(client, { elicitationId: id, action: 'accept', content: { traveller: 'Ada', nights: 3 } });
      expect(accepted.isError).toBeFalsy();
      expect(textOf(accepted)).toBe('Answer recorded. Now call the original tool again with the same arguments to continue.');
      expect(await records.read(id)).toMatchObject({ status: 'completed' });
      expect(await statusOn(ladder.url, id)).toBe('completed');

      const done = await client.callTool('plan-trip', { city: 'Oslo' });
      expect(done.isError).toBeFalsy();
      expect(textOf(done)).toBe('Booked 3 nights in Oslo for Ada (via model)');

      // The question is answered: a second answer is refused and changes nothing.
      const answered = await records.read(id);
      const late = await submit(client, { elicitationId: id, action: 'accept', content: { traveller: 'Eve', nights: 4 } });
      expect(late.isError).toBe(true);
      expect(textOf(late)).toContain('no longer open');
      expect(await records.read(id)).toEqual(answered);
    });

    it('refuses, at declaration, a form with secret fields on the model rung (FormSchemaError naming the field)', async () => {
      const client = await connect(era, `model-carol-${era.slice(0, 4)}-${RUN}`);
      const before = refusals.length;
      const result = await client.callTool('set-password');
      expect(result.isError).toBe(true);
      const refusal = refusals[before];
      expect(refusals).toHaveLength(before + 1);
      expect(refusal).toBeInstanceOf(FormSchemaError);
      expect(refusal).toMatchObject({ name: 'FormSchemaError', field: 'password' });
      expect((refusal as FormSchemaError).message).toMatch(
        /^Form field "password" is a secret, so this form may not take the 'model' rung/,
      );
      expect(textOf(result)).toContain('Form field "password"');
      // Nothing was asked, nothing was created.
      expect(client.requests).toEqual([]);
      expect(client.urls).toEqual([]);
      expect(await service.list({ userId: `model-carol-${era.slice(0, 4)}-${RUN}` })).toEqual([]);
    });
  });
});
