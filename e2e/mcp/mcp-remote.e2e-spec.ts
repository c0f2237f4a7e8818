/**
 * mcp-remote 0.15 (the real package, run as hosts run it: a stdio child process) in front of a 2025-era stdio host
 * (SDK 1.x declaring form and URL mode, and the Tasks extension), against the demo over real HTTP, in both its modes
 * (issue #42): its default mode passes 2025-11-25 through, so URL requests reach the host; `--protocol auto` speaks
 * 2026-07-28 to the server and cannot forward a URL request to a 2025-era host, so the `mcp-remote` client profile
 * gives it the form bridge and acts on the Tasks declaration it forwards (and cannot consume) as absent. A person
 * answers each page (a real post with the page's CSRF token); the host sees the tool's result.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { startDemoApp, type DemoApp } from '../../examples/demo/demo-app.js';
import { submitPage } from '../../src/testing/index.js';
import { textOf } from '../support/mcp-client.js';

const PROXY = resolve('node_modules/mcp-remote/dist/proxy.js');
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** What the host was asked: `url <page>`, `bridge <page>` (a form carrying a page) or `form <fields>`. */
type Shown = string;

describe('mcp-remote 0.15 in front of a stdio host, both its modes', () => {
  let demo: DemoApp;
  let configDir: string;
  let hosts = 0;
  const closing: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    demo = await startDemoApp({ port: 0, logger: false, throttleLimit: 100_000 });
    // mcp-remote keeps its OAuth files here (none are written: the demo takes a bearer token).
    configDir = mkdtempSync(join(tmpdir(), 'mcp-remote-'));
  });
  afterAll(async () => {
    await Promise.all(closing.map((close) => close().catch(() => undefined)));
    await demo.app.close();
    rmSync(configDir, { recursive: true, force: true });
  });

  /** A stdio host behind mcp-remote in `mode`, signed in as a user of its own, whose person answers every page. */
  async function host(mode: 'legacy' | 'auto') {
    const user = `remote-${mode}-${++hosts}`;
    const cookie = `demo_user=${user}`;
    const args = [PROXY, demo.mcpUrl, '--header', `Authorization: Bearer ${user}`, '--allow-http'];
    if (mode === 'auto') args.push('--protocol', 'auto');
    const env = { ...getDefaultEnvironment(), MCP_REMOTE_CONFIG_DIR: configDir };
    const transport = new StdioClientTransport({ command: process.execPath, args, env, stderr: 'pipe' });
    let log = '';
    transport.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const capabilities = { elicitation: { form: {}, url: {} }, extensions: { [TASKS_EXTENSION]: {} } };
    const client = new Client({ name: 'stdio-host', version: '1.0.0' }, { capabilities });
    const shown: Shown[] = [];
    client.setRequestHandler(ElicitRequestSchema, ({ params }) => answer(params, shown, cookie));
    await client.connect(transport);
    closing.push(() => client.close());
    const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });
    return { call, shown, log: () => log };
  }

  /** The person: fills in a form in the host, or answers the page and then accepts (URL) or ticks "finished" (bridge). */
  async function answer(params: ElicitRequest['params'], shown: Shown[], cookie: string): Promise<ElicitResult> {
    const fields = Object.keys((params as { requestedSchema?: { properties?: object } }).requestedSchema?.properties ?? {});
    const page = params.mode === 'url' ? params.url : /(https?:\/\/\S+\/elicit\/[0-9a-f-]{36}\/[a-z-]+)/.exec(params.message)?.[1];
    if (!page) {
      shown.push(`form ${fields.join(',')}`);
      return { action: 'accept', content: fields.includes('version') ? { version: '1.2.3' } : { confirmed: true } };
    }
    shown.push(`${params.mode === 'url' ? 'url' : 'bridge'} ${page.split('/').at(-1)}`);
    const data: Record<string, string> = page.endsWith('/api-key') ? { apiKey: 'ghp_REMOTE_HOST_KEY_0123456789' } : { action: 'confirm' };
    expect((await submitPage(page, data, { cookie })).status).toBe(200);
    return params.mode === 'url' ? { action: 'accept' } : { action: 'accept', content: { finished: true } };
  }

  it('default mode (2025-11-25 passed through): the URL request reaches the host; the person answers on the page', async () => {
    const { call, shown } = await host('legacy');
    expect(textOf(await call('approve-deploy', { app: 'shop' }))).toBe('Deployed shop');
    expect(shown).toEqual(['url confirm']);
  }, 30_000);

  it('default mode: requireAnswer answers -32042 naming the page, passed through to the host as the protocol says', async () => {
    const { call, shown } = await host('legacy');
    const error = await call('connect-service', { service: 'github' }).then(
      () => undefined,
      (e: { code?: number; message?: string }) => e,
    );
    expect(error?.code).toBe(-32042);
    expect(error?.message).toMatch(/Open this page to continue: https?:\/\/\S+\/api-key/);
    expect(shown).toEqual([]);
  }, 30_000);

  it('--protocol auto (2026-07-28 to the server): the form bridge carries the page, since URL requests cannot pass', async () => {
    const { call, shown, log } = await host('auto');
    expect(textOf(await call('approve-deploy', { app: 'shop' }))).toBe('Deployed shop');
    expect(log()).toMatch(/Remote server speaks MCP 2026-07-28/);
    expect(shown).toEqual(['bridge confirm']);
  }, 30_000);

  it('--protocol auto: the forwarded Tasks declaration is acted on as absent, so the task tool runs as a call and ends', async () => {
    const { call, shown } = await host('auto');
    const result = await call('plan-release', { app: 'shop' });
    expect(textOf(result)).toMatch(/^Released shop 1\.2\.3 \(ticket REL-[\w-]{6}\)$/);
    expect((result as { task?: unknown }).task).toBeUndefined();
    expect(shown).toEqual(['form version', 'bridge confirm']);
  }, 30_000);

  it('default mode: the same task tool asks its form in the host and its page in URL mode', async () => {
    const { call, shown } = await host('legacy');
    expect(textOf(await call('plan-release', { app: 'blog' }))).toMatch(/^Released blog 1\.2\.3 \(ticket REL-/);
    expect(shown).toEqual(['form version', 'url confirm']);
  }, 30_000);
});
