/**
 * The testing kit (`nestjs-mcp-elicitation/testing`) as a tool author uses it: the demo app in process,
 * driven only through `createElicitationTestClient` (real SDK 1.x and SDK 2.x clients) and `submitPage`
 * (the pages over HTTP, as a signed-in browser). Also: page URLs in the shapes of the fallback ladder, from
 * a plain SDK server; and importing the kit loads no MCP SDK.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { startDemoApp, type DemoApp } from '../../examples/demo/demo-app.js';
import {
  createElicitationTestClient,
  submitPage,
  type ElicitationTestClient,
  type ElicitationTestClientOptions,
} from '../../src/testing/index.js';
import { textOf } from '../support/mcp-client.js';

const ERAS = ['2025-11-25', '2026-07-28'] as const;
const UUID_V4 = '[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}';
const API_KEY = 'ghp_KIT_TEST_KEY_0123456789';

describe('the testing kit against the demo app, in both eras', () => {
  let demo: DemoApp;
  const clients: ElicitationTestClient[] = [];

  beforeAll(async () => {
    // A 2026-07-28 retry waits up to 2 s for a pending page before asking the client to retry again.
    demo = await startDemoApp({ port: 0, logger: false, pendingRetryWaitMs: 2_000, throttleLimit: 100_000 });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await demo.app.close();
  });

  const connect = async (options: Omit<ElicitationTestClientOptions, 'url'>): Promise<ElicitationTestClient> => {
    const client = await createElicitationTestClient({ url: demo.mcpUrl, ...options });
    clients.push(client);
    return client;
  };

  /** Signs `user` in on the demo (`/demo/login`) and returns the browser's cookie. */
  const signIn = async (user: string): Promise<string> => {
    const res = await fetch(`${demo.url}/demo/login?user=${encodeURIComponent(user)}`, { redirect: 'manual' });
    expect(res.status).toBe(200);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('demo_user='));
    if (!cookie) throw new Error('the demo login set no demo_user cookie');
    return cookie.split(';')[0];
  };

  /** The elicitation id of one of the demo's page URLs (and a check that the URL is nothing else). */
  const idOf = (url: string | undefined, page: 'api-key' | 'confirm' | 'form'): string => {
    const match = new RegExp(`^${demo.url.replace(/\./g, '\\.')}/elicit/(${UUID_V4})/${page}$`).exec(url ?? '');
    if (!match) throw new Error(`not a ${page} page URL of the demo: ${url}`);
    return match[1];
  };

  const statusOf = async (id: string): Promise<string> => {
    const res = await fetch(`${demo.url}/elicit/${id}/status`);
    return ((await res.json()) as { status: string }).status;
  };

  /**
   * Calls connect-service until it asks for the key. 2025-11-25: the call fails with -32042 (the SDK's
   * error), its URL recorded. 2026-07-28: the call waits (input_required rounds) while the page is open.
   */
  async function askForKey(client: ElicitationTestClient, service: string) {
    if (client.era === '2025-11-25') {
      await expect(client.callTool('connect-service', { service })).rejects.toThrow(UrlElicitationRequiredError);
      return { url: client.lastUrl(), call: undefined };
    }
    const call = client.callTool('connect-service', { service });
    call.catch(() => undefined); // awaited below; a test failing before that must not leave it unhandled
    return { url: await client.waitForUrl(), call };
  }

  describe.each(ERAS)('%s', (era) => {
    const user = (name: string) => `kit-${era.slice(0, 4)}-${name}`;

    it('connect-service: the page URL from urls, the key submitted on the page, then Connected', async () => {
      const u = user('alice');
      const cookie = await signIn(u);
      const client = await connect({ era, user: u });
      expect(client.era).toBe(era);

      const { url, call } = await askForKey(client, 'github');
      const id = idOf(url, 'api-key');
      expect(client.urls).toEqual([url]);

      const page = await submitPage(url!, { apiKey: API_KEY }, { cookie });
      expect(page.status).toBe(200);
      expect(page.text).toContain('Done Thank you. The API key was received. You can close this window.');
      expect(page.text).not.toContain(API_KEY);
      expect(await statusOf(id)).toBe('completed');

      if (call) {
        // 2026-07-28: the URL came as a URL-mode question, answered `accept`; the retry finds the key.
        expect(textOf(await call)).toBe('Connected to github');
        expect(client.requests).toEqual([{ mode: 'url', message: expect.stringContaining('github API key'), url }]);
        expect(client.completions).toEqual([]);
      } else {
        // 2025-11-25: the URL came in the -32042 error; the session is told when the page was submitted.
        await client.completion(id);
        expect(client.completions).toEqual([id]);
        expect(client.requests).toEqual([]);
      }
      expect(textOf(await client.callTool('connect-service', { service: 'github' }))).toBe('Connected to github');
      expect(client.urls).toEqual([url]);
    });

    it('delete-file: a form-mode question answered through answer', async () => {
      const client = await connect({
        era,
        user: user('ivan'),
        capabilities: { form: true },
        answer: (request) => ({ action: request.mode === 'form' ? 'accept' : 'decline', content: { confirmed: true } }),
      });
      const result = await client.callTool('delete-file', { path: '/tmp/report.txt' });
      expect(textOf(result)).toBe('Deleted /tmp/report.txt');
      expect(client.requests).toEqual([
        {
          mode: 'form',
          message: 'Delete /tmp/report.txt?',
          requestedSchema: expect.objectContaining({ type: 'object', required: ['confirmed'] }),
        },
      ]);
      expect(client.urls).toEqual([]);
    });

    it("refuses a foreign user's browser with 403 and leaves the elicitation pending for its owner", async () => {
      const u = user('bob');
      const [cookie, foreign] = await Promise.all([signIn(u), signIn(user('mallory'))]);
      const client = await connect({ era, user: u });
      const { url, call } = await askForKey(client, 'gitlab');
      const id = idOf(url, 'api-key');

      const refused = await submitPage(url!, { apiKey: 'stolen' }, { cookie: foreign });
      expect(refused.status).toBe(403);
      expect(refused.text).toContain('This request was made for a different account.');
      expect(await statusOf(id)).toBe('pending');

      expect((await submitPage(url!, { apiKey: API_KEY }, { cookie })).status).toBe(200);
      if (call) expect(textOf(await call)).toBe('Connected to gitlab');
      else await client.completion(id);
      expect(await statusOf(id)).toBe('completed');
    });

    it('approve-deploy: a URL-mode question, confirmed with the page default button', async () => {
      const u = user('frank');
      const cookie = await signIn(u);
      const client = await connect({ era, user: u });
      const call = client.callTool('approve-deploy', { app: 'shop' });
      const url = await client.waitForUrl();
      const id = idOf(url, 'confirm');

      const page = await submitPage(url, {}, { cookie });
      expect(page).toEqual({ status: 200, text: expect.stringContaining('Thank you. Your confirmation was received.') });
      expect(textOf(await call)).toBe('Deployed shop');
      expect(client.requests).toEqual([
        {
          mode: 'url',
          message: 'Deploy shop to production?',
          url,
          ...(era === '2025-11-25' ? { elicitationId: id } : {}),
        },
      ]);
      if (era === '2025-11-25') await client.completion(id);
      // The page is answered: a second submit gets 409 without posting.
      expect((await submitPage(url, {}, { cookie })).status).toBe(409);
    });

    it('configure-profile on a URL-only client: the hosted form page, with repeated keys for a multi-select', async () => {
      const u = user('olga');
      const cookie = await signIn(u);
      const client = await connect({ era, user: u, capabilities: { url: true } });
      const call = client.callTool('configure-profile');
      const url = await client.waitForUrl();
      idOf(url, 'form');

      const page = await submitPage(
        url,
        { displayName: 'Ada Lovelace', email: 'ada@example.com', plan: 'team', interests: ['ai', 'ops'] },
        { cookie },
      );
      expect(page).toEqual({ status: 200, text: expect.stringContaining('Thank you. Your answers were received.') });
      expect(textOf(await call)).toBe('Profile saved for Ada Lovelace (team plan, interests: ai, ops)');
    });
  });

  it('answers 404 for an unknown elicitation id, without posting', async () => {
    const cookie = await signIn('kit-carol');
    const page = await submitPage(`${demo.url}/elicit/${randomUUID()}/api-key`, { apiKey: API_KEY }, { cookie });
    expect(page.status).toBe(404);
    expect(page.text).toContain('This elicitation was not found.');
  });

  it('returns the 303 to the login page for a browser that is not signed in', async () => {
    const client = await connect({ era: '2025-11-25', user: 'kit-dave' });
    const { url } = await askForKey(client, 'bitbucket');
    expect((await submitPage(url!, { apiKey: API_KEY })).status).toBe(303);
  });
});

