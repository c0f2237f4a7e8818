/**
 * The README's copyable MCP controllers (examples/readme/mcp-*.controller.ts, "Serving MCP over HTTP"), each
 * module as a user runs it: a real Nest app on a free port, real MCP SDK clients (the testing kit) with a bearer
 * token the file accepts (MCP_DEV_TOKENS), the page submitted over HTTP by the user's browser, then the
 * completion notification (2025-11-25) or the retry that returns the answer (2026-07-28); and the refusals the
 * files claim (no user 401 and nothing created, another user's session 403, an unknown session 404).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { INestApplication, Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { McpElicitation, McpSessions } from 'nestjs-mcp-elicitation';
import { createElicitationTestClient, submitPage, type ElicitationTestClient } from 'nestjs-mcp-elicitation/testing';
import { freePort } from '../../examples/demo/http-server.js';
import { textOf } from '../support/mcp-client.js';

// The tokens the files' verifyToken accepts, read on every request.
process.env.MCP_DEV_TOKENS = 'token-alice=alice,token-bob=bob';
const ALICE = { Authorization: 'Bearer token-alice' };
const BOB = { Authorization: 'Bearer token-bob' };
/** Alice's browser: the files' resolvePageUser reads `req.user.id`, set by the login stand-in below. */
const ALICE_BROWSER = { cookie: 'user=alice' };
const UUID_V4 = '[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'readme-e2e', version: '1.0.0' } },
};

/** Stands in for the app's browser login (e.g. a Passport session): the `user` cookie becomes `req.user`. */
function browserLogin(req: IncomingMessage & { user?: { id: string } }, _res: ServerResponse, next: () => void): void {
  const user = /(?:^|;\s*)user=(\w+)/.exec(req.headers.cookie ?? '')?.[1];
  if (user) req.user = { id: user };
  next();
}

interface Running {
  app: INestApplication;
  origin: string;
  mcpUrl: string;
}

/**
 * Starts a file's module on a free loopback port. `PUBLIC_URL` must be set before the file is first imported (its
 * `@Module` reads it then), so `load` imports it here.
 */
async function start(load: () => Promise<Type<unknown>>): Promise<Running> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  process.env.PUBLIC_URL = origin;
  const moduleRef = await Test.createTestingModule({ imports: [await load()] }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  app.use(browserLogin);
  await app.listen(port, '127.0.0.1');
  return { app, origin, mcpUrl: `${origin}/mcp` };
}

/** The elicitation id of a page URL of `origin` (and a check that the URL is nothing else). */
function idOf(url: string | undefined, origin: string, page: 'api-key' | 'confirm'): string {
  const match = new RegExp(`^${origin.replace(/\./g, '\\.')}/elicit/(${UUID_V4})/${page}$`).exec(url ?? '');
  if (!match) throw new Error(`not a ${page} page URL of ${origin}: ${url}`);
  return match[1];
}

/** A raw MCP POST (JSON-RPC), as a client would send it. */
async function post(mcpUrl: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(mcpUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** A 2026-07-28 tools/call as the SDK 2.x client sends it (the _meta envelope), and its headers. */
const modernCall = (name: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: {
    name,
    arguments: args,
    ...extra,
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'readme-e2e', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': { elicitation: { url: {} } },
    },
  },
});
const MODERN_HEADERS = { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'approve-deploy' };

const jsonRpcError = (message: string) => ({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });

/** The kit's clients of one describe block, closed after it. */
function clientPool() {
  const clients: ElicitationTestClient[] = [];
  return {
    connect: async (running: Running, era: '2025-11-25' | '2026-07-28', headers = ALICE) => {
      const client = await createElicitationTestClient({ url: running.mcpUrl, era, headers });
      clients.push(client);
      return client;
    },
    closeAll: () => Promise.all(clients.map((c) => c.close().catch(() => undefined))),
  };
}

