/**
 * The 2026-07-28 flow (multi round-trip requests) in process, with real SDK 2.x parts: an `McpServer`
 * with `serverOptions()`, served by `createMcpHandler(..., { legacy: 'reject' })` through `handler.fetch`,
 * and the SDK 2.x client over its Streamable HTTP transport (pinned to 2026-07-28).
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import {
  Client,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  StreamableHTTPClientTransport,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/client';
import { createMcpHandler, McpServer, type McpHttpHandler } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { ElicitationRecords } from '../../src/lifecycle/elicitation-records.js';
import { defineForm } from '../../src/forms/define-form.js';
import { McpElicitation, type ElicitingToolHandler } from '../../src/mcp/mcp-elicitation.js';
import { compileElicitation } from '../support/testing-module.js';

const MAX_FORM_ATTEMPTS = 4;
const authFor = (user: string) => ({ token: `token-${user}`, clientId: user, scopes: [], extra: { userId: user } });
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

const nameForm = defineForm({ type: 'object', properties: { name: { type: 'string', minLength: 1 } }, required: ['name'] });
const ageForm = defineForm({ type: 'object', properties: { age: { type: 'integer', minimum: 0 } }, required: ['age'] });
const confirmForm = defineForm({ type: 'object', properties: { confirmed: { type: 'boolean' } }, required: ['confirmed'] });
const secretForm = defineForm(
  { type: 'object', properties: { password: { type: 'string', minLength: 1 } }, required: ['password'] },
  { secretFields: ['password'] },
);

type Elicit = ElicitRequest['params'];
type Caps = { form?: Record<string, never>; url?: Record<string, never> } | null;

/** A tools/call request as the client put it on the wire: a retry echoes the state and answers the questions. */
interface ToolsCallMessage {
  id: string | number;
  method: 'tools/call';
  params: {
    name: string;
    arguments?: Record<string, unknown>;
    requestState?: string;
    inputResponses?: Record<string, unknown>;
    /** The per-request envelope a modern-era client attaches to every request. */
    _meta: Record<string, unknown>;
  };
}

/** The JSON-RPC response to a tools/call as it crossed the wire, where a result still carries `resultType`. */
interface ToolsCallReply {
  id: string | number;
  result: { resultType: string };
}

/** A tools/call result in manual mode: `input_required` (embedded requests and the sealed state) or complete. */
interface RawToolResult {
  resultType?: string;
  inputRequests?: Record<string, { method: string; params: Record<string, unknown> }>;
  requestState?: string;
}

function textOf(result: unknown): string {
  return ((result as { content?: Array<{ text?: string }> }).content ?? []).map((c) => c.text ?? '').join('');
}

