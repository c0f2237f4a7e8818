/**
 * The `@rekog/mcp-nest` adapter (`nestjs-mcp-elicitation/mcp-nest`, issue #13) end to end. Jest cannot load
 * MCP-Nest in process (it is CommonJS and `require`s the ESM-only Nest 12), so every MCP-Nest app here runs
 * compiled (`npm run build:demo`) as its own Node process, and the tests talk to it over HTTP with the testing
 * kit's real SDK clients (2025-11-25 on SDK 1.x, 2026-07-28 on SDK 2.x) and raw 2026-07-28 requests:
 *
 * - the MCP-Nest demo (`examples/mcp-nest`, statefulMode true): the four demo tools for clients with form and
 *   URL mode, form only and no elicitation, pages submitted with `submitPage` and, for approve-deploy on
 *   2025-11-25, in Chromium; identity from `req.user`; a refused `requestState` as JSON-RPC -32602; the tool it
 *   registers at run time (`connect-service-dynamic`, `interceptor.dynamicTool`) in both eras and without a user;
 * - the same demo with `MCP_NEST_STATEFUL=0`: the start-up warning naming `statefulMode`, and a link instead of a
 *   push on 2025-11-25;
 * - the pins app (`examples/mcp-nest/pins-app.ts`, raw MCP-Nest without `McpNestElicitationModule`): the MCP-Nest
 *   behaviours the adapter relies on, each failing with a message naming the behaviour, and `@Elicitation()`
 *   used without the module.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { MCP_NEST_DEMO_MAIN, startDemoProcess, type DemoProcess } from '../../examples/demo/demo-process.js';
import {
  createElicitationTestClient,
  submitPage,
  type ElicitationTestClient,
  type ElicitationTestClientOptions,
  type TestElicitRequest,
  type TestToolResult,
} from '../../src/testing/index.js';
import { connectV2Client, type V2TestClient } from '../support/mcp-v2-client.js';
import { CHROMIUM, chromiumWanted, launchPageBrowser, type PageBrowser } from '../support/page-browser.js';
import { textOf } from '../support/mcp-client.js';

const ERAS = ['2025-11-25', '2026-07-28'] as const;
type Era = (typeof ERAS)[number];

/** The compiled pins app (`examples/mcp-nest/pins-main.ts`). */
const PINS_MAIN = MCP_NEST_DEMO_MAIN.replace(/main\.js$/, 'pins-main.js');

const UUID_V4 = '[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}';
const API_KEY = 'ghp_MCP_NEST_TEST_KEY_0123456789';
/** The `_meta` key of a link result. */
const PENDING_META = 'nestjs-mcp-elicitation/pending';
/** The `_meta` key the pins app's interceptor reports under. */
const PIN_META = 'nestjs-mcp-elicitation/pin';
const PROFILE = { displayName: 'Ada Lovelace', email: 'ada@example.com', plan: 'team', interests: ['ai', 'ops'] };
const DONE = {
  'api-key': 'Thank you. The API key was received.',
  confirm: 'Thank you. Your confirmation was received.',
  form: 'Thank you. Your answers were received.',
} as const;
type PageKind = keyof typeof DONE;

const stripAnsi = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, ''); // eslint-disable-line no-control-regex

/** A promise a test opens by hand (an `answer` callback that holds until the page was submitted). */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

const isBridge = (request: TestElicitRequest): boolean =>
  request.mode === 'form' && request.requestedSchema?.properties !== undefined && 'finished' in request.requestedSchema.properties;

/** What the pins app's `pin-context` tool reports (examples/mcp-nest/pins-app.ts). */
interface ContextSeen {
  args: unknown;
  slot4: { isObject: boolean; mcpReqIdType: string; method: unknown; envelopeProtocolVersion: unknown; hasRequestStateFn: boolean };
  rawRequest: unknown;
  session: { era?: unknown; stateless?: unknown; sessionId?: unknown };
  mcpRequest: { method?: unknown; name?: unknown };
  mcpServerHasLowLevel: boolean;
}

/** What the pins app's `pin-strategy` tool reports. */
interface StrategySeen {
  isMcpStrategy: boolean;
  transports: Array<{ constructorName: string; statefulMode: unknown }>;
  sdkCopies: { esmProtocolErrorIsMcpNests: boolean };
}

/** How a call ended: its result, or the error the client threw. */
type Outcome = { result: TestToolResult } | { error: { name: string; code?: unknown; message: string; data?: unknown } };

async function outcomeOf(call: Promise<TestToolResult>): Promise<Outcome> {
  try {
    return { result: await call };
  } catch (error) {
    const e = error as Error & { code?: unknown; data?: unknown };
    return { error: { name: e.constructor.name, code: e.code, message: e.message, data: e.data } };
  }
}

