/**
 * Attacks on the 2026-07-28 `requestState` over real HTTP against the demo app: tampered, expired,
 * another user's, replayed, and minted for another tool or other arguments. In every case the retry
 * must not run the tool to completion, change the elicitations in the store, or create new ones.
 * Also: the state is opaque (no user, arguments or answers readable in it).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ProtocolError } from '@modelcontextprotocol/client';
import type { McpServer as ModernMcpServer } from '@modelcontextprotocol/server';
import { startDemoApp, type DemoApp } from '../../examples/demo/demo-app.js';
import { DemoToolsService } from '../../examples/demo/demo-tools.service.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { defineForm } from '../../src/forms/define-form.js';
import { McpElicitation } from '../../src/mcp/mcp-elicitation.js';
import { connectV2Client } from '../support/mcp-v2-client.js';
import { submitForm } from '../support/page-form.js';

const PROTOCOL = '2026-07-28';
const BOTH_MODES = { elicitation: { form: {}, url: {} } };
const CONFIRM = { 'elicitation-1': { action: 'accept', content: { confirmed: true } } };
const URL_ACCEPT = { 'elicitation-1': { action: 'accept' } };
const ELICITATION_ID = /\/elicit\/([0-9a-f-]{36})\//;

interface Reply {
  status: number;
  message: {
    id?: number;
    result?: {
      resultType?: string;
      isError?: boolean;
      content?: Array<{ text?: string }>;
      inputRequests?: Record<string, { method?: string; params?: Record<string, unknown> }>;
      requestState?: string;
    };
    error?: { code: number; message: string; data?: unknown };
  };
}

let nextId = 0;

/** One raw 2026-07-28 tools/call POST, exactly as the SDK 2.x client sends it (headers and _meta envelope). */
async function callTool(
  demo: DemoApp,
  name: string,
  args: Record<string, unknown>,
  {
    inputResponses,
    requestState,
    user = 'alice',
    capabilities = BOTH_MODES,
    headerName = name,
  }: { inputResponses?: unknown; requestState?: string; user?: string | null; capabilities?: object; headerName?: string } = {},
): Promise<Reply> {
  const body = {
    jsonrpc: '2.0',
    id: ++nextId,
    method: 'tools/call',
    params: {
      name,
      arguments: args,
      ...(inputResponses !== undefined && { inputResponses }),
      ...(requestState !== undefined && { requestState }),
      _meta: {
        'io.modelcontextprotocol/protocolVersion': PROTOCOL,
        'io.modelcontextprotocol/clientInfo': { name: 'request-state-attacks', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': capabilities,
      },
    },
  };
  const response = await fetch(demo.mcpUrl, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': PROTOCOL,
      'Mcp-Method': 'tools/call',
      'Mcp-Name': headerName,
      ...(user ? { Authorization: `Bearer ${user}` } : {}),
    },
    body: JSON.stringify(body),
  });
  expect(response.headers.get('content-type')).toContain('application/json');
  const message = (await response.json()) as Reply['message'];
  expect(message.id).toBe(body.id);
  return { status: response.status, message };
}

const textOf = (reply: Reply) => (reply.message.result?.content ?? []).map((c) => c.text ?? '').join('');

/** The refusal every bad state gets: JSON-RPC -32602 on HTTP 200, no result, no reason leaked. */
function expectStateRefused(reply: Reply): void {
  expect(reply.status).toBe(200);
  expect(reply.message.result).toBeUndefined();
  expect(reply.message.error).toEqual({
    code: -32602,
    message: 'Invalid or expired requestState',
    data: { reason: 'invalid_request_state' },
  });
}

/** Replaces the middle character of one dot-separated part with another character of its alphabet. */
function flipPart(state: string, index: number): string {
  const parts = state.split('.');
  const part = parts[index];
  const at = index === 0 ? 1 : Math.floor(part.length / 2);
  const alphabet = index === 1 ? '0123456789abcdef' : 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const swapped = alphabet[(alphabet.indexOf(part[at]) + 1) % alphabet.length];
  parts[index] = part.slice(0, at) + swapped + part.slice(at + 1);
  return parts.join('.');
}