/** 2025-11-25 on a file's session route: requireAnswer fails the call with -32042, the page, the notification, the retry. */
async function connectServiceOnSession(running: Running, pool: ReturnType<typeof clientPool>, service: string): Promise<void> {
  const client = await pool.connect(running, '2025-11-25');
  await expect(client.callTool('connect-service', { service })).rejects.toMatchObject({ code: -32042 });
  const url = client.lastUrl();
  const id = idOf(url, running.origin, 'api-key');

  // Another browser user is refused; the elicitation stays for alice.
  expect((await submitPage(url!, { apiKey: 'stolen' }, { cookie: 'user=bob' })).status).toBe(403);
  const page = await submitPage(url!, { apiKey: 'ghp_README_KEY_0123456789' }, ALICE_BROWSER);
  expect(page).toEqual({ status: 200, text: expect.stringContaining('Thank you. The API key was received.') });

  await client.completion(id);
  expect(client.completions).toEqual([id]);
  expect(textOf(await client.callTool('connect-service', { service }))).toBe(`Connected to ${service}`);
}

/** The session refusals both session routes claim. */
function describeSessionRefusals(running: () => Running) {
  // Spies on the sessions the route keeps (the instance is private to the controller); they call through.
  let open: jest.Spied<McpSessions<never>['open']>;
  let forget: jest.Spied<McpSessions<never>['delete']>;
  beforeAll(() => {
    open = jest.spyOn(McpSessions.prototype, 'open');
    forget = jest.spyOn(McpSessions.prototype, 'delete');
  });
  afterEach(() => {
    open.mockClear();
    forget.mockClear();
  });
  afterAll(() => {
    open.mockRestore();
    forget.mockRestore();
  });

  it('answers 401 with WWW-Authenticate to an initialize without a verified user, and opens no session', async () => {
    const refused: Record<string, string>[] = [{}, { Authorization: 'Bearer not-a-token' }, { Authorization: 'Basic YWxpY2U6eA==' }];
    for (const headers of refused) {
      const res = await post(running().mcpUrl, INITIALIZE, headers);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(res.headers.get('mcp-session-id')).toBeNull();
      expect(JSON.parse(res.text)).toEqual(jsonRpcError('Unauthorized'));
    }
    expect(open).not.toHaveBeenCalled();
    // The same initialize with alice's token opens one.
    const opened = await post(running().mcpUrl, INITIALIZE, ALICE);
    expect(opened.status).toBe(200);
    expect(opened.headers.get('mcp-session-id')).toMatch(new RegExp(`^${UUID_V4}$`));
    expect(open).toHaveBeenCalledTimes(1);
  });

  it("answers 403 to another user's request on a session and 404 to an unknown one; the owner's session serves until its DELETE", async () => {
    const opened = await post(running().mcpUrl, INITIALIZE, ALICE);
    const sessionId = opened.headers.get('mcp-session-id')!;
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const session = (id: string) => ({ 'Mcp-Session-Id': id, 'Mcp-Protocol-Version': '2025-11-25' });

    const foreign = await post(running().mcpUrl, ping, { ...BOB, ...session(sessionId) });
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.text)).toEqual(jsonRpcError('This session belongs to another user'));
    const unknown = await post(running().mcpUrl, ping, { ...ALICE, ...session('00000000-0000-4000-8000-000000000000') });
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text)).toEqual(jsonRpcError('Session not found'));
    const own = await post(running().mcpUrl, ping, { ...ALICE, ...session(sessionId) });
    expect(own.status).toBe(200);
    expect(own.text).toContain('"result":{}');
    expect(open).toHaveBeenCalledTimes(1);

    // The owner's DELETE closes the session (the transport's onclose forgets it): its id answers 404 from then on.
    const closed = await fetch(running().mcpUrl, { method: 'DELETE', headers: { ...ALICE, ...session(sessionId) } });
    expect(closed.status).toBe(200);
    expect(forget).toHaveBeenCalledWith(sessionId);
    expect((await post(running().mcpUrl, ping, { ...ALICE, ...session(sessionId) })).status).toBe(404);
  });

  it('answers 400 to a request that is neither initialize nor on a session', async () => {
    const res = await post(running().mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, ALICE);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual(jsonRpcError('Send initialize first'));
    expect(open).not.toHaveBeenCalled();
  });
}