/**
 * Checks one MCP-Nest behaviour the adapter relies on; when it no longer holds, the test fails with an error
 * naming the behaviour and what was observed (jest's `expect` takes no message).
 */
function pin(behaviour: string, holds: boolean, observed: unknown, why = 'src/mcp-nest relies on it'): void {
  if (!holds) throw new Error(`MCP-Nest behaviour changed: ${behaviour} (${why}). Observed: ${JSON.stringify(observed, null, 2)}`);
}

/** Why the SDK-copy pins are there: they record why the adapter rebuilds errors, nothing breaks if they change. */
const WHY_REBUILT = 'recorded for src/mcp-nest/mcp-nest-errors.ts, which rebuilds every JSON-RPC error from MCP-Nest’s own SDK copy';

/** One 2026-07-28 `tools/call` as the SDK 2.x client sends it (headers and `_meta` envelope), answered as JSON. */
async function modernCall(
  mcpUrl: string,
  name: string,
  args: Record<string, unknown>,
  {
    user,
    requestState,
    inputResponses,
    capabilities = { elicitation: { form: {}, url: {} } },
  }: { user?: string; requestState?: string; inputResponses?: unknown; capabilities?: Record<string, unknown> } = {},
): Promise<{ status: number; message: { result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } } }> {
  const response = await fetch(mcpUrl, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': 'tools/call',
      'Mcp-Name': name,
      ...(user ? { Authorization: `Bearer ${user}` } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        ...(requestState !== undefined && { requestState }),
        ...(inputResponses !== undefined && { inputResponses }),
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'mcp-nest-e2e', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': capabilities,
        },
      },
    }),
  });
  expect(response.headers.get('content-type')).toContain('application/json');
  return { status: response.status, message: (await response.json()) as never };
}

/** Every process and client the file starts, stopped in `afterAll`. */
const processes: DemoProcess[] = [];
const clients: Array<{ close(): Promise<void> }> = [];

async function start(env: Record<string, string>, main: string): Promise<DemoProcess> {
  const started = await startDemoProcess(env, { main, readyMs: 60_000 });
  processes.push(started);
  return started;
}

async function connect(demo: DemoProcess, options: Omit<ElicitationTestClientOptions, 'url'>): Promise<ElicitationTestClient> {
  const client = await createElicitationTestClient({ url: demo.mcpUrl, ...options });
  clients.push(client);
  return client;
}

async function connectRaw(demo: DemoProcess, options: Parameters<typeof connectV2Client>[1]): Promise<V2TestClient> {
  const client = await connectV2Client(demo.mcpUrl, options);
  clients.push(client);
  return client;
}

/** Signs `user` in on a demo (`/demo/login`) and returns the browser's cookie. */
async function signIn(demo: DemoProcess, user: string): Promise<string> {
  const res = await fetch(`${demo.url}/demo/login?user=${encodeURIComponent(user)}`, { redirect: 'manual' });
  expect(res.status).toBe(200);
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('demo_user='));
  if (!cookie) throw new Error('the demo login set no demo_user cookie');
  return cookie.split(';')[0];
}

/** The elicitation id of one of a demo's page URLs (and a check that the URL is nothing else). */
function idOf(demo: DemoProcess, url: string | undefined, page: PageKind): string {
  const match = new RegExp(`^${demo.url.replace(/\./g, '\\.')}/elicit/(${UUID_V4})/${page}$`).exec(url ?? '');
  if (!match) throw new Error(`not a ${page} page URL of the demo: ${url}`);
  return match[1];
}

/** A link result: not an error, the URL in its text, structuredContent and `_meta`; returns the URL. */
function expectLinkResult(demo: DemoProcess, result: TestToolResult, tool: string, page: PageKind): string {
  expect(result.isError).toBeFalsy();
  const url = result.structuredContent?.url;
  if (typeof url !== 'string') throw new Error(`not a link result: ${JSON.stringify(result)}`);
  const pending = { elicitationId: idOf(demo, url, page), url, status: 'pending' };
  expect(result.structuredContent).toEqual({ ...pending, instructions: textOf(result) });
  expect(result._meta?.[PENDING_META]).toEqual(pending);
  expect(textOf(result)).toContain(url);
  expect(textOf(result)).toContain(`call the tool "${tool}" again with the same arguments`);
  expect(textOf(result)).not.toContain('Internal server error');
  return url;
}

let demo: DemoProcess;
let stateless: DemoProcess;
let pins: DemoProcess;
let browser: PageBrowser | undefined;