/** Whether `needle` is in the state: in clear, in any base64 encoding of it, or in any decoded part. */
function readableIn(state: string, needle: string): boolean {
  if (state.includes(needle)) return true;
  for (const pad of ['', 'x', 'xy']) {
    for (const encoding of ['base64', 'base64url'] as const) {
      const encoded = Buffer.from(pad + needle)
        .toString(encoding)
        .replace(/=+$/, '');
      const stable = encoded.slice(Math.ceil((pad.length * 4) / 3) + 1, -2);
      // Long enough not to turn up by chance in ~300 random characters (short needles: clear and decoded checks only).
      if (stable.length >= 8 && state.includes(stable)) return true;
    }
  }
  return state.split('.').some((part) => {
    const decoded = Buffer.from(part, 'base64url');
    return decoded.includes(needle) || decoded.toString('latin1').toLowerCase().includes(needle.toLowerCase());
  });
}

describe('requestState attacks over HTTP (protocol 2026-07-28, demo app)', () => {
  let demo: DemoApp;
  /** Same app, states living one second (for the expiry case). */
  let shortLived: DemoApp;
  const STATE_TTL_MS = 1_000;

  beforeAll(async () => {
    [demo, shortLived] = await Promise.all([
      startDemoApp({ port: 0, logger: false, pendingRetryWaitMs: 0, createPerMinute: 1_000 }),
      startDemoApp({ port: 0, logger: false, pendingRetryWaitMs: 0, createPerMinute: 1_000, requestStateTtlMs: STATE_TTL_MS }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([demo?.app.close(), shortLived?.app.close()]);
  });

  /** Every elicitation of `user` and its status (the store as the attacks must leave it). */
  const snapshot = async (app: DemoApp, user: string) =>
    (await app.app.get(ElicitationService).list({ userId: user })).map((e) => ({ id: e.elicitationId, status: e.status, type: e.type }));

  /** Round 1 of delete-file: the form question and a fresh state. */
  async function mintDelete(app: DemoApp, path: string) {
    const r1 = await callTool(app, 'delete-file', { path });
    expect(r1.message.result?.resultType).toBe('input_required');
    expect(r1.message.result?.inputRequests?.['elicitation-1']?.params?.mode).toBe('form');
    return r1.message.result!.requestState!;
  }

  /** Round 1 of connect-service: a pending api-key elicitation in the store and a fresh state. */
  async function mintConnect(app: DemoApp, service: string) {
    const r1 = await callTool(app, 'connect-service', { service });
    expect(r1.message.result?.resultType).toBe('input_required');
    const url = r1.message.result?.inputRequests?.['elicitation-1']?.params?.url as string;
    const id = ELICITATION_ID.exec(url)![1];
    expect((await app.app.get(ElicitationService).getStatus(id))?.status).toBe('pending');
    return { state: r1.message.result!.requestState!, id, url };
  }

  describe('delete-file (form mode)', () => {
    it('refuses a state with one character changed in any part (-32602 on HTTP 200); the genuine state still works after', async () => {
      const path = '/tmp/tamper.txt';
      const state = await mintDelete(demo, path);
      const before = await snapshot(demo, 'alice');
      for (const index of [0, 1, 2, 3, 4]) {
        const tampered = flipPart(state, index);
        expect(tampered).not.toBe(state);
        const reply = await callTool(demo, 'delete-file', { path }, { inputResponses: CONFIRM, requestState: tampered });
        expectStateRefused(reply);
        expect(textOf(reply)).not.toContain('Deleted');
      }
      for (const tampered of [`${state}-TAMPERED`, `${state}.x`, state.slice(0, -2), '', 'eyJ1IjoiYWxpY2UifQ']) {
        expectStateRefused(await callTool(demo, 'delete-file', { path }, { inputResponses: CONFIRM, requestState: tampered }));
      }
      expect(await snapshot(demo, 'alice')).toEqual(before);
      // Refused before redemption: the untouched state is still good (so the refusals above were the tampering).
      const genuine = await callTool(demo, 'delete-file', { path }, { inputResponses: CONFIRM, requestState: state });
      expect(textOf(genuine)).toBe(`Deleted ${path}`);
    });

    it('refuses an expired state', async () => {
      const path = '/tmp/expired.txt';
      const minted = Date.now();
      const state = await mintDelete(shortLived, path);
      const before = await snapshot(shortLived, 'alice');
      while (Date.now() < minted + STATE_TTL_MS + 250) await new Promise((r) => setTimeout(r, 100));
      const reply = await callTool(shortLived, 'delete-file', { path }, { inputResponses: CONFIRM, requestState: state });
      expectStateRefused(reply);
      expect(textOf(reply)).not.toContain('Deleted');
      expect(await snapshot(shortLived, 'alice')).toEqual(before);
    });

    it("refuses alice's state presented by bob or by an anonymous caller; alice can still use it", async () => {
      const path = '/tmp/bound.txt';
      const state = await mintDelete(demo, path);
      const before = await snapshot(demo, 'alice');
      for (const user of ['bob', 'Alice']) {
        const reply = await callTool(demo, 'delete-file', { path }, { inputResponses: CONFIRM, requestState: state, user });
        expectStateRefused(reply);
        expect(textOf(reply)).not.toContain('Deleted');
      }
      // An anonymous caller does not reach the tool at all: the route answers 401 (issue 28, item 8).
      const anonymous = await fetch(demo.mcpUrl, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'MCP-Protocol-Version': PROTOCOL,
          'Mcp-Method': 'tools/call',
          'Mcp-Name': 'delete-file',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'delete-file',
            arguments: { path },
            inputResponses: CONFIRM,
            requestState: state,
            _meta: {
              'io.modelcontextprotocol/protocolVersion': PROTOCOL,
              'io.modelcontextprotocol/clientInfo': { name: 'request-state-attacks', version: '1.0.0' },
              'io.modelcontextprotocol/clientCapabilities': BOTH_MODES,
            },
          },
        }),
      });
      expect(anonymous.status).toBe(401);
      expect(await anonymous.text()).not.toContain('Deleted');
      expect(await snapshot(demo, 'alice')).toEqual(before);
      expect(await snapshot(demo, 'bob')).toEqual([]);
      expect(textOf(await callTool(demo, 'delete-file', { path }, { inputResponses: CONFIRM, requestState: state }))).toBe(
        `Deleted ${path}`,
      );
    });

    it('refuses a used state (single use): the first retry deletes, the replays are refused', async () => {
      const path = '/tmp/once.txt';
      const state = await mintDelete(demo, path);
      const before = await snapshot(demo, 'alice');
      expect(textOf(await callTool(demo, 'delete-file', { path }, { inputResponses: CONFIRM, requestState: state }))).toBe(
        `Deleted ${path}`,
      );
      for (let i = 0; i < 2; i++) {
        const replay = await callTool(demo, 'delete-file', { path }, { inputResponses: CONFIRM, requestState: state });
        expectStateRefused(replay);
        expect(textOf(replay)).not.toContain('Deleted');
      }
      expect(await snapshot(demo, 'alice')).toEqual(before);
    });

    it('refuses a state minted for another tool with -32602, before the tool runs (nothing created)', async () => {
      const path = '/tmp/other-tool.txt';
      const state = await mintDelete(demo, path);
      const before = await snapshot(demo, 'alice');
      // approve-deploy would create a confirm elicitation if its body ran.
      const reply = await callTool(demo, 'approve-deploy', { app: 'shop' }, { inputResponses: URL_ACCEPT, requestState: state });
      expectStateRefused(reply);
      expect(await snapshot(demo, 'alice')).toEqual(before);
      // The Mcp-Name header the tool check relies on cannot be spoofed: it must match params.name.
      const spoofed = await callTool(
        demo,
        'approve-deploy',
        { app: 'shop' },
        { inputResponses: URL_ACCEPT, requestState: state, headerName: 'delete-file' },
      );
      expect(spoofed.status).toBe(400);
      expect(spoofed.message.error?.code).toBe(-32020);
      expect(await snapshot(demo, 'alice')).toEqual(before);
      // Refused before redemption: the state still serves its own tool.
      expect(textOf(await callTool(demo, 'delete-file', { path }, { inputResponses: CONFIRM, requestState: state }))).toBe(
        `Deleted ${path}`,
      );
    });

    it('refuses a state minted for other arguments (a tool error result, not a JSON-RPC error) and leaves it unused', async () => {
      const state = await mintDelete(demo, '/tmp/harmless.txt');
      const before = await snapshot(demo, 'alice');
      const reply = await callTool(demo, 'delete-file', { path: '/etc/important' }, { inputResponses: CONFIRM, requestState: state });
      expect(reply.status).toBe(200);
      expect(reply.message.error).toBeUndefined();
      expect(reply.message.result?.isError).toBe(true);
      expect(reply.message.result?.resultType).toBe('complete');
      expect(textOf(reply)).toBe('Invalid or expired requestState');
      expect(textOf(reply)).not.toContain('Deleted');
      expect(await snapshot(demo, 'alice')).toEqual(before);
      // Refused before redemption: the state still serves the arguments it was minted for, once.
      expect(
        textOf(await callTool(demo, 'delete-file', { path: '/tmp/harmless.txt' }, { inputResponses: CONFIRM, requestState: state })),
      ).toBe('Deleted /tmp/harmless.txt');
      expectStateRefused(
        await callTool(demo, 'delete-file', { path: '/tmp/harmless.txt' }, { inputResponses: CONFIRM, requestState: state }),
      );
    });

    it('is what the SDK 2.x client sees too: a ProtocolError -32602 for a tampered state', async () => {
      // The SDK 2.x client pinned to 2026-07-28, handing back input_required results (callRaw).
      const client = await connectV2Client(demo.mcpUrl, { user: 'alice', elicitation: BOTH_MODES.elicitation, manual: true });
      try {
        const call = (extra: Record<string, unknown>) => client.callRaw('delete-file', { path: '/tmp/sdk.txt' }, extra);
        const r1 = await call({});
        expect(typeof r1.requestState).toBe('string');
        const error = await call({ inputResponses: CONFIRM, requestState: flipPart(r1.requestState, 3) }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ProtocolError);
        expect((error as ProtocolError).code).toBe(-32602);
        expect((error as ProtocolError).message).toContain('Invalid or expired requestState');
      } finally {
        await client.close();
      }
    });
  });

  describe('connect-service (URL mode: the elicitation lives in the store)', () => {
    const expectUnchanged = async (app: DemoApp, id: string, before: unknown, status = 'pending') => {
      expect(await snapshot(app, 'alice')).toEqual(before);
      expect((await app.app.get(ElicitationService).getStatus(id))?.status).toBe(status);
      expect(await snapshot(app, 'bob')).toEqual([]);
    };

    it('refuses a tampered state; the pending elicitation stays as it was and the genuine state still works', async () => {
      const { state, id } = await mintConnect(demo, 'github');
      const before = await snapshot(demo, 'alice');
      for (const index of [0, 1, 2, 3, 4]) {
        const reply = await callTool(
          demo,
          'connect-service',
          { service: 'github' },
          { inputResponses: URL_ACCEPT, requestState: flipPart(state, index) },
        );
        expectStateRefused(reply);
        expect(textOf(reply)).not.toContain('Connected');
      }
      // A decline sent with a tampered state must not decline the elicitation either.
      expectStateRefused(
        await callTool(
          demo,
          'connect-service',
          { service: 'github' },
          { inputResponses: { 'elicitation-1': { action: 'decline' } }, requestState: flipPart(state, 3) },
        ),
      );
      await expectUnchanged(demo, id, before);
      // The genuine state: the page is not answered yet, so the retry is told to retry later (state only).
      const genuine = await callTool(demo, 'connect-service', { service: 'github' }, { inputResponses: URL_ACCEPT, requestState: state });
      expect(genuine.message.result?.resultType).toBe('input_required');
      expect(genuine.message.result?.inputRequests).toBeUndefined();
      expect(typeof genuine.message.result?.requestState).toBe('string');
      await expectUnchanged(demo, id, before);
    });

    it('refuses an expired state; the elicitation stays pending', async () => {
      const { state, id } = await mintConnect(shortLived, 'expiring');
      // The state was made before this moment (under load the call itself can take a second): its TTL runs from then at the latest.
      const minted = Date.now();
      const before = await snapshot(shortLived, 'alice');
      while (Date.now() < minted + STATE_TTL_MS + 250) await new Promise((r) => setTimeout(r, 100));
      const reply = await callTool(
        shortLived,
        'connect-service',
        { service: 'expiring' },
        { inputResponses: { 'elicitation-1': { action: 'decline' } }, requestState: state },
      );
      expectStateRefused(reply);
      await expectUnchanged(shortLived, id, before);
    });

    it("refuses alice's state presented by bob: bob cannot decline, read or complete her elicitation", async () => {
      const { state, id } = await mintConnect(demo, 'bitbucket');
      const before = await snapshot(demo, 'alice');
      for (const inputResponses of [URL_ACCEPT, { 'elicitation-1': { action: 'decline' } }, { 'elicitation-1': { action: 'cancel' } }]) {
        const reply = await callTool(
          demo,
          'connect-service',
          { service: 'bitbucket' },
          { inputResponses, requestState: state, user: 'bob' },
        );
        expectStateRefused(reply);
      }
      await expectUnchanged(demo, id, before);
      // Once alice answers on the page, bob's retry with her state still gets nothing.
      expect(
        (
          await submitForm(
            demo.url,
            `/elicit/${id}/api-key`,
            { apiKey: 'alice-secret-key-1', action: 'submit' },
            { Cookie: 'demo_user=alice' },
          )
        ).status,
      ).toBe(200);
      const late = await callTool(
        demo,
        'connect-service',
        { service: 'bitbucket' },
        { inputResponses: URL_ACCEPT, requestState: state, user: 'bob' },
      );
      expectStateRefused(late);
      expect(JSON.stringify(late.message)).not.toContain('alice-secret-key-1');
      expect(await snapshot(demo, 'bob')).toEqual([]);
    });

    it('refuses a used state: after the answered retry connected, the replay is refused', async () => {
      const { state, id } = await mintConnect(demo, 'gitea');
      expect(
        (await submitForm(demo.url, `/elicit/${id}/api-key`, { apiKey: 'gitea-key-0001', action: 'submit' }, { Cookie: 'demo_user=alice' }))
          .status,
      ).toBe(200);
      const before = await snapshot(demo, 'alice');
      const first = await callTool(demo, 'connect-service', { service: 'gitea' }, { inputResponses: URL_ACCEPT, requestState: state });
      expect(textOf(first)).toBe('Connected to gitea');
      for (let i = 0; i < 2; i++) {
        const replay = await callTool(demo, 'connect-service', { service: 'gitea' }, { inputResponses: URL_ACCEPT, requestState: state });
        expectStateRefused(replay);
        expect(textOf(replay)).not.toContain('Connected');
      }
      await expectUnchanged(demo, id, before, 'completed');
    });

    it('refuses a state minted for another tool (-32602) and for other arguments (tool error); nothing is created', async () => {
      const { state, id } = await mintConnect(demo, 'jira');
      const before = await snapshot(demo, 'alice');
      expectStateRefused(await callTool(demo, 'approve-deploy', { app: 'jira' }, { inputResponses: URL_ACCEPT, requestState: state }));
      expectStateRefused(await callTool(demo, 'delete-file', { path: '/tmp/jira' }, { inputResponses: CONFIRM, requestState: state }));
      await expectUnchanged(demo, id, before);
      // connect-service for gitlab would create a gitlab api-key elicitation if its body ran.
      const reply = await callTool(demo, 'connect-service', { service: 'gitlab' }, { inputResponses: URL_ACCEPT, requestState: state });
      expect(reply.status).toBe(200);
      expect(reply.message.error).toBeUndefined();
      expect(reply.message.result?.isError).toBe(true);
      expect(textOf(reply)).toBe('Invalid or expired requestState');
      await expectUnchanged(demo, id, before);
      // None of it used the state up: its own call still gets "retry later" (the page is not answered yet).
      const genuine = await callTool(demo, 'connect-service', { service: 'jira' }, { inputResponses: URL_ACCEPT, requestState: state });
      expect(genuine.message.result?.resultType).toBe('input_required');
      expect(typeof genuine.message.result?.requestState).toBe('string');
      await expectUnchanged(demo, id, before);
    });

    it('refuses a connect-service state on delete-file even with the right form answer', async () => {
      const { state, id } = await mintConnect(demo, 'linear');
      const before = await snapshot(demo, 'alice');
      const reply = await callTool(demo, 'delete-file', { path: '/tmp/x' }, { inputResponses: CONFIRM, requestState: state });
      expectStateRefused(reply);
      expect(textOf(reply)).not.toContain('Deleted');
      await expectUnchanged(demo, id, before);
    });
  });

  describe('confidentiality', () => {
    it('puts neither the user, the tool, its arguments nor the elicitation in the state readably', async () => {
      const marker = 'PLANTED-PATH-5c1e';
      const user = 'planted-user-4f7a1c';
      const formState = (await callTool(demo, 'delete-file', { path: `/srv/${marker}.txt` }, { user })).message.result!.requestState!;
      const { state: urlState, id } = await mintConnect(demo, 'plantedservice');
      // The check finds what is there, in clear, encoded at any offset, or in a decoded part (so its negatives mean something).
      const plain = `{"u":"${user}","p":"/srv/${marker}.txt"}`;
      for (const probe of [`x.${Buffer.from(plain).toString('base64url')}`, `v1.${Buffer.from(`ab${plain}`).toString('base64')}`, plain]) {
        expect(readableIn(probe, marker)).toBe(true);
        expect(readableIn(probe, user)).toBe(true);
      }
      for (const needle of [user, marker, 'delete-file', '/srv/', '"u"', 'tools/call']) expect(readableIn(formState, needle)).toBe(false);
      for (const needle of ['alice', 'plantedservice', 'connect-service', id, id.replace(/-/g, ''), 'api-key'])
        expect(readableIn(urlState, needle)).toBe(false);
      // The state is still the planted user's: it works for them only.
      expectStateRefused(
        await callTool(demo, 'delete-file', { path: `/srv/${marker}.txt` }, { inputResponses: CONFIRM, requestState: formState }),
      );
    });

    it('does not show an answer accepted in round 1 in the round-2 state of a two-question flow', async () => {
      const answer = 'PLANTED-ANSWER-9d2b';
      // A two-question tool on the demo's own modern server (the demo tools ask one question each).
      const tools = demo.app.get(DemoToolsService);
      const binding = demo.app.get(McpElicitation);
      const original = tools.createInputRequiredServer.bind(tools);
      tools.createInputRequiredServer = (): ModernMcpServer => {
        const server = original();
        binding.registerTool(server, 'two-questions', {}, async (_args, el) => {
          const first = await el.elicit(
            'Codename?',
            defineForm({ type: 'object', properties: { codename: { type: 'string' } }, required: ['codename'] }),
          );
          const second = await el.elicit(
            'Proceed?',
            defineForm({ type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] }),
          );
          const codename = first.action === 'accept' ? first.content.codename : '-';
          return {
            content: [{ type: 'text' as const, text: `codename=${codename} ok=${second.action === 'accept' && second.content.ok}` }],
          };
        });
        return server;
      };
      try {
        const r1 = await callTool(demo, 'two-questions', {});
        expect(Object.keys(r1.message.result!.inputRequests!)).toEqual(['elicitation-1']);
        const r2 = await callTool(
          demo,
          'two-questions',
          {},
          {
            inputResponses: { 'elicitation-1': { action: 'accept', content: { codename: answer } } },
            requestState: r1.message.result!.requestState,
          },
        );
        expect(Object.keys(r2.message.result!.inputRequests!)).toEqual(['elicitation-2']);
        const round2 = r2.message.result!.requestState!;
        expect(readableIn(round2, answer)).toBe(false);
        expect(readableIn(round2, 'codename')).toBe(false);
        expect(JSON.stringify(r2.message)).not.toContain(answer);
        // The answer did travel in the round-2 state (sealed): round 3 gets it without the client resending it.
        const r3 = await callTool(
          demo,
          'two-questions',
          {},
          { inputResponses: { 'elicitation-2': { action: 'accept', content: { ok: true } } }, requestState: round2 },
        );
        expect(textOf(r3)).toBe(`codename=${answer} ok=true`);
        // And the sealed round-1 answer cannot be replayed into another run.
        expectStateRefused(
          await callTool(
            demo,
            'two-questions',
            {},
            { inputResponses: { 'elicitation-2': { action: 'accept', content: { ok: true } } }, requestState: round2 },
          ),
        );
      } finally {
        tools.createInputRequiredServer = original;
      }
    });
  });
});
