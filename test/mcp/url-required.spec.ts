/**
 * `urlRequired` and the client profiles behind it (2025-11-25, real SDK 1.x clients in process): `requireAnswer` on the
 * `url` rung ends the call with -32042 for a client that handles it, and pushes a URL request awaited in the call for
 * one that passes -32042 to the app (mcp-use by its name, Mastra by what it always declares), bounded by `callWaitMs`.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';
import { resolveElicitationOptions } from '../../src/options/elicitation-options.validation.js';
import { composeUrlRequired } from '../../src/options/client-profiles.js';
import { ladderSession, type LadderClientInfo, type LadderHandler } from '../support/ladder-session.js';

const text = (result: unknown) => (result as { content: Array<{ text: string }> }).content.map((c) => c.text).join('');
const idOf = (url: string) => url.split('/').at(-2)!;
const MCP_USE = { name: 'mcp-use', version: '1.34.6' };
/** @mastra/mcp 2.0: named after the app's key for the server, version 1.0.0, the MCP Apps extension declared. */
const MASTRA = { name: 'release-server', version: '1.0.0', extensions: { 'io.modelcontextprotocol/ui': {} } };

const needsKey: LadderHandler = async ({ app }, el) => {
  const { apiKey } = await el.requireAnswer<{ apiKey: string }>({ kind: 'api-key', type: `api-key-${app}`, message: `Your ${app} key` });
  return `Deployed ${app} with a key of ${apiKey.length} characters`;
};

describe('urlRequired: requireAnswer on the url rung (2025-11-25)', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  /** A client named `as` answering every URL request by completing its page with a key; the modes it was asked in. */
  async function callAs(who: { name: string } & LadderClientInfo, options: Partial<ElicitationModuleOptions> = {}) {
    const session = await ladderSession({ form: {}, url: {} }, needsKey, options);
    close = session.close;
    const modes: string[] = [];
    const answer = (params: ElicitRequest['params']) => {
      modes.push(params.mode ?? 'form');
      const url = (params as { url: string }).url;
      // The person enters the key on the page while the client shows the URL request.
      setTimeout(() => void session.service.complete(idOf(url), { apiKey: 'sk-live-0123456789' }), 30);
      return { action: 'accept' as const };
    };
    const client = await session.connect(answer, 'alice', who.name, who);
    const outcome = await client.callTool({ name: 'deploy', arguments: { app: 'shop' } }).then(
      (result) => ({ result, code: undefined }),
      (error: { code?: number }) => ({ result: undefined, code: error.code }),
    );
    return { ...outcome, modes, session, client };
  }

  it('mcp-use (by its client name): the URL request is pushed and awaited in the call, no -32042', async () => {
    const { result, modes } = await callAs(MCP_USE);
    expect(modes).toEqual(['url']);
    expect(text(result)).toBe('Deployed shop with a key of 18 characters');
  });

  it("mcp-use's connector used alone (http-connector 1.0.0) is the same client", async () => {
    const { result, modes } = await callAs({ name: 'http-connector', version: '1.0.0' });
    expect(modes).toEqual(['url']);
    expect(text(result)).toMatch(/^Deployed shop/);
  });

  it('Mastra (version 1.0.0 and the MCP Apps extension, whatever its name): pushed; without the extension: -32042', async () => {
    const mastra = await callAs(MASTRA);
    expect(mastra.modes).toEqual(['url']);
    expect(text(mastra.result)).toMatch(/^Deployed shop/);
    await close?.();
    const other = await callAs({ name: 'release-server', version: '1.0.0' });
    expect(other.code).toBe(-32042);
    expect(other.modes).toEqual([]);
  });

  it('another client gets -32042 naming the page (the protocol way), and so does mcp-use with its profile off', async () => {
    const plain = await callAs({ name: 'claude-code', version: '2.1.300' });
    expect(plain.code).toBe(-32042);
    await close?.();
    const off = await callAs(MCP_USE, { clientProfiles: { 'mcp-use': false } });
    expect(off.code).toBe(-32042);
    expect(off.modes).toEqual([]);
  });

  it("the app's urlRequired: a mode for every client, or a function (undefined leaves the client to the profiles)", async () => {
    expect(text((await callAs({ name: 'claude-code' }, { urlRequired: 'request' })).result)).toMatch(/^Deployed shop/);
    await close?.();
    expect((await callAs(MCP_USE, { urlRequired: 'error' })).code).toBe(-32042);
    await close?.();
    const seen: string[] = [];
    const decide = (client: { name?: string; extensions?: readonly string[] }) => {
      seen.push(`${client.name} ${JSON.stringify(client.extensions ?? null)}`);
      return client.name === 'my-agent' ? ('request' as const) : undefined;
    };
    expect(text((await callAs({ name: 'my-agent' }, { urlRequired: decide })).result)).toMatch(/^Deployed shop/);
    await close?.();
    expect(text((await callAs(MASTRA, { urlRequired: decide })).result)).toMatch(/^Deployed shop/);
    expect(seen).toEqual(['my-agent null', 'release-server ["io.modelcontextprotocol/ui"]']);
    expect(composeUrlRequired({ 'mcp-use': false, mastra: false }, undefined)).toBeUndefined();
  });

  it('a pushed URL request unanswered by callWaitMs ends the call with the link; the next call takes the answer', async () => {
    const session = await ladderSession({ form: {}, url: {} }, needsKey, { callWaitMs: 150 });
    close = session.close;
    let url = '';
    // The client shows the URL and keeps its request open; the person answers only after the call has ended.
    const client = await session.connect(
      (params) => ((url = (params as { url: string }).url), new Promise(() => undefined)),
      'alice',
      MCP_USE.name,
      MCP_USE,
    );
    const first = await client.callTool({ name: 'deploy', arguments: { app: 'shop' } });
    expect(text(first)).toContain(url);
    await session.service.complete(idOf(url), { apiKey: 'sk-live-abc' });
    const again = await client.callTool({ name: 'deploy', arguments: { app: 'shop' } });
    expect(text(again)).toBe('Deployed shop with a key of 11 characters');
  });

  it('refuses a urlRequired that is neither a mode nor a function, naming it', () => {
    expect(() => resolveElicitationOptions({ baseUrl: 'https://x.example', urlRequired: 'push' as never }, 'elicit', {})).toThrow(
      /"urlRequired" must be 'error', 'request' or a function.*"push"/,
    );
  });
});