beforeAll(async () => {
  // A 2026-07-28 retry (and a form bridge's "finished") waits up to 2 s for a pending page.
  const started = await Promise.allSettled([
    // MCP_CONFORMANCE=1 adds the conformance suite's tools (a tool's own input requests, sealRequestState).
    start({ ELICITATION_PENDING_RETRY_WAIT_MS: '2000', MCP_CONFORMANCE: '1' }, MCP_NEST_DEMO_MAIN),
    start({ MCP_NEST_STATEFUL: '0' }, MCP_NEST_DEMO_MAIN),
    start({}, PINS_MAIN),
  ]);
  for (const s of started) if (s.status === 'rejected') throw s.reason;
  [demo, stateless, pins] = started.map((s) => (s as PromiseFulfilledResult<DemoProcess>).value);
  if (chromiumWanted()) browser = await launchPageBrowser();
  else console.warn(`mcp-nest: ${CHROMIUM} not found, approve-deploy's page is submitted over HTTP (submitPage) instead.`);
}, 120_000);

afterAll(async () => {
  await browser?.close().catch(() => undefined);
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await Promise.all(processes.map((p) => p.stop()));
}, 30_000);

describe('the MCP-Nest demo (statefulMode true)', () => {
  describe.each(ERAS)('%s', (era: Era) => {
    const userOf = (label: string) => `mcpnest-${era}-${label}`.replace(/[^A-Za-z0-9-]+/g, '-');

    if (era === '2025-11-25') {
      it('connect-service with a form+url client: -32042 (the SDK’s UrlElicitationRequiredError with the page URL), the page submitted, the completion notification, and the retry connects', async () => {
        const user = userOf('connect-url');
        const client = await connect(demo, { era, user });
        const call = () => client.callTool('connect-service', { service: 'github' });

        const first = await outcomeOf(call());
        if (!('error' in first)) throw new Error(`expected -32042, got a result: ${JSON.stringify(first.result)}`);
        const url = client.lastUrl();
        const id = idOf(demo, url, 'api-key');
        expect(first.error).toEqual({
          name: 'UrlElicitationRequiredError',
          code: -32042,
          message: expect.any(String),
          data: {
            elicitations: [
              { mode: 'url', url, elicitationId: id, message: 'Enter your github API key so the assistant can connect to github for you.' },
            ],
          },
        });
        await expect(call()).rejects.toBeInstanceOf(UrlElicitationRequiredError);

        const page = await submitPage(url!, { apiKey: API_KEY }, { cookie: await signIn(demo, user) });
        expect(page).toEqual({ status: 200, text: expect.stringContaining(DONE['api-key']) });
        await client.completion(id);
        const done = await call();
        expect(done.isError).toBeFalsy();
        expect(textOf(done)).toBe('Connected to github');
        expect(client.requests).toEqual([]);
      });
    } else {
      it('connect-service with a form+url client: the call follows input_required until the page is submitted, then connects', async () => {
        const user = userOf('connect-url');
        const client = await connect(demo, { era, user });
        const pending = client.callTool('connect-service', { service: 'github' });
        pending.catch(() => undefined);
        const url = await client.waitForUrl();
        idOf(demo, url, 'api-key');
        expect(client.requests).toEqual([
          { mode: 'url', message: 'Enter your github API key so the assistant can connect to github for you.', url },
        ]);
        const page = await submitPage(url, { apiKey: API_KEY }, { cookie: await signIn(demo, user) });
        expect(page).toEqual({ status: 200, text: expect.stringContaining(DONE['api-key']) });
        const done = await pending;
        expect(done.isError).toBeFalsy();
        expect(textOf(done)).toBe('Connected to github');
      });
    }

    const inBrowser = era === '2025-11-25';
    it(`approve-deploy: the confirm page in URL mode, submitted ${inBrowser ? 'in Chromium' : 'with submitPage'}, deploys`, async () => {
      const user = userOf('approve');
      const client = await connect(demo, { era, user });
      const pending = client.callTool('approve-deploy', { app: 'shop' });
      pending.catch(() => undefined);
      const url = await client.waitForUrl();
      const id = idOf(demo, url, 'confirm');
      expect(client.requests).toEqual([
        { mode: 'url', message: 'Deploy shop to production?', url, ...(era === '2025-11-25' ? { elicitationId: id } : {}) },
      ]);
      if (inBrowser && browser) {
        const submitted = await browser.submit(url, user, () => Promise.resolve());
        expect(submitted).toEqual({ status: 200, text: expect.stringContaining(DONE.confirm), errors: [] });
      } else {
        expect(await submitPage(url, {}, { cookie: await signIn(demo, user) })).toEqual({
          status: 200,
          text: expect.stringContaining(DONE.confirm),
        });
      }
      expect(textOf(await pending)).toBe('Deployed shop');
    });

    it.each([
      ['accepts', 'Deleted /tmp/report.txt', { action: 'accept', content: { confirmed: true } }],
      ['declines', 'Cancelled', { action: 'decline' }],
    ] as const)('delete-file: the client %s the form → %s', async (_label, expected, answer) => {
      const client = await connect(demo, { era, user: userOf(`delete-${answer.action}`), answer: () => answer });
      const result = await client.callTool('delete-file', { path: '/tmp/report.txt' });
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toBe(expected);
      expect(client.requests).toEqual([
        { mode: 'form', message: 'Delete /tmp/report.txt?', requestedSchema: expect.objectContaining({ type: 'object' }) },
      ]);
      expect(client.urls).toEqual([]);
    });

    it('configure-profile: answered in form mode → Profile saved', async () => {
      const client = await connect(demo, { era, user: userOf('profile'), answer: () => ({ action: 'accept', content: PROFILE }) });
      const result = await client.callTool('configure-profile', {});
      expect(textOf(result)).toBe('Profile saved for Ada Lovelace (team plan, interests: ai, ops)');
      expect(client.requests).toEqual([
        { mode: 'form', message: 'Set up your profile', requestedSchema: expect.objectContaining({ type: 'object' }) },
      ]);
    });

    it('a form-only client gets the form bridge carrying the api-key page URL; once the page is submitted and the client accepts, it connects', async () => {
      const user = userOf('form-only');
      const finished = gate();
      const client = await connect(demo, {
        era,
        user,
        capabilities: { form: true },
        answer: async (request) => {
          if (!isBridge(request)) return { action: 'decline' };
          await finished.opened;
          return { action: 'accept', content: { finished: true } };
        },
      });
      try {
        const pending = client.callTool('connect-service', { service: 'gitlab' });
        pending.catch(() => undefined);
        const url = await client.waitForUrl();
        idOf(demo, url, 'api-key');
        expect(client.requests).toEqual([{ mode: 'form', message: expect.stringContaining(url), requestedSchema: expect.any(Object) }]);
        expect(isBridge(client.requests[0])).toBe(true);
        expect((await submitPage(url, { apiKey: API_KEY }, { cookie: await signIn(demo, user) })).status).toBe(200);
        finished.open();
        expect(textOf(await pending)).toBe('Connected to gitlab');
      } finally {
        finished.open();
      }
    });

    it('a client without elicitation gets a link result: the same URL on retry, Connected after the page is submitted', async () => {
      const user = userOf('none');
      const client = await connect(demo, { era, user, capabilities: 'none' });
      const url = expectLinkResult(demo, await client.callTool('connect-service', { service: 'jira' }), 'connect-service', 'api-key');
      expect(expectLinkResult(demo, await client.callTool('connect-service', { service: 'jira' }), 'connect-service', 'api-key')).toBe(url);
      expect((await submitPage(url, { apiKey: API_KEY }, { cookie: await signIn(demo, user) })).status).toBe(200);
      const done = await client.callTool('connect-service', { service: 'jira' });
      expect(done.isError).toBeFalsy();
      expect(textOf(done)).toBe('Connected to jira');
    });

    it('a call without a bearer (no req.user) gets a readable tool error naming the missing identity', async () => {
      const client = await connect(demo, { era });
      const result = await client.callTool('connect-service', { service: 'github' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('No authenticated user on this MCP-Nest tool call');
      expect(textOf(result)).toContain('McpNestElicitationModule.forRoot({ resolveUser');
      expect(textOf(result)).not.toContain('resolveMcpUser');
      expect(textOf(result)).not.toContain('Internal server error');
    });

    it('the user is req.user (the bearer in the demo): the page of alice’s question refuses bob’s browser (403) and takes alice’s', async () => {
      const [alice, bob] = [userOf('owner-alice'), userOf('other-bob')];
      const client = await connect(demo, { era, user: alice, capabilities: 'none' });
      const url = expectLinkResult(demo, await client.callTool('connect-service', { service: 'linear' }), 'connect-service', 'api-key');
      expect(await submitPage(url, { apiKey: API_KEY }, { cookie: await signIn(demo, bob) })).toMatchObject({ status: 403 });
      expect(await submitPage(url, { apiKey: API_KEY }, { cookie: await signIn(demo, alice) })).toMatchObject({ status: 200 });
      expect(textOf(await client.callTool('connect-service', { service: 'linear' }))).toBe('Connected to linear');
    });
  });

  describe('a refused requestState on 2026-07-28 is the JSON-RPC error -32602, not a tool result', () => {
    /** A real state: delete-file's form question, asked of alice. */
    async function aliceState(): Promise<string> {
      const first = await modernCall(demo.mcpUrl, 'delete-file', { path: '/tmp/state.txt' }, { user: 'mcpnest-state-alice' });
      expect(first.message.result).toMatchObject({ resultType: 'input_required', requestState: expect.any(String) });
      return first.message.result!.requestState as string;
    }
    // The same error the SDK's own requestState hook answers (the SDK demo's), data included.
    const refused = { code: -32602, message: 'Invalid or expired requestState', data: { reason: 'invalid_request_state' } };

    it('garbage requestState (through the SDK 2.x client, raw call)', async () => {
      const client = await connectRaw(demo, { user: 'mcpnest-state-alice', manual: true });
      await expect(
        client.callRaw('delete-file', { path: '/tmp/state.txt' }, { requestState: 'x', inputResponses: {} }),
      ).rejects.toMatchObject({ code: -32602 });
      const answered = client.toolCalls().at(-1)!;
      expect(answered.response).toEqual({ jsonrpc: '2.0', id: expect.anything(), error: refused });
    });

    it.each([
      ['garbage', () => Promise.resolve('x'), 'mcpnest-state-alice'],
      ['tampered (one character of a real state changed)', async () => flip(await aliceState()), 'mcpnest-state-alice'],
      ['another user’s (alice’s state sent by bob)', aliceState, 'mcpnest-state-bob'],
    ] as const)('%s', async (_label, state, user) => {
      const reply = await modernCall(
        demo.mcpUrl,
        'delete-file',
        { path: '/tmp/state.txt' },
        { user, requestState: await state(), inputResponses: { 'elicitation-1': { action: 'accept', content: { confirmed: true } } } },
      );
      expect(reply.status).toBe(200);
      expect(reply.message.result).toBeUndefined();
      expect(reply.message.error).toEqual(refused);
    });
  });
});

describe('a tool registered at run time (strategy.registerTool with interceptor.dynamicTool: connect-service-dynamic)', () => {
  const TOOL = 'connect-service-dynamic';
  const MESSAGE = 'Enter your bitbucket API key so the assistant can connect to bitbucket for you.';
  const CONNECTED = 'Connected to bitbucket (dynamic tool)';

  it('2025-11-25, a form+url client: -32042 with the page URL, the page submitted, and the retry gets the tool’s result', async () => {
    const user = 'mcpnest-dynamic-legacy';
    const client = await connect(demo, { era: '2025-11-25', user });
    const call = () => client.callTool(TOOL, { service: 'bitbucket' });

    const first = await outcomeOf(call());
    if (!('error' in first)) throw new Error(`expected -32042, got a result: ${JSON.stringify(first.result)}`);
    const url = client.lastUrl();
    const id = idOf(demo, url, 'api-key');
    expect(first.error).toEqual({
      name: 'UrlElicitationRequiredError',
      code: -32042,
      message: expect.any(String),
      data: { elicitations: [{ mode: 'url', url, elicitationId: id, message: MESSAGE }] },
    });

    const page = await submitPage(url!, { apiKey: API_KEY }, { cookie: await signIn(demo, user) });
    expect(page).toEqual({ status: 200, text: expect.stringContaining(DONE['api-key']) });
    await client.completion(id);
    const done = await call();
    expect(done.isError).toBeFalsy();
    expect(textOf(done)).toBe(CONNECTED);
    expect(client.requests).toEqual([]);
  });

  it('2026-07-28: the call follows input_required until the page is submitted, then completes with the tool’s result', async () => {
    const user = 'mcpnest-dynamic-modern';
    const first = await modernCall(demo.mcpUrl, TOOL, { service: 'bitbucket' }, { user });
    expect(first.message.result).toMatchObject({ resultType: 'input_required', requestState: expect.any(String) });

    const client = await connect(demo, { era: '2026-07-28', user });
    const pending = client.callTool(TOOL, { service: 'bitbucket' });
    pending.catch(() => undefined);
    const url = await client.waitForUrl();
    idOf(demo, url, 'api-key');
    expect(client.requests).toEqual([{ mode: 'url', message: MESSAGE, url }]);
    const page = await submitPage(url, { apiKey: API_KEY }, { cookie: await signIn(demo, user) });
    expect(page).toEqual({ status: 200, text: expect.stringContaining(DONE['api-key']) });
    const done = await pending;
    expect(done.isError).toBeFalsy();
    expect(textOf(done)).toBe(CONNECTED);
    // The retry after the page is a complete result.
    const again = await modernCall(demo.mcpUrl, TOOL, { service: 'bitbucket' }, { user });
    expect(again.message.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: CONNECTED }] });
  });

  it.each(ERAS)('%s: a call without a bearer (no req.user) gets the readable tool error naming the adapter’s settings', async (era) => {
    const client = await connect(demo, { era });
    const result = await client.callTool(TOOL, { service: 'bitbucket' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('No authenticated user on this MCP-Nest tool call');
    expect(textOf(result)).toContain('McpNestElicitationModule.forRoot({ resolveUser');
    expect(textOf(result)).not.toContain('resolveMcpUser');
    expect(textOf(result)).not.toContain('Internal server error');
  });
});

describe("a tool's own 2026-07-28 input requests in MCP-Nest (sealRequestState for a signed-in user)", () => {
  it('binds the state to the user from req.user, so the retry with the answer is accepted (and refused for another user)', async () => {
    const name = 'test_input_required_result_sampling';
    const post = async (user: string, extra: { requestState?: string; inputResponses?: unknown }) =>
      (await modernCall(demo.mcpUrl, name, {}, { user, ...extra, capabilities: { sampling: {} } })).message;
    const first = await post('mcpnest-sampling-alice', {});
    expect(first.result).toMatchObject({ resultType: 'input_required', requestState: expect.any(String) });
    const key = Object.keys(first.result!.inputRequests as object)[0];
    const answer = {
      requestState: first.result!.requestState as string,
      inputResponses: { [key]: { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'm' } },
    };
    expect((await post('mcpnest-sampling-bob', answer)).error).toMatchObject({ code: -32602 });
    const done = await post('mcpnest-sampling-alice', answer);
    expect(done.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Sampling answered: Paris' }] });
  });
});

/** Changes the middle character of a state's last part to another of its alphabet. */
function flip(state: string): string {
  const at = state.length - 10;
  return state.slice(0, at) + (state[at] === 'A' ? 'B' : 'A') + state.slice(at + 1);
}

describe('the MCP-Nest demo with statefulMode false (MCP_NEST_STATEFUL=0)', () => {
  it('warns at start-up, naming statefulMode', () => {
    const warning = stripAnsi(stateless.output())
      .split('\n')
      .find((line) => line.includes('WARN') && line.includes('[McpNestElicitation]'));
    expect(warning).toContain('statefulMode: false');
    expect(warning).toContain('statefulMode: true');
  });

  it('a 2025-11-25 client with URL mode calling connect-service gets a link result (never "Internal server error"), and the page works', async () => {
    const user = 'mcpnest-stateless';
    const client = await connect(stateless, { era: '2025-11-25', user });
    const first = await client.callTool('connect-service', { service: 'github' });
    const url = expectLinkResult(stateless, first, 'connect-service', 'api-key');
    expect(client.requests).toEqual([]);
    expect((await submitPage(url, { apiKey: API_KEY }, { cookie: await signIn(stateless, user) })).status).toBe(200);
    expect(textOf(await client.callTool('connect-service', { service: 'github' }))).toBe('Connected to github');
  });
});

describe('the MCP-Nest behaviours the adapter relies on (pins app: raw MCP-Nest, no McpNestElicitationModule)', () => {
  describe.each(ERAS)('%s', (era: Era) => {
    const client = () => connect(pins, { era, headers: { 'x-pin': `pin-${era}` } });
    const observe = async <T>(c: ElicitationTestClient, name: string, args: Record<string, unknown> = {}): Promise<T> =>
      JSON.parse(textOf(await c.callTool(name, args))) as T;

    it('passes the SDK’s per-request context as McpContext.getArgByIndex(4), and the HTTP request as getRawRequest()', async () => {
      const seen = await observe<ContextSeen>(await client(), 'pin-context', { echo: 'hello' });
      const { slot4, session } = seen;
      pin(
        'McpContext.getArgByIndex(4) is the SDK per-request context (mcpReq.id, mcpReq.method "tools/call", mcpReq.requestState())',
        slot4.isObject === true &&
          ['number', 'string'].includes(slot4.mcpReqIdType) &&
          slot4.method === 'tools/call' &&
          slot4.hasRequestStateFn === true,
        slot4,
      );
      pin(
        era === '2026-07-28'
          ? 'on 2026-07-28 the SDK context carries the request _meta envelope (mcpReq.envelope)'
          : 'on 2025-11-25 the SDK context has no envelope',
        slot4.envelopeProtocolVersion === (era === '2026-07-28' ? '2026-07-28' : null),
        slot4,
      );
      pin(
        'McpContext.getRawRequest() is the HTTP request (an IncomingMessage: POST /mcp, its headers)',
        JSON.stringify(seen.rawRequest) ===
          JSON.stringify({ isIncomingMessage: true, method: 'POST', url: '/mcp', pinHeader: `pin-${era}` }),
        seen.rawRequest,
      );
      pin(
        'McpContext.getSession() tells the era and statelessness (legacy stateful on 2025-11-25, modern stateless on 2026-07-28)',
        era === '2026-07-28'
          ? session.era === 'modern' && session.stateless === true
          : session.era === 'legacy' && session.stateless === false && typeof session.sessionId === 'string',
        session,
      );
      pin(
        'McpContext.mcpRequest is the tools/call request (method, params.name) and McpContext.mcpServer the SDK McpServer (server.getClientCapabilities)',
        seen.mcpRequest.method === 'tools/call' && seen.mcpRequest.name === 'pin-context' && seen.mcpServerHasLowLevel === true,
        { mcpRequest: seen.mcpRequest, mcpServerHasLowLevel: seen.mcpServerHasLowLevel },
      );
      pin('the @Payload() is the validated arguments', JSON.stringify(seen.args) === JSON.stringify({ echo: 'hello' }), seen.args);
    });

    it('passes a result with a content array through unchanged, and JSON-stringifies one without into a text block', async () => {
      const c = await client();
      const passed = await c.callTool('pin-result', { shape: 'with-content' });
      pin(
        'a tool result with a content array is passed through unchanged (content, structuredContent, _meta kept)',
        textOf(passed) === 'passed through' &&
          passed.content.length === 1 &&
          JSON.stringify(passed.structuredContent) === JSON.stringify({ kept: true }) &&
          passed._meta?.['pins/kept'] === 'yes' &&
          !passed.isError,
        passed,
      );
      const wrapped = await c.callTool('pin-result', { shape: 'without-content' });
      const text = textOf(wrapped);
      pin(
        'a tool result without a content array becomes one text block of its JSON',
        wrapped.content.length === 1 && wrapped.content[0].type === 'text' && text.startsWith('{"answer":42,"nested":{"kept":true}'),
        wrapped,
      );
    });

    if (era === '2026-07-28') {
      it('passes an input_required result through only when it has a content array (hence the adapter’s content: [])', async () => {
        const raw = await connectRaw(pins, { manual: true });
        const kept = await raw.callRaw('pin-result', { shape: 'input-required' });
        pin(
          'an input_required result with content: [] reaches the client as input_required (inputRequests, requestState kept)',
          kept.resultType === 'input_required' &&
            kept.requestState === 'pinned-state' &&
            Object.keys(kept.inputRequests ?? {}).join() === 'pin',
          kept,
        );
        const flattened = await raw.callRaw('pin-result', { shape: 'input-required-without-content' });
        pin(
          'an input_required result without content is JSON-stringified into a complete result (so the adapter must add content: [])',
          flattened.resultType !== 'input_required' && (flattened.content?.[0]?.text ?? '').includes('"resultType":"input_required"'),
          flattened,
        );
      });
    }

    it('rethrows a ProtocolError of its own SDK copy inside an RpcException as the JSON-RPC error with that code', async () => {
      const c = await client();
      const invalid = await outcomeOf(c.callTool('pin-throw', { kind: 'mcp-nest-protocol-error-in-rpc-exception', code: -32602 }));
      pin(
        'RpcException(new ProtocolError(-32602, …)) from MCP-Nest’s own @modelcontextprotocol/server copy becomes JSON-RPC error -32602 (with its data)',
        'error' in invalid && invalid.error.code === -32602 && JSON.stringify(invalid.error.data) === JSON.stringify({ pinned: true }),
        invalid,
      );
      if (era === '2025-11-25') {
        const urlRequired = await outcomeOf(c.callTool('pin-throw', { kind: 'mcp-nest-url-required-in-rpc-exception' }));
        pin(
          'RpcException(new UrlElicitationRequiredError([...])) from MCP-Nest’s SDK copy becomes JSON-RPC error -32042 with the elicitations (URL) in its data',
          'error' in urlRequired &&
            urlRequired.error.code === -32042 &&
            (urlRequired.error.data as { elicitations?: Array<{ url?: string }> } | undefined)?.elicitations?.[0]?.url ===
              'https://example.com/pin-page',
          urlRequired,
        );
      }
    });

    it('turns any other error into a tool result: "Internal server error" for a plain Error or a bare ProtocolError, the message of an RpcException', async () => {
      const c = await client();
      for (const kind of ['plain-error', 'mcp-nest-protocol-error-bare'] as const) {
        const outcome = await outcomeOf(c.callTool('pin-throw', { kind }));
        pin(
          `a thrown ${kind === 'plain-error' ? "Error('boom')" : 'ProtocolError outside an RpcException'} becomes the tool result "Internal server error" (isError)`,
          'result' in outcome && outcome.result.isError === true && textOf(outcome.result) === 'Internal server error',
          outcome,
        );
      }
      const readable = await outcomeOf(c.callTool('pin-throw', { kind: 'rpc-exception-with-message' }));
      pin(
        'RpcException("message") becomes a tool error with that message (how the adapter shows its readable errors)',
        'result' in readable && readable.result.isError === true && textOf(readable.result) === 'Pinned readable message',
        readable,
      );
    });

    it('recognises ProtocolError by the SDK’s error brand, not by class: the ESM copy (another class) is rethrown too, an SDK 1.x McpError is not', async () => {
      const c = await client();
      const copies = await observe<StrategySeen>(c, 'pin-strategy');
      pin(
        'the ES module build of @modelcontextprotocol/server and the CommonJS copy MCP-Nest requires have different ProtocolError classes',
        copies.sdkCopies.esmProtocolErrorIsMcpNests === false,
        copies.sdkCopies,
        WHY_REBUILT,
      );
      // @modelcontextprotocol/server 2.4 brands its errors across bundled copies (Symbol.hasInstance), so MCP-Nest's
      // `instanceof ProtocolError` also matches the ESM copy's; SDK copies from before the brand, and SDK 1.x
      // errors, are not recognised: that is why the adapter rebuilds every JSON-RPC error from MCP-Nest's copy.
      const esm = await outcomeOf(c.callTool('pin-throw', { kind: 'esm-protocol-error-in-rpc-exception', code: -32602 }));
      pin(
        'RpcException(new ProtocolError(-32602)) from the ESM copy of @modelcontextprotocol/server is rethrown as JSON-RPC -32602 (branded errors)',
        'error' in esm && esm.error.code === -32602,
        esm,
        WHY_REBUILT,
      );
      const sdk1 = await outcomeOf(c.callTool('pin-throw', { kind: 'sdk1-mcp-error-in-rpc-exception', code: -32602 }));
      pin(
        'RpcException(new McpError(-32602)) from SDK 1.x is not recognised: a tool error with its message, not a JSON-RPC error',
        'result' in sdk1 && sdk1.result.isError === true && textOf(sdk1.result).includes('Pinned SDK 1.x error'),
        sdk1,
        WHY_REBUILT,
      );
    });

    it('runs an interceptor put on a @Tool() controller class while the app is created, in the rpc context, and finds @Tool() metadata under mcp:tool; the strategy provided as MCP_STRATEGY shows its transports’ statefulMode', async () => {
      const c = await client();
      const result = await c.callTool('pin-interceptor', {});
      const seen = result._meta?.[PIN_META] as Record<string, unknown> | undefined;
      pin(
        'an interceptor added to a controller’s __interceptors__ metadata before connectMicroservice runs around its tool calls',
        seen !== undefined,
        result,
      );
      pin(
        'the interceptor sees context type "rpc", switchToRpc().getContext() is the McpContext, getData() the arguments, and the handler carries @Tool() metadata under "mcp:tool"',
        seen?.type === 'rpc' &&
          seen.contextIsMcpContext === true &&
          seen.toolMetadataName === 'pin-interceptor' &&
          JSON.stringify(seen.data) === '{}',
        seen,
      );
      const strategy = await observe<StrategySeen>(c, 'pin-strategy');
      pin(
        'the McpStrategy provided under MCP_STRATEGY exposes options.transports, a StreamableHttpTransport with its statefulMode',
        strategy.isMcpStrategy === true &&
          JSON.stringify(strategy.transports) === JSON.stringify([{ constructorName: 'StreamableHttpTransport', statefulMode: true }]),
        strategy,
      );
    });

    it('@Elicitation() without McpNestElicitationModule: an error at start-up naming the module', () => {
      const errors = stripAnsi(pins.output())
        .split('\n')
        .filter((line) => line.includes('ERROR') && line.includes('McpNestElicitationModule.forRoot() is not imported'));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toContain('@Elicitation() is used (PinsController.unwired)');
    });

    it('@Elicitation() without McpNestElicitationModule: and at each call a readable tool error naming it', async () => {
      const result = await (await client()).callTool('pin-elicitation-unwired', {});
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('McpNestElicitationModule');
      expect(textOf(result)).not.toContain('Internal server error');
    });
  });
});
