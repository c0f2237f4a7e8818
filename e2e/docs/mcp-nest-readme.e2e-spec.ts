/**
 * The README's MCP-Nest snippet (examples/readme/mcp-nest.module.ts) run as pasted, as its own process (Jest cannot
 * load MCP-Nest in process; see e2e/mcp/mcp-nest.e2e-spec.ts): its `bootstrap()` listening on `PORT`, links on
 * `PUBLIC_URL`, no login (the snippet's development identity), driven by real SDK clients in both eras.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
// Loaded up front: under Jest's ES module runtime the test client's lazy import of SDK 1.x (and its zod) fails otherwise.
import '@modelcontextprotocol/sdk/client/index.js';
import { MCP_NEST_DEMO_MAIN, startDemoProcess, type DemoProcess } from '../../examples/demo/demo-process.js';
import { createElicitationTestClient, submitPage, type ElicitationTestClient } from '../../src/testing/index.js';
import { textOf } from '../support/mcp-client.js';

/** The compiled runner of the snippet (`examples/mcp-nest/readme-snippet-main.ts`). */
const SNIPPET_MAIN = MCP_NEST_DEMO_MAIN.replace(/main\.js$/, 'readme-snippet-main.js');

let app: DemoProcess;
const clients: ElicitationTestClient[] = [];

beforeAll(async () => {
  app = await startDemoProcess({}, { main: SNIPPET_MAIN, readyMs: 60_000 });
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
      const client = await createElicitationTestClient({ url: app.mcpUrl, era });
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
});
