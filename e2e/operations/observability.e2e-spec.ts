/**
 * Metrics and traces (issue #15.3) with the real OpenTelemetry SDK: a `MeterProvider` read by an
 * `InMemoryMetricExporter` and a tracer provider exporting to an `InMemorySpanExporter`, registered as the global
 * providers before real Nest apps start, which are then driven over HTTP with the real SDK clients and pages:
 * - creation, a page submit, a decline, an expiry, a fallback rung and a form-mode question each move their
 *   instruments (`elicitation.created`, `.finished`, `.answer.duration`, `.pending`, `.page.requests`,
 *   `.fallback`); a store error is forced with a real failure (the Redis server of the store stopped);
 * - the spans of create, page render, page submit, finish and notification sent, the finish a child of the submit;
 * - no attribute of any metric or span carries a user id, an elicitation id or an answer;
 * - the demo, as its own process, answers `GET /metrics` in the Prometheus text format.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import { startDemoProcess, type DemoProcess } from '../../examples/demo/demo-process.js';
import { ElicitationModule } from '../../src/module/elicitation.module.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { defineForm } from '../../src/forms/define-form.js';
import { RedisElicitationStore } from '../../src/redis/index.js';
import { createElicitationTestClient, submitPage, type ElicitationTestClient } from '../../src/testing/index.js';
import { describeWithRedisBinaries, freePort, startRedisServer, stopProcess, type ServerProcess } from '../../test/support/redis-server.js';
import { deletePrefix, describeRedis, REDIS_URL } from '../../test/support/redis.js';
import { startLadderApp, type LadderApp } from '../support/ladder-app.js';
import { Redis } from 'ioredis';
import { Test } from '@nestjs/testing';
import type { INestApplication } from '@nestjs/common';

const RUN = randomUUID().slice(0, 8);
const SECRET = `sk-live-${randomUUID()}`;
/** The only attribute keys the module's instruments may carry (bounded values each). */
const METRIC_KEYS = new Set(['kind', 'mode', 'outcome', 'page', 'status', 'operation', 'rung']);

const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const metricReader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
const meterProvider = new MeterProvider({ readers: [metricReader] });
const spanExporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spanExporter)] });

/** A data point as the tests read it. */
interface Point {
  attributes: Record<string, unknown>;
  value: number;
}

/** Every data point of the instrument `name`, as last collected (sums; a histogram's count). */
async function points(name: string): Promise<Point[]> {
  await metricReader.forceFlush();
  const latest = metricExporter.getMetrics().at(-1);
  const found = latest?.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name);
  return (found?.dataPoints ?? []).map((p) => ({
    attributes: p.attributes,
    value: typeof p.value === 'number' ? p.value : (p.value as { count: number }).count,
  }));
}

/** The sum of the points of `name` whose attributes include `match`. */
async function count(name: string, match: Record<string, unknown> = {}): Promise<number> {
  return (await points(name))
    .filter((p) => Object.entries(match).every(([k, v]) => p.attributes[k] === v))
    .reduce((sum, p) => sum + p.value, 0);
}

/** Every instrument's count under `match`, read at once (a baseline before an action). */
async function counts(spec: Record<string, [string, Record<string, unknown>]>): Promise<Record<string, number>> {
  const entries = await Promise.all(Object.entries(spec).map(async ([key, [name, match]]) => [key, await count(name, match)] as const));
  return Object.fromEntries(entries);
}

