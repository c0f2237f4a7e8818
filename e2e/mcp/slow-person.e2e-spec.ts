/**
 * A slow person on clients as they are configured in the wild (issue #29), against the demo over real HTTP, each with a
 * person who answers on the page after the client would have given up; times scaled down with the server's settings:
 *
 * - 2025-11-25, a client with a request timeout and no progress token (the Inspector's CLI, Mastra, mcp-use): the
 *   call ends with the link before the client's timeout; the page is answered later, never shown "cancelled"; the
 *   next call takes the answer.
 * - 2026-07-28, an SDK 2.x client with its budget of 10 rounds: the call ends with the link before the budget runs
 *   out (no "still required input after 10 rounds"); the next call takes the answer.
 * - 2025-11-25, a client that does not handle -32042 and shows the error's message: the message carries the page.
 * - 2025-11-25, the clients that pass -32042 to the app (mcp-use, Mastra on its legacy protocol), configured as they
 *   are: `requireAnswer` reaches them as a pushed URL request, bounded as any wait, never as -32042.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { startDemoApp, type DemoApp } from '../../examples/demo/demo-app.js';
import { submitPage } from '../../src/testing/index.js';
import { connectClient, textOf, type TestClient } from '../support/mcp-client.js';
import { connectV2Client, type V2TestClient } from '../support/mcp-v2-client.js';

/** The client's request timeout, in place of the usual 60 s; the server's deadline is below it, as 50 s is below 60 s. */
const CLIENT_TIMEOUT_MS = 3_000;
const CALL_WAIT_MS = 1_500;

