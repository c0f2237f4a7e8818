/**
 * The README's MCP-Nest snippet (examples/readme/mcp-nest.module.ts) run as pasted, as its own process (Jest cannot
 * load MCP-Nest in process; see e2e/mcp/mcp-nest.e2e-spec.ts): its `bootstrap()` listening on `PORT`, links on
 * `PUBLIC_URL`, the MCP bearer tokens of `MCP_DEV_TOKENS` (its route answers 401 without one, on both eras, and
 * bounds the 2025-11-25 sessions with `McpSessions`), the pages' development identity (`dev-user`), driven by real
 * SDK clients in both eras.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
// Loaded up front: under Jest's ES module runtime the test client's lazy import of SDK 1.x (and its zod) fails otherwise.
import '@modelcontextprotocol/sdk/client/index.js';
import { MCP_NEST_DEMO_MAIN, startDemoProcess, type DemoProcess } from '../../examples/demo/demo-process.js';
import { createElicitationTestClient, submitPage, type ElicitationTestClient } from '../../src/testing/index.js';
import { textOf } from '../support/mcp-client.js';

/** The compiled runner of the snippet (`examples/mcp-nest/readme-snippet-main.ts`). */
const SNIPPET_MAIN = MCP_NEST_DEMO_MAIN.replace(/main\.js$/, 'readme-snippet-main.js');

/** The snippet's `verifyToken` accepts these (`MCP_DEV_TOKENS`); `dev-user` is also who the pages see. */
const DEV_USER = { Authorization: 'Bearer token-a' };
const BOB = { Authorization: 'Bearer token-b' };

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'readme-e2e', version: '1.0.0' } },
});
const MODERN_CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: {
    name: 'approve-deploy',
    arguments: { app: 'shop' },
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'readme-e2e', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': { elicitation: { url: {} } },
    },
  },
});
const MODERN_HEADERS = { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'approve-deploy' };

async function post(body: string, headers: Record<string, string>) {
  const res = await fetch(app.mcpUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body,
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** A `ping` on session `sessionId`: 200 while it is open and the caller's, 404 once it is closed. */
async function ping(sessionId: string, headers: Record<string, string>): Promise<number> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' });
  return (await post(body, { ...headers, 'Mcp-Session-Id': sessionId, 'Mcp-Protocol-Version': '2025-11-25' })).status;
}

let app: DemoProcess;
const clients: ElicitationTestClient[] = [];

beforeAll(async () => {
  app = await startDemoProcess({ MCP_DEV_TOKENS: 'token-a=dev-user,token-b=bob' }, { main: SNIPPET_MAIN, readyMs: 60_000 });
}, 90_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await app?.stop();
}, 30_000);

describe('README MCP-Nest snippet, as pasted', () => {
  it('starts with the tool controller wired and no warning but the development encryptionKey', () => {
    const lines = app.output().split('\n');
    expect(lines.some((line) => line.includes('Elicitation wired into DeployTools'))).toBe(true);
    const warnings = lines.filter((line) => /\b(WARN|ERROR)\b/.test(line));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('encryptionKey is not set');
  });

  it.each(['2025-11-25', '2026-07-28'] as const)(
    '%s: approve-deploy asks on the confirm page at PUBLIC_URL; the page answered as dev-user deploys',
    async (era) => {
      const client = await createElicitationTestClient({ url: app.mcpUrl, era, headers: DEV_USER });
      clients.push(client);
      const pending = client.callTool('approve-deploy', { app: 'shop' });
      pending.catch(() => undefined);
      const url = await client.waitForUrl();
      expect(url).toMatch(new RegExp(`^${app.url.replace(/\./g, '\\.')}/elicit/[0-9a-f-]{36}/confirm$`));
      expect(await submitPage(url, {})).toEqual({
        status: 200,
        text: expect.stringContaining('Thank you. Your confirmation was received.'),
      });
      const result = await pending;
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toBe('Deployed shop');
    },
  );

  it('answers 401 with WWW-Authenticate to a request without a verified token, on both eras, opening no session', async () => {
    for (const headers of [{}, { Authorization: 'Bearer not-a-token' }] as Record<string, string>[]) {
      for (const [body, eraHeaders] of [
        [INITIALIZE, {}],
        [MODERN_CALL, MODERN_HEADERS],
      ] as const) {
        const res = await post(body, { ...eraHeaders, ...headers });
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe('Bearer');
        expect(res.headers.get('mcp-session-id')).toBeNull();
        expect(JSON.parse(res.text)).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Unauthorized' }, id: null });
      }
    }
  });

  it("bounds the sessions: a user's sixth closes their oldest idle one; another user's request on a session gets 403", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await post(INITIALIZE, DEV_USER);
      expect(res.status).toBe(200);
      ids.push(res.headers.get('mcp-session-id')!);
    }
    expect(await Promise.all(ids.map((id) => ping(id, DEV_USER)))).toEqual([404, 200, 200, 200, 200, 200]);
    expect(await ping(ids[5], BOB)).toBe(403);
    expect(await ping(ids[5], {})).toBe(401);
  });
});
