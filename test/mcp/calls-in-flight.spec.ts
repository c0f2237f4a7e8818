/**
 * #28 item 4, in process: the cap on tool calls waiting for a person answers a JSON-RPC error through an SDK 2.x
 * `McpServer` too (which turns every other error of a tool into a tool result), the MCP-Nest adapter's mapping
 * gives the same error, and a call's hang-up signal comes from the response `bindResponse` bound (SDK 1.x) or the
 * HTTP request's own signal (SDK 2.x), never when the transport can resume the stream.
 */
import { EventEmitter, getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { Client, InMemoryTransport, ProtocolError, type ElicitResult } from '@modelcontextprotocol/client';
import { McpServer, ProtocolError as ServerProtocolError, UrlElicitationRequiredError } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { ElicitationCallsInFlightError } from '../../src/errors/elicitation-calls-in-flight.error.js';
import { ElicitationResponseClosedError } from '../../src/errors/elicitation-response-closed.error.js';
import { toMcpNestError } from '../../src/mcp-nest/mcp-nest-errors.js';
import { McpElicitation } from '../../src/mcp/mcp-elicitation.js';
import { linkedSignal } from '../../src/mcp/push/push-channel.js';
import { bindResponse, hangUpOf } from '../../src/mcp/response-streams.js';
import { defineForm } from '../../src/forms/define-form.js';
import { compileElicitation } from '../support/testing-module.js';

const confirmForm = defineForm({ type: 'object', properties: { confirmed: { type: 'boolean' } }, required: ['confirmed'] });

describe('the cap on calls waiting for answers, on an SDK 2.x McpServer (2025-11-25, in memory)', () => {
  let ref: TestingModule;
  let binding: McpElicitation;
  const closers: Array<() => Promise<void>> = [];

  beforeEach(async () => {
    ref = await compileElicitation({ resolveMcpUser: () => 'alice', limits: { maxCallsInFlightPerSession: 2 } });
    binding = ref.get(McpElicitation);
  });
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close().catch(() => undefined)));
    await ref.close();
  });

  it('answers the third waiting call with a JSON-RPC error naming the limit; the two waiting still complete', async () => {
    const server = new McpServer({ name: 'cap-unit', version: '1.0.0' }, { ...binding.serverOptions() });
    binding.registerTool(server, 'ask', { inputSchema: z.object({ n: z.number() }) }, async ({ n }, el) => {
      const answer = await el.elicit(`Confirm ${n}?`, confirmForm);
      return { content: [{ type: 'text' as const, text: `${n}: ${answer.action}` }] };
    });
    const client = new Client({ name: 'cap-client', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    const pending: Array<(answer: ElicitResult) => void> = [];
    client.setRequestHandler('elicitation/create', () => new Promise<ElicitResult>((resolve) => pending.push(resolve)));
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    closers.push(
      () => client.close(),
      () => server.close(),
    );

    const first = [client.callTool({ name: 'ask', arguments: { n: 1 } }), client.callTool({ name: 'ask', arguments: { n: 2 } })];
    for (let i = 0; i < 100 && pending.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(pending).toHaveLength(2);
    const error = await client.callTool({ name: 'ask', arguments: { n: 3 } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).code).toBe(-32005);
    expect((error as ProtocolError).message).toContain(
      'Too many tool calls waiting for answers in this session (limits.maxCallsInFlightPerSession = 2)',
    );
    expect((error as ProtocolError).data).toEqual({ limit: 'limits.maxCallsInFlightPerSession', value: 2 });
    // The refused call never asked.
    expect(pending).toHaveLength(2);

    for (const answer of pending) answer({ action: 'accept', content: { confirmed: true } });
    const results = await Promise.all(first);
    expect(results.map((r) => (r.content as Array<{ text: string }>)[0].text)).toEqual(['1: accept', '2: accept']);
    expect(binding['inFlight'].size).toBe(0);
  });

  it('leaves a tool that waits on no one uncounted', async () => {
    const server = new McpServer({ name: 'cap-unit', version: '1.0.0' }, { ...binding.serverOptions() });
    binding.registerTool(server, 'quick', { inputSchema: z.object({ n: z.number() }) }, async ({ n }) => {
      await new Promise((r) => setTimeout(r, 50));
      return { content: [{ type: 'text' as const, text: `${n}` }] };
    });
    const client = new Client({ name: 'cap-client', version: '1.0.0' });
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    closers.push(
      () => client.close(),
      () => server.close(),
    );
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => client.callTool({ name: 'quick', arguments: { n } })));
    expect(results.map((r) => (r.content as Array<{ text: string }>)[0].text)).toEqual(['1', '2', '3', '4', '5']);
  });
});