describe('page URLs in the shapes of the fallback ladder (a plain SDK 1.x server)', () => {
  const pageUrl = (page: string) => `http://127.0.0.1:9/mcp/elicit/${randomUUID()}/${page}`;
  const bridged = pageUrl('api-key');
  const linked = pageUrl('confirm');
  const [inText, structured, inMeta] = [pageUrl('api-key'), pageUrl('confirm'), pageUrl('form')];
  let http: Server;
  let client: ElicitationTestClient;

  beforeAll(async () => {
    const mcp = new McpServer({ name: 'ladder-shapes', version: '1.0.0' });
    // form-bridge: a form-mode question whose message carries the page URL.
    mcp.registerTool('bridge', {}, async () => {
      const answer = await mcp.server.elicitInput({
        mode: 'form',
        message: `Open ${bridged}, answer there, then confirm here.`,
        requestedSchema: { type: 'object', properties: { done: { type: 'boolean', title: 'I have finished on the page' } } },
      });
      return { content: [{ type: 'text', text: answer.action }] };
    });
    // link: a plain result pointing at the page, in its text, structuredContent and a _meta entry.
    const pending = (url: string) => ({ elicitationId: randomUUID(), url, status: 'pending' });
    mcp.registerTool('link', {}, () => ({
      content: [{ type: 'text', text: `Open ${linked} in your browser, then ask again.` }],
      structuredContent: pending(linked),
      _meta: { 'io.example/elicitation': pending(linked) },
    }));
    // Each place read on its own: three different URLs.
    mcp.registerTool('shapes', {}, () => ({
      content: [{ type: 'text', text: `See ${inText}.` }],
      structuredContent: pending(structured),
      _meta: { 'io.example/elicitation': pending(inMeta) },
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
    await mcp.connect(transport);
    http = createServer((req, res) => void transport.handleRequest(req, res));
    await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
    const mcpUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    client = await createElicitationTestClient({ url: mcpUrl, era: '2025-11-25', capabilities: { form: true } });
  });
  afterAll(async () => {
    await client?.close();
    http?.closeAllConnections();
    await new Promise((done) => http?.close(done));
  });

  it('records the URL in a form-mode message', async () => {
    expect(textOf(await client.callTool('bridge'))).toBe('decline');
    expect(client.urls).toEqual([bridged]);
    expect(client.requests).toEqual([expect.objectContaining({ mode: 'form', message: expect.stringContaining(bridged) })]);
  });

  it('records a link result once, and sees it again on the next call without repeating it', async () => {
    await client.callTool('link');
    expect(client.urls.slice(-2)).toEqual([bridged, linked]);
    await client.callTool('link');
    expect(client.urls.slice(-2)).toEqual([bridged, linked]);
    await expect(client.waitForUrl(100)).resolves.toBe(linked);
  });

  it('reads the text, structuredContent.url and _meta entries, in that order', async () => {
    await client.callTool('shapes');
    expect(client.urls.slice(-3)).toEqual([inText, structured, inMeta]);
    expect(client.lastUrl()).toBe(inMeta);
  });
});

describe('importing nestjs-mcp-elicitation/testing', () => {
  const compiled = resolve('dist-demo/src/testing/index.js');

  it('loads no MCP SDK, and a client without its SDK names the package to install', async () => {
    if (!existsSync(compiled)) throw new Error(`${compiled} is missing: run npm run build:demo first`);
    const dir = await mkdtemp(join(tmpdir(), 'kit-no-sdk-'));
    try {
      // A resolve hook that answers "not installed" for every MCP SDK package, as on a machine without them.
      const hooks = join(dir, 'hooks.mjs');
      await writeFile(
        hooks,
        `export async function resolve(specifier, context, next) {
          if (specifier.startsWith('@modelcontextprotocol/')) {
            throw Object.assign(new Error('Cannot find package ' + specifier), { code: 'ERR_MODULE_NOT_FOUND' });
          }
          return next(specifier, context);
        }`,
      );
      const register = join(dir, 'register.mjs');
      await writeFile(register, `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(hooks).href)});`);
      const script = `
        const kit = await import(${JSON.stringify(pathToFileURL(compiled).href)});
        const errors = {};
        for (const era of ['2025-11-25', '2026-07-28']) {
          await kit.createElicitationTestClient({ url: 'http://127.0.0.1:9/mcp', era }).catch((e) => (errors[era] = e.message));
        }
        console.log(JSON.stringify({ exports: Object.keys(kit).sort(), errors }));`;
      const child = spawn(process.execPath, ['--import', pathToFileURL(register).href, '--input-type=module', '-e', script]);
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((done) => child.on('close', done));
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      const out = JSON.parse(stdout) as { exports: string[]; errors: Record<string, string> };
      expect(out.exports).toEqual(
        expect.arrayContaining(['createElicitationTestClient', 'submitPage', 'describeElicitationStoreContract']),
      );
      expect(out.errors).toEqual({
        '2025-11-25': expect.stringContaining('install @modelcontextprotocol/sdk'),
        '2026-07-28': expect.stringContaining('install @modelcontextprotocol/client'),
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