describe('2026-07-28 tool flow through SDK 2.x McpServer, createMcpHandler and the SDK 2.x client', () => {
  let ref: TestingModule;
  let binding: McpElicitation;
  let service: ElicitationService;
  let records: ElicitationRecords;
  let handler: McpHttpHandler;
  let tools: Array<[string, Record<string, unknown>, ElicitingToolHandler<never, unknown>]>;
  const clients: Client[] = [];

  beforeEach(async () => {
    ref = await compileElicitation({
      // A retry holds this long for a pending page (the default, 20 s, suits clients, not a test's pace).
      pendingRetryWaitMs: 1_000,
      limits: { createPerMinute: 100_000, maxPendingPerUser: 100_000, maxFormAttempts: MAX_FORM_ATTEMPTS },
    });
    binding = ref.get(McpElicitation);
    service = ref.get(ElicitationService);
    records = ref.get(ElicitationRecords);
    tools = [];
    // A fresh server per HTTP request, as in a stateless deployment: nothing survives between rounds but
    // the sealed requestState and the store.
    handler = createMcpHandler(
      () => {
        const server = new McpServer({ name: 'input-required-flow-test', version: '1.0.0' }, binding.serverOptions());
        for (const [name, config, run] of tools) binding.registerTool<unknown>(server, name, config, run);
        return server;
      },
      { legacy: 'reject' },
    );
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
    await handler.close();
    await ref.close();
  });

  const tool = <A>(name: string, config: Record<string, unknown>, run: ElicitingToolHandler<A, unknown>) => {
    tools.push([name, config, run]);
  };

  /** A modern client as `user`; `onElicit` answers embedded elicitations (auto-fulfil) unless `manual`. */
  async function connect({
    user = 'alice',
    elicitation = { form: {}, url: {} },
    onElicit,
    manual = false,
    maxRounds,
  }: {
    user?: string;
    elicitation?: Caps;
    onElicit?: (params: Elicit) => ElicitResult | Promise<ElicitResult>;
    manual?: boolean;
    maxRounds?: number;
  } = {}) {
    const client = new Client(
      { name: 'input-required-flow-client', version: '1.0.0' },
      {
        capabilities: elicitation ? { elicitation } : {},
        versionNegotiation: { mode: { pin: '2026-07-28' } },
        inputRequired: manual ? { autoFulfill: false } : { maxRounds: maxRounds ?? 10 },
      },
    );
    if (elicitation)
      client.setRequestHandler('elicitation/create', async (request) => (onElicit ? onElicit(request.params) : { action: 'cancel' }));
    /** Every tools/call body the client sent, and the JSON-RPC message answering it (as on the wire). */
    const calls: ToolsCallMessage[] = [];
    const replies: ToolsCallReply[] = [];
    const transport = new StreamableHTTPClientTransport(new URL('http://test.local/mcp'), {
      fetch: async (url, init) => {
        const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : undefined;
        const response = await handler.fetch(new Request(url, init), { authInfo: authFor(user) });
        if (body?.method === 'tools/call') {
          calls.push(body as ToolsCallMessage);
          expect(response.headers.get('content-type')).toContain('application/json');
          replies.push((await response.clone().json()) as ToolsCallReply);
        }
        return response;
      },
    });
    await client.connect(transport);
    clients.push(client);
    expect(client.getProtocolEra()).toBe('modern');
    return { client, calls, replies };
  }

  /** Manual mode: one raw tools/call, returning the raw result (input_required included). */
  function rawCall(client: Client, params: Record<string, unknown>): Promise<RawToolResult> {
    // The SDK types this as a CallToolResult; with allowInputRequired the answer may be the input_required shape.
    return client.request({ method: 'tools/call', params }, { allowInputRequired: true }) as Promise<RawToolResult>;
  }

  async function rejection(promise: Promise<unknown>): Promise<unknown> {
    return promise.then(
      (value) => {
        throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
      },
      (error: unknown) => error,
    );
  }

  it('asks two form questions in sequence: the body runs three times, repeating the work before the questions', async () => {
    let runs = 0;
    let workDone = 0;
    let completed = 0;
    tool('two-questions', { inputSchema: z.object({ topic: z.string() }) }, async ({ topic }: { topic: string }, el) => {
      runs++;
      workDone++; // work before the first question: repeated on every round
      const name = await el.elicit('What is your name?', nameForm);
      const age = await el.elicit('How old are you?', ageForm);
      completed++;
      if (name.action !== 'accept' || age.action !== 'accept') return text('not answered');
      return text(`${topic}: ${name.content.name} is ${age.content.age}`);
    });
    const asked: Elicit[] = [];
    const { client, calls } = await connect({
      onElicit: (params): ElicitResult => {
        asked.push(params);
        return params.message === 'What is your name?'
          ? { action: 'accept', content: { name: 'Ada' } }
          : { action: 'accept', content: { age: 36 } };
      },
    });

    const result = await client.callTool({ name: 'two-questions', arguments: { topic: 'intro' } });
    expect(textOf(result)).toBe('intro: Ada is 36');
    expect(result.isError).toBeFalsy();
    expect(asked.map((a) => [a.mode ?? 'form', a.message])).toEqual([
      ['form', 'What is your name?'],
      ['form', 'How old are you?'],
    ]);
    expect(runs).toBe(3);
    expect(workDone).toBe(3);
    expect(completed).toBe(1);

    // Three requests with fresh ids; each retry echoes a new state and answers only that round's question:
    // the first answer travels in the sealed state, not in the client's later requests.
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((c) => c.id)).size).toBe(3);
    expect(calls[0].params.requestState).toBeUndefined();
    expect(typeof calls[1].params.requestState).toBe('string');
    expect(typeof calls[2].params.requestState).toBe('string');
    expect(calls[2].params.requestState).not.toBe(calls[1].params.requestState);
    expect(Object.keys(calls[1].params.inputResponses!)).toEqual(['elicitation-1']);
    expect(Object.keys(calls[2].params.inputResponses!)).toEqual(['elicitation-2']);
    // Form mode stores nothing.
    expect(await service.list({ userId: 'alice' })).toEqual([]);
  });

  it('runs a step once across the rounds: its result rides sealed in the requestState, under one key for the whole call', async () => {
    const keys: string[] = [];
    let runs = 0;
    tool('ticket-then-ask', { inputSchema: z.object({ app: z.string() }) }, async ({ app }: { app: string }, el) => {
      runs++;
      const ticket = await el.step(
        'open-ticket',
        ({ idempotencyKey }) => (keys.push(idempotencyKey), { id: `T-${keys.length}`, note: 'plain-step-note' }),
      );
      const name = await el.elicit('Who approves?', nameForm);
      const age = await el.elicit('How old are you?', ageForm);
      if (name.action !== 'accept' || age.action !== 'accept') return text('not answered');
      return text(`${app} ${ticket.id} ${name.content.name} ${age.content.age}`);
    });
    const { client, calls } = await connect({
      onElicit: (params): ElicitResult =>
        params.message === 'Who approves?' ? { action: 'accept', content: { name: 'Ada' } } : { action: 'accept', content: { age: 36 } },
    });
    const result = await client.callTool({ name: 'ticket-then-ask', arguments: { app: 'shop' } });
    expect(textOf(result)).toBe('shop T-1 Ada 36');
    expect(runs).toBe(3);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Sealed: the retries carry it, never in the clear.
    expect(calls).toHaveLength(3);
    for (const call of calls.slice(1)) expect(call.params.requestState).not.toContain('plain-step-note');
    // Another call of the same tool is another call: its step runs, under another key.
    expect(textOf(await client.callTool({ name: 'ticket-then-ask', arguments: { app: 'shop' } }))).toBe('shop T-2 Ada 36');
    expect(new Set(keys).size).toBe(2);
  });

  it.each(['decline', 'cancel'] as const)('hands a %s to the tool, which then ends normally', async (action) => {
    let runs = 0;
    tool('confirm-delete', { inputSchema: z.object({ path: z.string() }) }, async ({ path }: { path: string }, el) => {
      runs++;
      const answer = await el.elicit(`Delete ${path}?`, confirmForm);
      return text(answer.action === 'accept' ? `Deleted ${path}` : `Not deleted (${answer.action})`);
    });
    let asked = 0;
    const { client } = await connect({ onElicit: () => (asked++, { action }) });
    const result = await client.callTool({ name: 'confirm-delete', arguments: { path: '/tmp/a' } });
    expect(textOf(result)).toBe(`Not deleted (${action})`);
    expect(result.isError).toBeFalsy();
    expect(asked).toBe(1);
    expect(runs).toBe(2);
  });

  describe('invalid form content', () => {
    const register = (counter: { runs: number }) =>
      tool('confirm-delete', { inputSchema: z.object({ path: z.string() }) }, async ({ path }: { path: string }, el) => {
        counter.runs++;
        const answer = await el.elicit(`Delete ${path}?`, confirmForm);
        return text(answer.action === 'accept' && answer.content.confirmed ? `Deleted ${path}` : 'Cancelled');
      });

    it(`is asked again, and after limits.maxFormAttempts (${MAX_FORM_ATTEMPTS}) invalid answers the tool fails with the field problems`, async () => {
      const counter = { runs: 0 };
      register(counter);
      const asked: Elicit[] = [];
      const { client, calls } = await connect({ onElicit: (p) => (asked.push(p), { action: 'accept', content: { confirmed: 'yes' } }) });
      const result = await client.callTool({ name: 'confirm-delete', arguments: { path: '/tmp/a' } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('The answer does not match the form');
      expect(textOf(result)).toContain('confirmed');
      expect(textOf(result)).not.toContain('yes');
      expect(textOf(result)).not.toContain('Deleted');
      expect(asked).toHaveLength(MAX_FORM_ATTEMPTS);
      // Asked as the tool asked it, then again naming the field to correct (never the value given).
      expect(asked[0].message).toBe('Delete /tmp/a?');
      for (const again of asked.slice(1)) {
        expect(again.message).toMatch(/^Delete \/tmp\/a\?\n\nPlease correct: confirmed /);
        expect(again.message).not.toContain('yes');
      }
      expect(counter.runs).toBe(MAX_FORM_ATTEMPTS + 1);
      // The question is asked again under the same key each time.
      expect(calls.slice(1).map((c) => Object.keys(c.params.inputResponses!))).toEqual(Array(MAX_FORM_ATTEMPTS).fill(['elicitation-1']));
    });

    it('accepts a valid answer after invalid ones (below the limit)', async () => {
      const counter = { runs: 0 };
      register(counter);
      const answers: ElicitResult[] = [
        { action: 'accept', content: { confirmed: 'yes' } },
        { action: 'accept', content: {} },
        { action: 'accept', content: { confirmed: true } },
      ];
      let asked = 0;
      const { client } = await connect({ onElicit: () => answers[asked++] });
      const result = await client.callTool({ name: 'confirm-delete', arguments: { path: '/tmp/b' } });
      expect(textOf(result)).toBe('Deleted /tmp/b');
      expect(asked).toBe(3);
      expect(counter.runs).toBe(4);
    });
  });

  it('answers a retry that lacks the needed inputResponses key (or has a non-object value) with a new input_required, not an error', async () => {
    let completed = 0;
    tool('confirm-delete', { inputSchema: z.object({ path: z.string() }) }, async ({ path }: { path: string }, el) => {
      const answer = await el.elicit(`Delete ${path}?`, confirmForm);
      completed++;
      return text(answer.action === 'accept' && answer.content.confirmed ? `Deleted ${path}` : 'Cancelled');
    });
    const { client, replies } = await connect({ manual: true });
    const call = (extra: Record<string, unknown>) => rawCall(client, { name: 'confirm-delete', arguments: { path: '/tmp/c' }, ...extra });

    const r1 = await call({});
    expect(r1.resultType).toBe('input_required');
    expect(Object.keys(r1.inputRequests!)).toEqual(['elicitation-1']);
    expect(typeof r1.requestState).toBe('string');

    const r2 = await call({
      inputResponses: { wrong_key: { action: 'accept', content: { confirmed: true } } },
      requestState: r1.requestState,
    });
    expect(r2.resultType).toBe('input_required');
    expect(r2.inputRequests).toEqual(r1.inputRequests);
    expect(typeof r2.requestState).toBe('string');
    expect(r2.requestState).not.toBe(r1.requestState);

    const r3 = await call({ inputResponses: { 'elicitation-1': 12345 }, requestState: r2.requestState });
    expect(r3.resultType).toBe('input_required');
    expect(r3.inputRequests).toEqual(r1.inputRequests);

    const r4 = await call({ inputResponses: {}, requestState: r3.requestState });
    expect(r4.resultType).toBe('input_required');
    expect(completed).toBe(0);

    const done = await call({
      inputResponses: { 'elicitation-1': { action: 'accept', content: { confirmed: true } } },
      requestState: r4.requestState,
    });
    expect(replies.at(-1)!.result.resultType).toBe('complete');
    expect(textOf(done)).toBe('Deleted /tmp/c');
    expect(completed).toBe(1);
  });

  describe('elicitation: {} (form only), with a ladder that ends at "error"', () => {
    it('refuses a URL question with -32021 (url required) and creates nothing', async () => {
      let reached = 0;
      tool('connect-service', { inputSchema: z.object({ service: z.string() }) }, async ({ service: name }: { service: string }, el) => {
        await el.requireAnswer({ kind: 'api-key', type: `api-key-${name}`, message: `Your ${name} key`, fallback: ['url', 'error'] });
        reached++;
        return text(`Connected to ${name}`);
      });
      tool('approve', {}, async (_args, el) => {
        const outcome = await el.requestUrl({ kind: 'confirm', message: 'Deploy?', fallback: ['url', 'error'] });
        reached++;
        return text(outcome.status);
      });
      tool('confirm-delete', { inputSchema: z.object({ path: z.string() }) }, async ({ path }: { path: string }, el) => {
        const answer = await el.elicit(`Delete ${path}?`, confirmForm);
        return text(answer.action === 'accept' && answer.content.confirmed ? `Deleted ${path}` : 'Cancelled');
      });
      const { client, calls } = await connect({ elicitation: {}, onElicit: () => ({ action: 'accept', content: { confirmed: true } }) });

      for (const [name, args] of [
        ['connect-service', { service: 'github' }],
        ['approve', {}],
      ] as const) {
        const error = await rejection(client.callTool({ name, arguments: args }));
        expect(error).toBeInstanceOf(ProtocolError);
        expect((error as ProtocolError).code).toBe(-32021);
        expect((error as ProtocolError).data).toEqual({ requiredCapabilities: { elicitation: { url: {} } } });
      }
      expect(calls.map((c) => c.params._meta['io.modelcontextprotocol/clientCapabilities'])).toEqual([
        { elicitation: {} },
        { elicitation: {} },
      ]);
      expect(reached).toBe(0);
      expect(await service.list({ userId: 'alice' })).toEqual([]);

      // Form mode works on the same client: `{}` means form.
      expect(textOf(await client.callTool({ name: 'confirm-delete', arguments: { path: '/tmp/d' } }))).toBe('Deleted /tmp/d');
    });

    it('refuses a form question with -32021 when the client declares no elicitation at all', async () => {
      tool('confirm-delete', {}, async (_args, el) => {
        await el.elicit('Delete?', confirmForm, { fallback: ['form', 'error'] });
        return text('Deleted');
      });
      const { client } = await connect({ elicitation: null });
      const error = await rejection(client.callTool({ name: 'confirm-delete', arguments: {} }));
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as ProtocolError).code).toBe(-32021);
      expect((error as ProtocolError).data).toEqual({ requiredCapabilities: { elicitation: { form: {} } } });
    });
  });

  describe('the fallback ladder', () => {
    const approve: ElicitingToolHandler<{ app: string }, unknown> = async ({ app }, el) => {
      const outcome = await el.requestUrl({ kind: 'confirm', message: `Deploy ${app}?` });
      return text(`${outcome.status} via ${outcome.via}`);
    };
    const pageIn = (s: string) => /(https:\/\/mcp\.example\.com\/elicit\/([0-9a-f-]{36})\/confirm)/.exec(s);

    it('two overlapping calls share one pending page; one confirm answers one retry, the other asks anew (#28)', async () => {
      let deploys = 0;
      tool('approve', { inputSchema: z.object({ app: z.string() }) }, async ({ app }: { app: string }, el) => {
        const outcome = await el.requestUrl({ kind: 'confirm', message: `Deploy ${app}?` });
        if (outcome.status === 'completed') deploys++;
        return text(`${outcome.status} via ${outcome.via}`);
      });
      const { client } = await connect({ elicitation: { url: {} }, manual: true });
      const params = { name: 'approve', arguments: { app: 'prod' } };
      const first = await rawCall(client, params);
      const second = await rawCall(client, params);
      const pageOf = (r: RawToolResult) => pageIn(String(Object.values(r.inputRequests!)[0].params.url))![2];
      expect(pageOf(second)).toBe(pageOf(first));
      expect((await service.complete(pageOf(first), { confirmed: true })).ok).toBe(true);

      const retry = (r: RawToolResult) =>
        rawCall(client, {
          ...params,
          inputResponses: { [Object.keys(r.inputRequests!)[0]]: { action: 'accept' } },
          requestState: r.requestState,
        });
      expect(textOf(await retry(first))).toBe('completed via url');
      const again = await retry(second);
      expect(again.resultType).toBe('input_required');
      expect(pageOf(again)).not.toBe(pageOf(first));
      expect(deploys).toBe(1);
    });

    it('form only: the form bridge carries the page URL; "finished" after the page was answered completes the call', async () => {
      tool('approve', { inputSchema: z.object({ app: z.string() }) }, approve);
      const { client } = await connect({ elicitation: {}, manual: true });
      const r1 = await rawCall(client, { name: 'approve', arguments: { app: 'shop' } });
      const [key, request] = Object.entries(r1.inputRequests!)[0];
      expect(request.params).toMatchObject({ mode: 'form', requestedSchema: { required: ['finished'] } });
      const [url, id] = pageIn(String(request.params.message))!.slice(1);
      expect((await service.complete(id, { confirmed: true })).ok).toBe(true);
      const done = await rawCall(client, {
        name: 'approve',
        arguments: { app: 'shop' },
        inputResponses: { [key]: { action: 'accept', content: { finished: true } } },
        requestState: r1.requestState,
      });
      expect(textOf(done)).toBe('completed via form-bridge');
      expect(url).toContain(id);
    });

    it('form only: "finished" without an answer on the page is asked again, then falls to a link to the same page', async () => {
      tool('approve', { inputSchema: z.object({ app: z.string() }) }, approve);
      const messages: string[] = [];
      const { client } = await connect({
        elicitation: {},
        onElicit: (params) => {
          messages.push(params.message);
          return { action: 'accept', content: { finished: true } };
        },
      });
      const result = await client.callTool({ name: 'approve', arguments: { app: 'shop' } });
      expect(messages).toHaveLength(MAX_FORM_ATTEMPTS);
      expect(messages[1]).toContain('does not have your answer yet');
      expect(result.isError).toBeFalsy();
      expect(pageIn(textOf(result))![1]).toBe(pageIn(messages[0])![1]);
    });

    it('no elicitation: a link result; a fresh call finds the same question; answered, the call completes via link', async () => {
      tool('approve', { inputSchema: z.object({ app: z.string() }) }, approve);
      const { client } = await connect({ elicitation: null });
      const first = await client.callTool({ name: 'approve', arguments: { app: 'shop' } });
      const [url, id] = pageIn(textOf(first))!.slice(1);
      expect(first.structuredContent).toEqual({ elicitationId: id, url, status: 'pending', instructions: textOf(first) });
      expect(pageIn(textOf(await client.callTool({ name: 'approve', arguments: { app: 'shop' } })))![1]).toBe(url);
      await service.complete(id, { confirmed: true });
      expect(textOf(await client.callTool({ name: 'approve', arguments: { app: 'shop' } }))).toBe('completed via link');
    });

    it('instantDeclineMs: a decline that comes back at once moves the question to a link instead of declining it', async () => {
      await ref.close();
      ref = await compileElicitation({ instantDeclineMs: 60_000, limits: { createPerMinute: 100_000, maxPendingPerUser: 100_000 } });
      binding = ref.get(McpElicitation);
      service = ref.get(ElicitationService);
      records = ref.get(ElicitationRecords);
      tool('approve', { inputSchema: z.object({ app: z.string() }) }, approve);
      const { client } = await connect({ onElicit: () => ({ action: 'decline' }) });
      const result = await client.callTool({ name: 'approve', arguments: { app: 'shop' } });
      const [, id] = pageIn(textOf(result))!.slice(1);
      expect((await service.getStatus(id))?.status).toBe('pending');
    });
  });

  describe('a tool that asks different questions on a retry', () => {
    it('fails when a question answered in an earlier round changes', async () => {
      let runs = 0;
      tool('fickle', {}, async (_args, el) => {
        runs++;
        await el.elicit(runs >= 3 ? 'Your name, again?' : 'Your name?', nameForm);
        await el.elicit('Your age?', ageForm);
        return text('done');
      });
      const { client } = await connect({
        onElicit: (p): ElicitResult =>
          p.message === 'Your age?' ? { action: 'accept', content: { age: 3 } } : { action: 'accept', content: { name: 'Ada' } },
      });
      const result = await client.callTool({ name: 'fickle', arguments: {} });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('asked a different question on a retry');
      expect(runs).toBe(3);
    });

    it('never hands the answer of one question to another: a changed pending question is asked afresh', async () => {
      let runs = 0;
      let completed = 0;
      tool('fickle', {}, async (_args, el) => {
        runs++;
        const answer = await el.elicit(`Question ${runs}?`, nameForm);
        completed++;
        return text(answer.action);
      });
      const asked: string[] = [];
      const { client } = await connect({
        maxRounds: 4,
        onElicit: (p) => (asked.push(p.message), { action: 'accept', content: { name: 'Ada' } }),
      });
      const error = await rejection(client.callTool({ name: 'fickle', arguments: {} }));
      expect(error).toBeInstanceOf(SdkError);
      expect((error as SdkError).code).toBe(SdkErrorCode.InputRequiredRoundsExceeded);
      expect(completed).toBe(0);
      expect(asked.slice(0, 3)).toEqual(['Question 1?', 'Question 2?', 'Question 3?']);
    });
  });

  describe('secret fields', () => {
    const register = () =>
      tool('set-password', {}, async (_args, el) => {
        const answer = await el.elicit('Choose a password', secretForm);
        return text(answer.action);
      });

    it('fail the tool for a client without URL mode when the ladder ends at "error": a secret is never asked in form mode', async () => {
      tool('set-password', {}, async (_args, el) => {
        const answer = await el.elicit('Choose a password', secretForm, { fallback: ['form', 'url', 'error'] });
        return text(answer.action);
      });
      let asked = 0;
      const { client } = await connect({
        elicitation: { form: {} },
        onElicit: () => (asked++, { action: 'accept', content: { password: 'hunter2' } }),
      });
      const result = await client.callTool({ name: 'set-password', arguments: {} });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('password');
      expect(textOf(result)).toContain('URL mode');
      expect(asked).toBe(0);
      expect(await service.list({ userId: 'alice' })).toEqual([]);
    });

    it('go to the hosted form page (URL mode) for a client with URL mode', async () => {
      register();
      const { client } = await connect({ manual: true });
      const r1 = await rawCall(client, { name: 'set-password', arguments: {} });
      expect(r1.resultType).toBe('input_required');
      const [request] = Object.values(r1.inputRequests!);
      expect(request.method).toBe('elicitation/create');
      expect(request.params.mode).toBe('url');
      expect(request.params).not.toHaveProperty('requestedSchema');
      const [created] = await service.list({ userId: 'alice' });
      expect(created).toMatchObject({ kind: 'form', status: 'pending' });
      expect(request.params.url).toBe(records.urlFor(created.elicitationId, 'form'));
    });
  });

  describe('requestUrl on a retry', () => {
    const register = (ttlMs?: number) =>
      tool('approve', {}, async (_args, el) => {
        const outcome = await el.requestUrl({ kind: 'confirm', message: 'Approve the deploy?', ...(ttlMs !== undefined && { ttlMs }) });
        return text(`outcome: ${outcome.status}`);
      });
    const retry = (client: Client, r1: RawToolResult) =>
      rawCall(client, {
        name: 'approve',
        arguments: {},
        inputResponses: { [Object.keys(r1.inputRequests!)[0]]: { action: 'accept' } },
        requestState: r1.requestState,
      });

    it('hands the tool "expired" when the page expired before the retry', async () => {
      register(150);
      const { client } = await connect({ manual: true });
      const r1 = await rawCall(client, { name: 'approve', arguments: {} });
      expect(r1.resultType).toBe('input_required');
      const [pending] = await service.list({ userId: 'alice' });
      expect(pending.status).toBe('pending');
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(textOf(await retry(client, r1))).toBe('outcome: expired');
      expect((await service.getStatus(pending.elicitationId))?.status).toBe('expired');
    });

    it("leaves for the link before a client's round budget runs out: the URL again halfway, then the link; a later call collects the answer", async () => {
      // A person who takes long: every retry finds the page pending (each held pendingRetryWaitMs).
      await ref.close();
      ref = await compileElicitation({ pendingRetryWaitMs: 20, pendingRetryRounds: 4 });
      binding = ref.get(McpElicitation);
      service = ref.get(ElicitationService);
      register();
      const { client } = await connect({ manual: true });
      let r = await rawCall(client, { name: 'approve', arguments: {} });
      const url = String(Object.values(r.inputRequests!)[0].params.url);
      const asked = (last: RawToolResult) => Object.keys(last.inputRequests ?? {}).length > 0;
      const again = (last: RawToolResult) =>
        rawCall(client, {
          name: 'approve',
          arguments: {},
          ...(asked(last) && { inputResponses: { [Object.keys(last.inputRequests!)[0]]: { action: 'accept' } } }),
          requestState: last.requestState,
        });
      const rounds: string[] = [];
      for (let i = 0; i < 3; i++) {
        r = await again(r);
        rounds.push(`${r.resultType}${asked(r) ? ` ${String(Object.values(r.inputRequests!)[0].params.mode)}` : ''}`);
      }
      // Retries 1 and 3 ask nothing new; retry 2 (half of 4) sends the page's URL request again.
      expect(rounds).toEqual(['input_required', 'input_required url', 'input_required']);
      const link = await again(r);
      expect(link.resultType ?? 'complete').toBe('complete');
      expect(textOf(link).split('\n')[0]).toBe(`Open this page to continue: ${url}`);
      const [pending] = await service.list({ userId: 'alice' });
      expect(pending.status).toBe('pending');
      // Answered later: a new call of the tool (no state) takes the answer.
      await service.complete(pending.elicitationId, { confirmed: true });
      expect(textOf(await rawCall(client, { name: 'approve', arguments: {} }))).toBe('outcome: completed');
      expect(await service.list({ userId: 'alice' })).toHaveLength(1);
    });

    it('waits on a retry while the page is pending and resumes as soon as it is answered', async () => {
      register();
      const { client, replies } = await connect({ manual: true });
      const r1 = await rawCall(client, { name: 'approve', arguments: {} });
      const [pending] = await service.list({ userId: 'alice' });
      const answered = new Promise((resolve) => setTimeout(resolve, 200)).then(() =>
        service.complete(pending.elicitationId, { confirmed: true }),
      );
      const done = await retry(client, r1);
      expect((await answered).ok).toBe(true);
      expect(replies.at(-1)!.result.resultType).toBe('complete');
      expect(textOf(done)).toBe('outcome: completed');
    });
  });

  describe('requireAnswer', () => {
    const register = (counter: { runs: number }) =>
      tool('connect-service', { inputSchema: z.object({ service: z.string() }) }, async ({ service: name }: { service: string }, el) => {
        counter.runs++;
        const data = await el.requireAnswer<{ apiKey: string }>({ kind: 'api-key', type: `api-key-${name}`, message: `Your ${name} key` });
        return text(`Connected to ${name} with a key of ${data.apiKey.length} characters`);
      });

    it('returns at once when the user already has a stored answer: no input_required at all', async () => {
      const counter = { runs: 0 };
      register(counter);
      const stored = await service.createUrlElicitation({ kind: 'api-key', type: 'api-key-github', userId: 'alice', message: 'key' });
      expect((await service.complete(stored.elicitationId, { apiKey: 'ghp_0123456789' })).ok).toBe(true);

      const { client, calls, replies } = await connect({ manual: true });
      const result = await rawCall(client, { name: 'connect-service', arguments: { service: 'github' } });
      expect(replies).toHaveLength(1);
      expect(replies[0].result.resultType).toBe('complete');
      expect(result).not.toHaveProperty('inputRequests');
      expect(result).not.toHaveProperty('requestState');
      expect(textOf(result)).toBe('Connected to github with a key of 14 characters');
      expect(calls).toHaveLength(1);
      expect(counter.runs).toBe(1);
      expect((await service.list({ userId: 'alice' })).map((e) => e.elicitationId)).toEqual([stored.elicitationId]);

      // The stored answer is alice's: bob is asked for his own key.
      const bob = await connect({ user: 'bob', manual: true });
      const asked = await rawCall(bob.client, { name: 'connect-service', arguments: { service: 'github' } });
      expect(asked.resultType).toBe('input_required');
      expect(await service.list({ userId: 'bob' })).toHaveLength(1);
    });

    it('asks through the page and resumes on the retry once the page is answered', async () => {
      const counter = { runs: 0 };
      register(counter);
      const { client, replies } = await connect({ manual: true });
      const r1 = await rawCall(client, { name: 'connect-service', arguments: { service: 'gitlab' } });
      expect(r1.resultType).toBe('input_required');
      const [pending] = await service.list({ userId: 'alice' });
      expect(pending).toMatchObject({ kind: 'api-key', type: 'api-key-gitlab', status: 'pending' });
      await service.complete(pending.elicitationId, { apiKey: 'glpat-abc' });
      const done = await rawCall(client, {
        name: 'connect-service',
        arguments: { service: 'gitlab' },
        inputResponses: { [Object.keys(r1.inputRequests!)[0]]: { action: 'accept' } },
        requestState: r1.requestState,
      });
      expect(replies.at(-1)!.result.resultType).toBe('complete');
      expect(textOf(done)).toBe('Connected to gitlab with a key of 9 characters');
      expect(JSON.stringify(done)).not.toContain('glpat-abc');
    });
  });
});