describe('the refusal through the MCP-Nest adapter', () => {
  it('is the same JSON-RPC error, in the SDK copy of the call, with its plain text', () => {
    const refusal = new ElicitationCallsInFlightError('limits.maxCallsInFlightPerUser', 64);
    const mapped = toMcpNestError(refusal, { ProtocolError: ServerProtocolError, UrlElicitationRequiredError }) as {
      getError(): unknown;
    };
    const error = mapped.getError() as ServerProtocolError;
    expect(error).toBeInstanceOf(ServerProtocolError);
    expect(error.code).toBe(-32005);
    expect(error.message).toBe(
      'Too many tool calls waiting for answers for this user (limits.maxCallsInFlightPerUser = 64): answer or cancel one, then call again.',
    );
    expect(error.data).toEqual({ limit: 'limits.maxCallsInFlightPerUser', value: 64 });
  });
});

describe('hangUpOf: when a call stops waiting because its response stream closed', () => {
  /** A response as Node's: `close`, and whether it was written whole. */
  class FakeResponse extends EventEmitter {
    writableFinished = false;
    closed = false;
  }
  const extra = (more: Record<string, unknown> = {}) => ({ requestId: 1, ...more });
  const v2 = (http: Record<string, unknown>) => ({ mcpReq: { id: 1, method: 'tools/call', requestState: () => undefined }, http });

  it('SDK 1.x: the response bindResponse bound, aborted with ElicitationResponseClosedError when it closes unfinished', () => {
    const res = new FakeResponse();
    const signal = bindResponse(res, () => hangUpOf(extra()));
    expect(signal?.aborted).toBe(false);
    res.emit('close');
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toBeInstanceOf(ElicitationResponseClosedError);
  });

  it('SDK 1.x: a response written whole is no hang-up; without bindResponse nothing tells', () => {
    const res = new FakeResponse();
    const signal = bindResponse(res, () => hangUpOf(extra()));
    res.writableFinished = true;
    res.emit('close');
    expect(signal?.aborted).toBe(false);
    expect(hangUpOf(extra())).toBeUndefined();
  });

  it('never when the transport can resume the stream (an event store: closeSSEStream / closeSSE)', () => {
    const res = new FakeResponse();
    expect(bindResponse(res, () => hangUpOf(extra({ closeSSEStream: () => undefined })))).toBeUndefined();
    const request = new AbortController();
    expect(hangUpOf(v2({ req: { signal: request.signal }, closeSSE: () => undefined }))).toBeUndefined();
  });

  it("SDK 2.x: the HTTP request's own signal, its reason made the one hang-up error", () => {
    const request = new AbortController();
    const signal = hangUpOf(v2({ req: { signal: request.signal } }));
    expect(signal?.aborted).toBe(false);
    request.abort('Client connection prematurely closed.');
    expect(signal?.reason).toBeInstanceOf(ElicitationResponseClosedError);
  });
});

describe('linkedSignal: the signal an SDK request gets, which it never lets go of', () => {
  it('aborts with the first source’s reason, then leaves no listener on any source', () => {
    const call = new AbortController();
    const shutdown = new AbortController();
    const linked = linkedSignal(call.signal, undefined, shutdown.signal);
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(1);
    const reason = new Error('hung up');
    call.abort(reason);
    expect(linked.signal.aborted).toBe(true);
    expect(linked.signal.reason).toBe(reason);
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(call.signal, 'abort')).toHaveLength(0);
  });

  it('detaches from the long-lived sources once disposed (a call that ended normally)', () => {
    const shutdown = new AbortController();
    for (let i = 0; i < 100; i++) linkedSignal(new AbortController().signal, shutdown.signal).dispose();
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
    shutdown.abort(new Error('late'));
    const after = linkedSignal(shutdown.signal);
    expect(after.signal.reason).toEqual(new Error('late'));
  });
});