/** What each count in `spec` changed by since `before`. */
async function deltas(
  spec: Record<string, [string, Record<string, unknown>]>,
  before: Record<string, number>,
): Promise<Record<string, number>> {
  const after = await counts(spec);
  return Object.fromEntries(Object.keys(spec).map((k) => [k, after[k] - before[k]]));
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The first finished span named `name`, waited for (at most 2 s: a notification's span ends once it was sent). */
async function finishedSpan(name: string): Promise<ReadableSpan> {
  for (let i = 0; i < 200; i++) {
    const span = spanExporter.getFinishedSpans().find((s) => s.name === name);
    if (span) return span;
    await delay(10);
  }
  throw new Error(`no ${name} span within 2 s`);
}

beforeAll(() => {
  // Before any app initialises: the module takes its meter from the global provider at init.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  metrics.setGlobalMeterProvider(meterProvider);
  trace.setGlobalTracerProvider(tracerProvider);
});

afterAll(async () => {
  await meterProvider.shutdown();
  await tracerProvider.shutdown();
  metrics.disable();
  trace.disable();
  context.disable();
});

describe('metrics and spans of a real app over HTTP (the SDK clients and the pages)', () => {
  const form = defineForm({
    type: 'object',
    properties: { nights: { type: 'integer', title: 'Nights', minimum: 1, maximum: 30 } },
    required: ['nights'],
  });
  let ladder: LadderApp;
  let service: ElicitationService;
  const clients: ElicitationTestClient[] = [];
  const user = `obs-${RUN}`;
  const cookie = `demo_user=${user}`;
  const ids: string[] = [];

  const client = async (options: Partial<Parameters<typeof createElicitationTestClient>[0]> = {}) => {
    const created = await createElicitationTestClient({ url: ladder.mcpUrl, era: '2025-11-25', user, ...options });
    clients.push(created);
    return created;
  };

  beforeAll(async () => {
    ladder = await startLadderApp({}, (elicitation, server) => {
      elicitation.registerTool(server, 'ask-key', { description: 'Asks for a key on the page' }, async (_args: undefined, el) => {
        const outcome = await el.requestUrl({ kind: 'api-key', message: 'Your key, please' });
        return { content: [{ type: 'text', text: outcome.status }] };
      });
      elicitation.registerTool(server, 'approve', { description: 'Asks for a confirmation' }, async (_args: undefined, el) => {
        const outcome = await el.requestUrl({ kind: 'confirm', message: 'Approve the deploy?' });
        return { content: [{ type: 'text', text: `${outcome.status} via ${outcome.via}` }] };
      });
      elicitation.registerTool(server, 'plan', { description: 'Asks a form', inputSchema: z.object({}) }, async (_args, el) => {
        const answer = await el.elicit('How many nights?', form);
        return { content: [{ type: 'text', text: answer.action }] };
      });
    });
    service = ladder.app.get(ElicitationService);
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await ladder?.app.close();
  });

  it('counts a creation, the page GET and POST, the completion with its duration, and the pending gauge back down', async () => {
    const spec = {
      created: ['elicitation.created', { kind: 'api-key', mode: 'url' }],
      completed: ['elicitation.finished', { kind: 'api-key', outcome: 'completed' }],
      duration: ['elicitation.answer.duration', { kind: 'api-key', outcome: 'completed' }],
      pages: ['elicitation.page.requests', { page: 'api-key', status: 200 }],
      pending: ['elicitation.pending', {}],
    } satisfies Record<string, [string, Record<string, unknown>]>;
    const before = await counts(spec);
    const mcp = await client();
    spanExporter.reset();
    const call = mcp.callTool('ask-key');
    const url = await mcp.waitForUrl();
    ids.push(url.split('/').at(-2)!);
    expect(await deltas(spec, before)).toMatchObject({ created: 1, pending: 1, completed: 0 });
    const page = await submitPage(url, { apiKey: SECRET }, { cookie });
    expect(page.status).toBe(200);
    expect((await call).content[0].text).toBe('completed');
    expect(await deltas(spec, before)).toEqual({ created: 1, completed: 1, duration: 1, pages: 2, pending: 0 });
  });

  it('spans: create, page render, page submit, finish (a child of the submit) and the notification sent (a child of the finish)', async () => {
    await mcpCompletion(ids[0]);
    const spans = spanExporter.getFinishedSpans();
    const named = (name: string) => spans.filter((s) => s.name === name);
    expect(named('elicitation.create')).toHaveLength(1);
    expect(named('elicitation.create')[0].attributes).toEqual({ 'elicitation.mode': 'url' });
    const [render] = named('elicitation.page.render');
    const [submit] = named('elicitation.page.submit');
    expect(render.attributes).toEqual({ 'elicitation.page': 'api-key', 'http.response.status_code': 200 });
    expect(submit.attributes).toEqual({ 'elicitation.page': 'api-key', 'http.response.status_code': 200 });
    const finish = named('elicitation.finish').find((s) => s.parentSpanContext?.spanId === submit.spanContext().spanId);
    expect(finish?.attributes).toEqual({ 'elicitation.outcome': 'completed' });
    expect(finish?.spanContext().traceId).toBe(submit.spanContext().traceId);
    const notification = named('elicitation.notification').find((s) => s.parentSpanContext?.spanId === finish!.spanContext().spanId);
    expect(notification?.attributes).toEqual({ 'elicitation.kind': 'api-key', 'elicitation.outcome': 'completed' });
  });

  it("the inbox: its page has a render span, its JSON (which the page polls) none, as the status route; both counted as page 'inbox'", async () => {
    const spec = { inbox: ['elicitation.page.requests', { page: 'inbox', status: 200 }] } satisfies Record<
      string,
      [string, Record<string, unknown>]
    >;
    const before = await counts(spec);
    spanExporter.reset();
    for (const accept of ['text/html', 'application/json']) {
      const res = await fetch(`${ladder.url}/elicit/inbox`, { headers: { cookie, accept } });
      expect({ accept, status: res.status, body: (await res.text()).length > 0 }).toEqual({ accept, status: 200, body: true });
    }
    await finishedSpan('elicitation.page.render');
    // Counted when each answer's connection side is done: waited for, not assumed.
    for (let i = 0; i < 100 && (await deltas(spec, before)).inbox < 2; i++) await delay(10);
    expect(await deltas(spec, before)).toEqual({ inbox: 2 });
    const renders = spanExporter.getFinishedSpans().filter((s) => s.name === 'elicitation.page.render');
    expect(renders.map((s) => s.attributes)).toEqual([{ 'elicitation.page': 'inbox', 'http.response.status_code': 200 }]);
  });

  /** Resolves once the first client received the completion notification of `id` and its span ended. */
  async function mcpCompletion(id: string): Promise<void> {
    await clients[0].completion(id);
    await finishedSpan('elicitation.notification');
  }

  it('counts a decline on the page (and its page requests by status)', async () => {
    const spec = {
      declined: ['elicitation.finished', { kind: 'confirm', outcome: 'declined' }],
      pages: ['elicitation.page.requests', { page: 'confirm', status: 200 }],
      forged: ['elicitation.page.requests', { page: 'confirm', status: 403 }],
    } satisfies Record<string, [string, Record<string, unknown>]>;
    const before = await counts(spec);
    const mcp = await client();
    const call = mcp.callTool('approve');
    const url = await mcp.waitForUrl();
    ids.push(url.split('/').at(-2)!);
    // A post without the page's CSRF token: refused (403), nothing finished.
    const forged = await fetch(url, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'action=cancel',
    });
    expect(forged.status).toBe(403);
    expect((await submitPage(url, { action: 'cancel' }, { cookie })).status).toBe(200);
    expect((await call).content[0].text).toBe('declined via url');
    expect(await deltas(spec, before)).toEqual({ declined: 1, pages: 2, forged: 1 });
  });

  it('counts an expiry by the sweep', async () => {
    const spec = {
      expired: ['elicitation.finished', { kind: 'api-key', outcome: 'expired' }],
      pending: ['elicitation.pending', {}],
    } satisfies Record<string, [string, Record<string, unknown>]>;
    const before = await counts(spec);
    const created = await service.createUrlElicitation({ kind: 'api-key', userId: user, message: 'Soon gone', ttlMs: 1 });
    ids.push(created.elicitationId);
    await delay(5);
    expect(await service.sweep(Date.now() + 1_000)).toBeGreaterThanOrEqual(1);
    expect(await deltas(spec, before)).toEqual({ expired: 1, pending: 0 });
  });

  it('counts the fallback rung a question went down to (form-bridge for a client without URL mode), and a form-mode question', async () => {
    const spec = {
      bridge: ['elicitation.fallback', { rung: 'form-bridge' }],
      declined: ['elicitation.finished', { kind: 'confirm', outcome: 'declined' }],
      formCreated: ['elicitation.created', { kind: 'form', mode: 'form' }],
      formCompleted: ['elicitation.finished', { kind: 'form', outcome: 'completed' }],
      formDuration: ['elicitation.answer.duration', { kind: 'form', outcome: 'completed' }],
      pending: ['elicitation.pending', {}],
    } satisfies Record<string, [string, Record<string, unknown>]>;
    const before = await counts(spec);
    const formOnly = await client({
      capabilities: { form: true },
      answer: (request) =>
        request.requestedSchema?.properties.nights ? { action: 'accept', content: { nights: 3 } } : { action: 'decline' },
    });
    // The bridge (a form carrying the page's URL) is declined by the client: the elicitation is declined.
    expect((await formOnly.callTool('approve')).content[0].text).toBe('declined via form-bridge');
    // The form rung: a form-mode question, answered in the client.
    expect((await formOnly.callTool('plan', {})).content[0].text).toBe('accept');
    expect(await deltas(spec, before)).toEqual({ bridge: 1, declined: 1, formCreated: 1, formCompleted: 1, formDuration: 1, pending: 0 });
  });

  it('no attribute of any metric or span carries a user id, an elicitation id or an answer', async () => {
    await metricReader.forceFlush();
    const latest = metricExporter.getMetrics().at(-1)!;
    const instruments = latest.scopeMetrics.flatMap((s) => s.metrics);
    expect(instruments.map((m) => m.descriptor.name).sort()).toEqual(
      expect.arrayContaining([
        'elicitation.answer.duration',
        'elicitation.created',
        'elicitation.fallback',
        'elicitation.finished',
        'elicitation.page.requests',
        'elicitation.pending',
      ]),
    );
    const attributes = instruments.flatMap((m) => m.dataPoints.map((p) => p.attributes));
    for (const set of attributes) for (const key of Object.keys(set)) expect(METRIC_KEYS).toContain(key);
    const spanAttributes = spanExporter.getFinishedSpans().map((s) => s.attributes);
    const text = JSON.stringify([attributes, spanAttributes]);
    expect(ids.length).toBeGreaterThanOrEqual(3);
    for (const forbidden of [user, SECRET, ...ids]) expect(text).not.toContain(forbidden);
  });
});

describeRedis('the trace context across instances sharing Redis (a page submitted on B, the session on A)', () => {
  const prefix = `obs-trace-${RUN}`;
  const user = `trace-${RUN}`;
  const key = Buffer.alloc(32, 9);
  const apps: LadderApp[] = [];
  let mcp: ElicitationTestClient | undefined;

  const start = () =>
    startLadderApp({ store: new RedisElicitationStore(REDIS_URL, { keyPrefix: prefix }), encryptionKey: key }, (elicitation, server) => {
      elicitation.registerTool(server, 'ask-key', { description: 'Asks for a key on the page' }, async (_args: undefined, el) => {
        const outcome = await el.requestUrl({ kind: 'api-key', message: 'Your key, please' });
        return { content: [{ type: 'text', text: outcome.status }] };
      });
    });

  afterAll(async () => {
    await mcp?.close().catch(() => undefined);
    for (const app of apps) await app.app.close();
    const redis = new Redis(REDIS_URL);
    await deletePrefix(redis, prefix);
    await redis.quit();
  });

  it("A's notification span links to the finish span of B, where the page was submitted", async () => {
    apps.push(await start(), await start());
    const [a, b] = apps;
    mcp = await createElicitationTestClient({ url: a.mcpUrl, era: '2025-11-25', user });
    const call = mcp.callTool('ask-key');
    const url = await mcp.waitForUrl();
    spanExporter.reset();
    const onB = url.replace(a.url, b.url);
    expect((await submitPage(onB, { apiKey: SECRET }, { cookie: `demo_user=${user}` })).status).toBe(200);
    expect((await call).content[0].text).toBe('completed');
    const notification = await finishedSpan('elicitation.notification');
    const spans = spanExporter.getFinishedSpans();
    const submit = spans.find((s) => s.name === 'elicitation.page.submit')!;
    const finish = spans.find((s) => s.name === 'elicitation.finish' && s.parentSpanContext?.spanId === submit.spanContext().spanId)!;
    expect(finish).toBeDefined();
    // Not a child of B's span (A sent it, in its own context): a link to it.
    expect(notification.parentSpanContext?.spanId).not.toBe(finish.spanContext().spanId);
    expect(notification.links.map((l) => [l.context.traceId, l.context.spanId])).toEqual([
      [finish.spanContext().traceId, finish.spanContext().spanId],
    ]);
  });
});

describeWithRedisBinaries()('elicitation.store.errors, forced by stopping the Redis server of the store', () => {
  let server: ServerProcess | undefined;
  let app: INestApplication | undefined;
  let store: RedisElicitationStore | undefined;

  afterAll(async () => {
    await app?.close().catch(() => undefined);
    if (server) await stopProcess(server.child);
  });

  it('a page GET while Redis is down answers 503 and counts the failed store read', async () => {
    const port = await freePort();
    server = await startRedisServer(port, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']);
    store = new RedisElicitationStore(`redis://127.0.0.1:${port}`, { keyPrefix: `obs-${RUN}` });
    const moduleRef = await Test.createTestingModule({
      imports: [
        ElicitationModule.forRoot({
          baseUrl: 'http://127.0.0.1:1',
          store,
          encryptionKey: Buffer.alloc(32, 7),
          cleanupIntervalMs: 0,
          throttle: false,
        }),
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    const origin = await app.getUrl();
    const service = app.get(ElicitationService);
    const created = await service.createUrlElicitation({ kind: 'confirm', userId: 'someone', message: 'Still there?' });
    const spec = {
      get: ['elicitation.store.errors', { operation: 'get' }],
      unavailable: ['elicitation.page.requests', { page: 'confirm', status: 503 }],
    } satisfies Record<string, [string, Record<string, unknown>]>;
    const before = await counts(spec);
    await stopProcess(server.child);
    const path = new URL(created.url).pathname;
    const res = await fetch(`${origin.replace('[::1]', '127.0.0.1')}${path}`);
    expect(res.status).toBe(503);
    const moved = await deltas(spec, before);
    expect(moved.unavailable).toBe(1);
    expect(moved.get).toBeGreaterThanOrEqual(1);
  });
});

describe('the demo (its own process) exports the metrics at GET /metrics in the Prometheus text format', () => {
  let demo: DemoProcess | undefined;
  let mcp: ElicitationTestClient | undefined;

  afterAll(async () => {
    await mcp?.close().catch(() => undefined);
    await demo?.stop();
  });

  it('answers elicitation_created_total after an elicitation was created', async () => {
    demo = await startDemoProcess({});
    const before = await fetch(`${demo.url}/metrics`);
    expect(before.status).toBe(200);
    expect(before.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await before.text()).not.toMatch(/^elicitation_created_total\{/m);
    mcp = await createElicitationTestClient({
      url: `${demo.url}/mcp`,
      era: '2026-07-28',
      user: `demo-${RUN}`,
      answer: () => ({ action: 'cancel' }),
    });
    await mcp.callTool('approve-deploy', { app: 'web' }).catch(() => undefined);
    const scrape = await (await fetch(`${demo.url}/metrics`)).text();
    expect(scrape).toMatch(/^# TYPE elicitation_created_total counter$/m);
    expect(scrape).toMatch(/^elicitation_created_total\{kind="confirm",mode="url",otel_scope_name="nestjs-mcp-elicitation"\} 1$/m);
    expect(scrape).toMatch(/^elicitation_pending(_total)?\b/m);
    expect(scrape).not.toContain(`demo-${RUN}`);
  });
});