describe('examples/readme/mcp-sessions.controller.ts: 2025-11-25 sessions (SDK 1.x)', () => {
  let running: Running;
  const pool = clientPool();

  beforeAll(async () => {
    running = await start(async () => (await import('../../examples/readme/mcp-sessions.controller.js')).McpSessionsModule);
  });
  afterAll(async () => {
    await pool.closeAll();
    await running?.app.close();
  });

  it('connect-service: -32042, the api-key page submitted by the signed-in browser, the completion notification, the retry', async () => {
    await connectServiceOnSession(running, pool, 'github');
  });

  describeSessionRefusals(() => running);

  it('serves no 2026-07-28 client (sessions only): its server/discover gets the 400 above, so the SDK client gives up', async () => {
    const connected = pool.connect(running, '2026-07-28').then((c) => c.callTool('connect-service', { service: 'x' }));
    await expect(connected).rejects.toMatchObject({ code: 'ERA_NEGOTIATION_FAILED' });
  });
});

describe('examples/readme/mcp-stateless.controller.ts: 2026-07-28 only (SDK 2.x, no sessions)', () => {
  let running: Running;
  const pool = clientPool();

  beforeAll(async () => {
    running = await start(async () => (await import('../../examples/readme/mcp-stateless.controller.js')).McpStatelessModule);
  });
  afterAll(async () => {
    await pool.closeAll();
    await running?.app.close();
  });

  it('approve-deploy: input_required with the confirm page; once the browser confirms, the retry returns Deployed', async () => {
    const client = await pool.connect(running, '2026-07-28');
    const call = client.callTool('approve-deploy', { app: 'web' });
    call.catch(() => undefined); // awaited below; a failure before that must not leave it unhandled
    const url = await client.waitForUrl();
    idOf(url, running.origin, 'confirm');
    expect(client.requests).toEqual([{ mode: 'url', message: 'Deploy web?', url }]);

    expect((await submitPage(url, {}, { cookie: 'user=bob' })).status).toBe(403);
    const page = await submitPage(url, {}, ALICE_BROWSER);
    expect(page).toEqual({ status: 200, text: expect.stringContaining('Thank you. Your confirmation was received.') });
    expect(textOf(await call)).toBe('Deployed web');
  });

  it('answers 401 with WWW-Authenticate to a request without a verified user (the tool never runs)', async () => {
    const refused: Record<string, string>[] = [{}, { Authorization: 'Bearer not-a-token' }];
    for (const headers of refused) {
      const res = await post(running.mcpUrl, modernCall('approve-deploy', { app: 'web' }), { ...MODERN_HEADERS, ...headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(JSON.parse(res.text)).toEqual(jsonRpcError('Unauthorized'));
    }
  });

  it('refuses a forged requestState before the tool runs (the server has serverOptions())', async () => {
    const forged = modernCall('approve-deploy', { app: 'web' }, { requestState: 'v1.0123abcd.forged', inputResponses: {} });
    const res = await post(running.mcpUrl, forged, { ...MODERN_HEADERS, ...ALICE });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject({
      error: { code: -32602, message: 'Invalid or expired requestState', data: { reason: 'invalid_request_state' } },
    });
  });

  it('refuses a 2025-11-25 initialize (legacy: reject), opening no session', async () => {
    const res = await post(running.mcpUrl, INITIALIZE, ALICE);
    expect(res.status).toBe(400);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(JSON.parse(res.text)).toMatchObject({
      error: { code: -32022, data: { supported: ['2026-07-28'], requested: '2025-11-25' } },
      id: 0,
    });
    await expect(pool.connect(running, '2025-11-25')).rejects.toMatchObject({ code: 400 });
  });
});

describe('examples/readme/mcp-both-eras.controller.ts: both eras on one route', () => {
  let running: Running;
  const pool = clientPool();

  beforeAll(async () => {
    running = await start(async () => (await import('../../examples/readme/mcp-both-eras.controller.js')).McpBothErasModule);
  });
  afterAll(async () => {
    await pool.closeAll();
    await running?.app.close();
  });

  it('2025-11-25 (an SDK 1.x session): -32042, the page, the completion notification, the retry', async () => {
    await connectServiceOnSession(running, pool, 'github');
  });

  it('2026-07-28 (stateless SDK 2.x): input_required with the api-key page; the retry finds the key', async () => {
    const client = await pool.connect(running, '2026-07-28');
    const call = client.callTool('connect-service', { service: 'gitlab' });
    call.catch(() => undefined);
    const url = await client.waitForUrl();
    idOf(url, running.origin, 'api-key');
    const page = await submitPage(url, { apiKey: 'glpat_README_KEY_0123456789' }, ALICE_BROWSER);
    expect(page).toEqual({ status: 200, text: expect.stringContaining('Thank you. The API key was received.') });
    expect(textOf(await call)).toBe('Connected to gitlab');
    expect(client.completions).toEqual([]);
    // The key is stored for alice: the next call connects at once.
    expect(textOf(await client.callTool('connect-service', { service: 'gitlab' }))).toBe('Connected to gitlab');
  });

  it.each(['2025-11-25', '2026-07-28'] as const)('%s: delete-file asks in form mode and acts on the answer', async (era) => {
    const answers = [true, false];
    const client = await createElicitationTestClient({
      url: running.mcpUrl,
      era,
      headers: ALICE,
      capabilities: { form: true },
      answer: () => ({ action: 'accept', content: { confirmed: answers.shift() ?? false } }),
    });
    try {
      expect(textOf(await client.callTool('delete-file', { path: 'a.txt' }))).toBe('Deleted a.txt');
      expect(textOf(await client.callTool('delete-file', { path: 'b.txt' }))).toBe('Kept b.txt');
      expect(client.requests).toEqual([
        expect.objectContaining({ mode: 'form', message: 'Delete a.txt?' }),
        expect.objectContaining({ mode: 'form', message: 'Delete b.txt?' }),
      ]);
    } finally {
      await client.close();
    }
  });

  it('answers 401 to a 2026-07-28 tools/call without a verified user, as to an initialize: the tool never runs', async () => {
    // Every tool of the file runs through McpElicitation.runCall: watched, not replaced.
    const runCall = jest.spyOn(running.app.get(McpElicitation), 'runCall');
    try {
      for (const headers of [{}, { Authorization: 'Bearer not-a-token' }] as Record<string, string>[]) {
        const call = modernCall('delete-file', { path: 'c.txt' });
        const res = await post(running.mcpUrl, call, { ...MODERN_HEADERS, 'Mcp-Name': 'delete-file', ...headers });
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe('Bearer');
        expect(JSON.parse(res.text)).toEqual(jsonRpcError('Unauthorized'));
      }
      expect(runCall).not.toHaveBeenCalled();
    } finally {
      runCall.mockRestore();
    }
  });

  describeSessionRefusals(() => running);
});

describe('examples/readme/mcp-both-eras.controller.ts: shutdown with a question open', () => {
  it('app.close() ends the waiting tool with the readable shutdown error, closes the session and returns promptly', async () => {
    const own = await start(async () => (await import('../../examples/readme/mcp-both-eras.controller.js')).McpBothErasModule);
    let asked: () => void = () => undefined;
    const questionArrived = new Promise<void>((resolve) => (asked = resolve));
    const client = await createElicitationTestClient({
      url: own.mcpUrl,
      era: '2025-11-25',
      headers: ALICE,
      capabilities: { form: true },
      // The person never answers: the form stays open in the client until the server gives up on it.
      answer: () => {
        asked();
        return new Promise(() => undefined);
      },
    });
    try {
      const call = client.callTool('delete-file', { path: 'c.txt' });
      call.catch(() => undefined);
      await questionArrived;
      const started = Date.now();
      await own.app.close();
      expect(Date.now() - started).toBeLessThan(4_000); // the grace ends as soon as the answer went out
      const result = await call;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/shutting down/);
    } finally {
      await client.close().catch(() => undefined);
    }
  });
});