describe('a person who answers after the client would have given up', () => {
  let demo: DemoApp;
  const clients: Array<TestClient | V2TestClient> = [];

  beforeAll(async () => {
    demo = await startDemoApp({
      port: 0,
      logger: false,
      throttleLimit: 100_000,
      callWaitMs: CALL_WAIT_MS,
      pendingRetryWaitMs: 200,
      pendingRetryRounds: 4,
    });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await demo.app.close();
  });

  const late = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  /** The first page link of a text. */
  const linkIn = (text: string) => /(https?:\/\/\S+\/elicit\/[0-9a-f-]{36}\/[a-z-]+)/.exec(text)?.[1];

  it('2025-11-25 without a progress token: the link before the client times out; answered later, the next call takes it', async () => {
    const client = await connectClient(demo.mcpUrl, { user: 'slow-legacy' }); // accepts URL requests: the page opens
    clients.push(client);
    const call = () =>
      client.client.callTool({ name: 'approve-deploy', arguments: { app: 'shop' } }, undefined, { timeout: CLIENT_TIMEOUT_MS });
    const started = Date.now();
    const first = await call();
    expect(Date.now() - started).toBeLessThan(CLIENT_TIMEOUT_MS);
    const url = linkIn(textOf(first));
    expect(textOf(first).split('\n')[0]).toBe(`Open this page to continue: ${url}`);

    // The person answers well after the client would have cancelled: the page takes it (never "cancelled").
    await late(CLIENT_TIMEOUT_MS);
    const answered = await submitPage(url!, { action: 'confirm' }, { cookie: 'demo_user=slow-legacy' });
    expect(answered.status).toBe(200);
    expect(answered.text).not.toMatch(/cancel/i);
    expect(textOf(await call())).toBe('Deployed shop');
  }, 20_000);

  it('2025-11-25 form mode without a progress token: the form question ends with the link to its hosted page before the client times out; filled in later, the next call takes it', async () => {
    // A form-mode client whose person never answers the dialog in time (the Inspector's core, Mastra and mcp-use cancel
    // at their timeout): the server stops waiting at callWaitMs and ends the call with the link to the hosted form.
    let asked = 0;
    const client = await connectClient(demo.mcpUrl, {
      user: 'slow-form',
      elicitation: { form: {} },
      onElicit: () => (asked++, new Promise(() => undefined)),
    });
    clients.push(client);
    const call = () =>
      client.client.callTool({ name: 'delete-file', arguments: { path: '/tmp/slow' } }, undefined, { timeout: CLIENT_TIMEOUT_MS });
    const started = Date.now();
    const first = await call();
    expect(Date.now() - started).toBeLessThan(CLIENT_TIMEOUT_MS);
    expect(asked).toBe(1);
    const url = linkIn(textOf(first));
    expect(url).toMatch(/\/form$/);
    expect(textOf(first).split('\n')[0]).toBe(`Open this page to continue: ${url}`);

    await late(CLIENT_TIMEOUT_MS);
    const answered = await submitPage(url!, { confirmed: true }, { cookie: 'demo_user=slow-form' });
    expect(answered.status).toBe(200);
    expect(textOf(await call())).toBe('Deleted /tmp/slow');
    // The answer came from the page: the dialog was not opened a second time.
    expect(asked).toBe(1);
  }, 20_000);

  it('2026-07-28 with a budget of 10 rounds: the link before the budget runs out; answered later, the next call takes it', async () => {
    const client = await connectV2Client(demo.mcpUrl, { user: 'slow-modern' }); // auto-fulfils, accepts URL requests
    clients.push(client);
    const first = await client.client.callTool({ name: 'approve-deploy', arguments: { app: 'blog' } });
    const url = linkIn(textOf(first));
    expect(textOf(first).split('\n')[0]).toBe(`Open this page to continue: ${url}`);
    // 1 asking round and 4 retries, well within the client's 10.
    expect(client.toolCalls().length).toBeLessThanOrEqual(6);

    await late(1_000);
    expect((await submitPage(url!, { action: 'confirm' }, { cookie: 'demo_user=slow-modern' })).status).toBe(200);
    expect(textOf(await client.client.callTool({ name: 'approve-deploy', arguments: { app: 'blog' } }))).toBe('Deployed blog');
  }, 20_000);

  // Each as the client names itself and declares: mcp-use's MCPClient; Mastra 2.0 (its name is the app's key for the
  // server, its version always 1.0.0, the MCP Apps extension declared) with protocolVersion 'legacy' and URL mode.
  it.each([
    ['mcp-use 1.34', { name: 'mcp-use', version: '1.34.6' }, undefined],
    ['Mastra 2.0', { name: 'releases', version: '1.0.0' }, { 'io.modelcontextprotocol/ui': {} }],
  ])(
    '%s: requireAnswer is a pushed URL request, never -32042; a person on time continues the call, a late one the next call',
    async (_, clientInfo, extensions) => {
      const user = `slow-${clientInfo.name}`;
      const cookie = `demo_user=${user}`;
      const shown: string[] = [];
      let quick = true;
      const client = await connectClient(demo.mcpUrl, {
        user,
        clientInfo,
        extensions,
        onElicit: (params) => {
          const url = (params as { url: string }).url;
          shown.push(`${params.mode} ${url}`);
          // The person follows the link: at once for the first call, only after the client would have given up later.
          if (quick) setTimeout(() => void submitPage(url, { apiKey: 'ghp_QUICK_PERSON_KEY_0123456789' }, { cookie }), 200);
          return Promise.resolve({ action: 'accept' });
        },
      });
      clients.push(client);
      const call = (service: string) =>
        client.client.callTool({ name: 'connect-service', arguments: { service } }, undefined, { timeout: CLIENT_TIMEOUT_MS });
      expect(textOf(await call('github'))).toBe('Connected to github');
      expect(shown).toEqual([expect.stringMatching(/^url https?:\/\/\S+\/api-key$/)]);

      quick = false;
      const started = Date.now();
      const first = await call('gitlab');
      expect(Date.now() - started).toBeLessThan(CLIENT_TIMEOUT_MS);
      const url = linkIn(textOf(first));
      expect(shown[1]).toBe(`url ${url}`);
      await late(CLIENT_TIMEOUT_MS);
      expect((await submitPage(url!, { apiKey: 'glpat-SLOW_PERSON_KEY_0123456789' }, { cookie })).status).toBe(200);
      expect(textOf(await call('gitlab'))).toBe('Connected to gitlab');
      expect(shown).toHaveLength(2);
    },
    20_000,
  );

  it('a client that shows the -32042 message (not its data) still shows the page: the person follows it later', async () => {
    const client = await connectClient(demo.mcpUrl, { user: 'slow-reader' });
    clients.push(client);
    const call = () => client.client.callTool({ name: 'connect-service', arguments: { service: 'github' } });
    const error = await call().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UrlElicitationRequiredError);
    const shown = (error as Error).message; // what such a client puts in front of the person
    const url = (error as UrlElicitationRequiredError).elicitations[0].url;
    expect(shown).toBe(
      `MCP error -32042: Open this page to continue: ${url} (Enter your github API key so the assistant can connect to github for you.)`,
    );

    await late(1_000);
    const answered = await submitPage(linkIn(shown)!, { apiKey: 'ghp_SLOW_READER_KEY_0123456789' }, { cookie: 'demo_user=slow-reader' });
    expect(answered.status).toBe(200);
    expect(textOf(await call())).toBe('Connected to github');
  }, 20_000);
});
