/**
 * The demos' MCP routes serve identified callers only, on both protocol eras (issue 28, items 6 and 8): a request
 * without `Authorization: Bearer <name>` gets 401 with `WWW-Authenticate: Bearer` and a JSON-RPC error, and no
 * tool runs: the 2025-11-25 `initialize` and the 2026-07-28 `tools/call` of the SDK demo (`examples/demo`, in
 * process) and every request to the MCP-Nest demo (`examples/mcp-nest`, compiled, as its own process: Jest cannot
 * load MCP-Nest). With a bearer both serve the tools on both eras. `MCP_CONFORMANCE=1` (the conformance suite's
 * client sends no credentials) is the one exception, checked here on the SDK demo's option.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
// Loaded up front: under Jest's ES module runtime the test client's lazy import of SDK 1.x (and its zod) fails otherwise.
import '@modelcontextprotocol/sdk/client/index.js';
import { startDemoApp, type DemoApp } from '../../examples/demo/demo-app.js';
import { MCP_NEST_DEMO_MAIN, startDemoProcess, type DemoProcess } from '../../examples/demo/demo-process.js';
import { McpElicitation } from '../../src/index.js';
import { createElicitationTestClient, type ElicitationTestClient } from '../../src/testing/index.js';
import { textOf } from '../support/mcp-client.js';

const ERAS = ['2025-11-25', '2026-07-28'] as const;

/** The JSON-RPC `initialize` of a 2025-11-25 client. */
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: { elicitation: { form: {}, url: {} } },
    clientInfo: { name: 'anonymous', version: '1.0.0' },
  },
};

/** A 2026-07-28 request as the SDK 2.x client sends it: the `_meta` envelope and the routing headers. */
function modernRequest(method: string, params: Record<string, unknown>, name?: string) {
  return {
    headers: { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': method, ...(name && { 'Mcp-Name': name }) },
    body: {
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'anonymous', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {}, url: {} } },
        },
      },
    },
  };
}

/** What an anonymous caller sends: a 2025-11-25 session's `initialize`, and 2026-07-28 calls of the demo tools. */
const ANONYMOUS_REQUESTS = [
  { label: '2025-11-25 initialize', headers: {}, body: INITIALIZE },
  {
    label: '2026-07-28 tools/call delete-file',
    ...modernRequest('tools/call', { name: 'delete-file', arguments: { path: '/srv/a.txt' } }, 'delete-file'),
  },
  {
    label: '2026-07-28 tools/call approve-deploy',
    ...modernRequest('tools/call', { name: 'approve-deploy', arguments: { app: 'prod' } }, 'approve-deploy'),
  },
  { label: '2026-07-28 tools/list', ...modernRequest('tools/list', {}) },
];

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

async function post(mcpUrl: string, headers: Record<string, string>, body: unknown, user?: string): Promise<Answer> {
  const res = await fetch(mcpUrl, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...headers,
      ...(user && { Authorization: `Bearer ${user}` }),
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** The refusal: 401, `WWW-Authenticate: Bearer`, a JSON-RPC error saying to sign in, no result and no session. */
function expectSignInFirst(answer: Answer, message: RegExp): void {
  expect(answer.status).toBe(401);
  expect(answer.headers.get('www-authenticate')).toBe('Bearer');
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  expect(answer.headers.get('mcp-session-id')).toBeNull();
  const body = JSON.parse(answer.text) as { result?: unknown; error?: { code: number; message: string }; id: unknown };
  expect(body).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringMatching(message) }, id: null });
}

/** A client that confirms every form question (the demo's `delete-file` asks `{ confirmed }`). */
async function confirmingClient(mcpUrl: string, era: (typeof ERAS)[number], user: string, clients: ElicitationTestClient[]) {
  const client = await createElicitationTestClient({
    url: mcpUrl,
    era,
    user,
    answer: (request) => (request.mode === 'form' ? { action: 'accept', content: { confirmed: true } } : { action: 'accept' }),
  });
  clients.push(client);
  return client;
}

describe('the SDK demo (examples/demo): no bearer, no tool, on both eras', () => {
  let demo: DemoApp;
  let conformance: DemoApp;
  const clients: ElicitationTestClient[] = [];

  beforeAll(async () => {
    [demo, conformance] = await Promise.all([
      startDemoApp({ port: 0, logger: false, oidc: false }),
      // What main.ts starts under MCP_CONFORMANCE=1.
      startDemoApp({ port: 0, logger: false, oidc: false, anonymousMcp: true }),
    ]);
  });

  afterEach(() => {
    jest.restoreAllMocks();
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await Promise.all([demo?.app.close(), conformance?.app.close()]);
  });

  it.each(ANONYMOUS_REQUESTS)('$label without a bearer: 401 and no tool runs', async ({ headers, body }) => {
    // Every demo tool runs through McpElicitation.runCall (both eras): watched, not replaced.
    const runCall = jest.spyOn(demo.app.get(McpElicitation), 'runCall');
    expectSignInFirst(await post(demo.mcpUrl, headers, body), /^Sign in first: a (session|request) needs Authorization: Bearer <name>$/);
    expect(runCall).not.toHaveBeenCalled();
  });

  it('the same 2026-07-28 delete-file with a bearer runs the tool: input_required with the form question', async () => {
    const runCall = jest.spyOn(demo.app.get(McpElicitation), 'runCall');
    const { headers, body } = ANONYMOUS_REQUESTS[1];
    const answer = await post(demo.mcpUrl, headers, body, 'alice');
    expect(answer.status).toBe(200);
    const result = (
      JSON.parse(answer.text) as { result: { resultType: string; inputRequests: Record<string, { params: { message: string } }> } }
    ).result;
    expect(result.resultType).toBe('input_required');
    expect(Object.values(result.inputRequests).map((r) => r.params.message)).toEqual(['Delete /srv/a.txt?']);
    expect(runCall).toHaveBeenCalledTimes(1);
  });

  it.each(ERAS)('%s with a bearer: delete-file asks and deletes', async (era) => {
    const client = await confirmingClient(demo.mcpUrl, era, 'alice', clients);
    expect(textOf(await client.callTool('delete-file', { path: '/srv/b.txt' }))).toBe('Deleted /srv/b.txt');
  });

  it('under MCP_CONFORMANCE=1 (anonymousMcp) an anonymous 2026-07-28 call is served, as the conformance suite needs', async () => {
    const { headers, body } = ANONYMOUS_REQUESTS[1];
    const answer = await post(conformance.mcpUrl, headers, body);
    expect(answer.status).toBe(200);
    expect((JSON.parse(answer.text) as { result: { resultType: string } }).result.resultType).toBe('input_required');
  });
});

describe('the MCP-Nest demo (examples/mcp-nest): the same identity as npm start', () => {
  let demo: DemoProcess;
  const clients: ElicitationTestClient[] = [];

  beforeAll(async () => {
    demo = await startDemoProcess({}, { main: MCP_NEST_DEMO_MAIN, readyMs: 60_000 });
  }, 90_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await demo?.stop();
  }, 30_000);

  it.each(ANONYMOUS_REQUESTS)('$label without a bearer: 401, no session, no result', async ({ headers, body }) => {
    expectSignInFirst(await post(demo.mcpUrl, headers, body), /^Sign in first: MCP requests need Authorization: Bearer <name>$/);
  });

  it('a forged bearer (not a demo user name) and the GET stream and DELETE without one: 401 as well', async () => {
    const { headers, body } = ANONYMOUS_REQUESTS[1];
    expectSignInFirst(await post(demo.mcpUrl, { ...headers, Authorization: 'Bearer not a name' }, body), /^Sign in first/);
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(demo.mcpUrl, {
        method,
        headers: { Accept: 'text/event-stream', 'Mcp-Session-Id': 'any', 'Mcp-Protocol-Version': '2025-11-25' },
      });
      expectSignInFirst({ status: res.status, headers: res.headers, text: await res.text() }, /^Sign in first/);
    }
  });

  it.each(ERAS)('%s with a bearer: delete-file asks and deletes', async (era) => {
    const client = await confirmingClient(demo.mcpUrl, era, 'alice', clients);
    expect(textOf(await client.callTool('delete-file', { path: '/srv/c.txt' }))).toBe('Deleted /srv/c.txt');
  });
});
