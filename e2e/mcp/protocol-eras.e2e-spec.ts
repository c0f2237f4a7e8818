/**
 * The demo tools (written once through `mcpElicitation.registerTool`) driven over real HTTP by three real
 * clients: the SDK 2.x client pinned to 2026-07-28 (stateless, `input_required` + sealed `requestState`),
 * the SDK 2.x client on the 2025-11-25 handshake, and the SDK 1.x client. The pages are submitted by the
 * test acting as the signed-in browser (demo cookie), while the client's elicitation handler runs.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { UrlElicitationRequiredError as V2UrlElicitationRequiredError } from '@modelcontextprotocol/client';
import { UrlElicitationRequiredError as V1UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import request from 'supertest';
import { startDemoApp, type DemoApp } from '../../examples/demo/demo-app.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { connectClient, textOf } from '../support/mcp-client.js';
import { connectV2Client, type V2Capabilities, type V2TestClient, type WireExchange } from '../support/mcp-v2-client.js';
import { csrfFor, submitForm } from '../support/page-form.js';

const SECRET = 'ghp_ERAS_PLANTED_SECRET_0123456789';
const UUID_V4 = '[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}';
const PROFILE_FIELDS = [
  'displayName',
  'email',
  'homepage',
  'birthday',
  'availableFrom',
  'age',
  'hoursPerWeek',
  'newsletter',
  'theme',
  'language',
  'plan',
  'interests',
  'roles',
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What an `elicitation/create` carries, as both SDK lines hand it to the handler. */
interface ElicitParams {
  mode?: string;
  message: string;
  url?: string;
  elicitationId?: string;
  requestedSchema?: { type: string; properties: Record<string, unknown>; required?: string[] };
}
type ElicitAnswer = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, string | number | boolean | string[]> };

interface Kind {
  name: string;
  /** Prefix of the demo user names of this client's tests (every test has its own user). */
  key: string;
  modern: boolean;
}

const KINDS: Kind[] = [
  { name: 'SDK 2.x client pinned to 2026-07-28', key: 'modern', modern: true },
  { name: 'SDK 2.x client on 2025-11-25', key: 'v2legacy', modern: false },
  { name: 'SDK 1.x client on 2025-11-25', key: 'v1', modern: false },
];

/** One connected client of any kind, reduced to what the shared flows need. */
interface EraClient {
  callTool(name: string, args?: Record<string, unknown>): Promise<unknown>;
  completed: string[];
  completion(id: string, ms?: number): Promise<void>;
  /** SDK 2.x clients only: the recorded wire. */
  v2?: V2TestClient;
  close(): Promise<void>;
}

/**
 * The browser acting while the client's handler runs. Modern: the handler waits for the page to be
 * submitted before it answers (the retry must then succeed at once). Legacy: the handler answers
 * `accept` first and the page is submitted a moment later, while the tool waits inside the call.
 * `finish` fails fast with the browser's error instead of waiting for the call to time out.
 */
function browserDuring(modern: boolean) {
  let fail!: (error: unknown) => void;
  const failed = new Promise<never>((_, reject) => (fail = reject));
  failed.catch(() => undefined);
  const runs: Promise<unknown>[] = [];
  return {
    async act(fn: () => Promise<unknown>): Promise<void> {
      if (modern) {
        await fn();
        return;
      }
      const run = sleep(20).then(fn);
      run.catch(fail);
      runs.push(run);
    },
    async finish<T>(call: Promise<T>): Promise<T> {
      const result = await Promise.race([call, failed]);
      await Promise.all(runs);
      return result;
    },
  };
}

describe('both protocol eras on /mcp, three real clients, the same demo tools', () => {
  let demo: DemoApp;
  let service: ElicitationService;
  const open: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    // A modern retry on a still-pending page waits 200 ms, then answers input_required with only requestState.
    demo = await startDemoApp({ port: 0, logger: false, pendingRetryWaitMs: 200, throttleLimit: 100_000 });
    service = demo.app.get(ElicitationService);
  });
  afterAll(async () => {
    await Promise.all(open.map((c) => c.close().catch(() => undefined)));
    await demo.app.close();
  });

  const cookie = (user: string) => ({ Cookie: `demo_user=${user}` });
  /** Renders a page as the signed-in browser and submits its form. */
  const submitPage = (url: string, form: Record<string, string>, user: string) =>
    submitForm(demo.url, new URL(url).pathname, form, cookie(user));
  /** Submits the hosted form with urlencoded pairs exactly as given (repeated keys stay repeated). */
  const submitHostedForm = async (url: string, pairs: Array<[string, string]>, user: string) => {
    const path = new URL(url).pathname;
    const pair = await csrfFor(demo.url, path, cookie(user));
    const body = new URLSearchParams(pairs);
    body.append('_csrf', pair.token);
    return request(demo.url)
      .post(path)
      .set({ Cookie: `demo_user=${user}; ${pair.cookie}`, 'Content-Type': 'application/x-www-form-urlencoded' })
      .send(body.toString());
  };
  const statusOf = async (id: string): Promise<string> =>
    ((await request(demo.url).get(`/elicit/${id}/status`).expect(200)).body as { status: string }).status;
  /** The elicitation id of a page URL, checking the URL is this demo's page and carries nothing but the id. */
  const idOf = (url: string | undefined, page: 'api-key' | 'confirm' | 'form'): string => {
    const match = new RegExp(`^${demo.url.replace(/[.]/g, '\\.')}/elicit/(${UUID_V4})/${page}$`).exec(url ?? '');
    if (!match) throw new Error(`not a bare ${page} page URL of the demo: ${url}`);
    return match[1];
  };

  async function connect(
    kind: Kind,
    user: string,
    onElicit: (params: ElicitParams) => Promise<ElicitAnswer>,
    elicitation: V2Capabilities = { form: {}, url: {} },
  ): Promise<EraClient> {
    let era: EraClient;
    if (kind.key === 'v1') {
      const c = await connectClient(demo.mcpUrl, { user, elicitation, onElicit: (params) => onElicit(params) });
      era = {
        callTool: (name, args = {}) => c.client.callTool({ name, arguments: args }, undefined, { timeout: 20_000 }),
        completed: c.completed,
        completion: c.completion,
        close: c.close,
      };
    } else {
      const c = await connectV2Client(demo.mcpUrl, {
        user,
        era: kind.modern ? 'modern' : 'legacy',
        elicitation,
        onElicit: (params) => onElicit(params),
      });
      era = {
        callTool: (name, args = {}) => c.client.callTool({ name, arguments: args }, { timeout: 20_000 }),
        completed: c.completed,
        completion: c.completion,
        v2: c,
        close: c.close,
      };
    }
    open.push(era);
    return era;
  }

  /**
   * The modern wire of one auto-fulfilled call: `input_required` with one `elicitation/create` of `mode`
   * under `elicitation-1` and a `requestState`; then a retry (new id) echoing the state byte for byte with
   * the answer under the same key, answered `complete`. No session anywhere.
   */
  function expectModernRounds(wire: WireExchange[], mode: 'form' | 'url', answer: ElicitAnswer): void {
    const calls = wire.filter((w) => w.request.method === 'tools/call');
    expect(calls).toHaveLength(2);
    const [first, retry] = calls;
    expect(first.status).toBe(200);
    const asked = first.response!.result!;
    expect(asked.resultType).toBe('input_required');
    expect(Object.keys(asked.inputRequests)).toEqual(['elicitation-1']);
    expect(asked.inputRequests['elicitation-1'].method).toBe('elicitation/create');
    expect(asked.inputRequests['elicitation-1'].params.mode).toBe(mode);
    if (mode === 'url') expect(asked.inputRequests['elicitation-1'].params).not.toHaveProperty('elicitationId');
    expect(typeof asked.requestState).toBe('string');
    expect(asked.requestState.length).toBeGreaterThan(0);
    expect(first.request.params).not.toHaveProperty('requestState');
    expect(first.request.params).not.toHaveProperty('inputResponses');

    expect(retry.request.id).not.toBe(first.request.id);
    expect(retry.request.params!.requestState).toBe(asked.requestState);
    expect(retry.request.params!.inputResponses).toEqual({ 'elicitation-1': answer });
    expect(retry.status).toBe(200);
    expect(retry.response!.result!.resultType).toBe('complete');
    for (const w of wire) expect(w.headers.get('mcp-session-id')).toBeNull();
  }

  describe.each(KINDS)('$name', (kind) => {
    const user = (name: string) => `${kind.key}-${name}`;

    describe('delete-file (form mode)', () => {
      it('deletes on accept, and the question carries the form', async () => {
        let asked: ElicitParams | undefined;
        const answer: ElicitAnswer = { action: 'accept', content: { confirmed: true } };
        const c = await connect(kind, user('ivan'), (params) => {
          asked = params;
          return Promise.resolve(answer);
        });
        const result = await c.callTool('delete-file', { path: '/tmp/report.txt' });
        expect(textOf(result)).toBe('Deleted /tmp/report.txt');
        expect(asked).toMatchObject({
          mode: 'form',
          message: 'Delete /tmp/report.txt?',
          requestedSchema: { type: 'object', properties: { confirmed: { type: 'boolean' } }, required: ['confirmed'] },
        });
        if (kind.modern) expectModernRounds(c.v2!.wire, 'form', answer);
      });

      it.each<[string, ElicitAnswer]>([
        ['decline', { action: 'decline' }],
        ['cancel', { action: 'cancel' }],
        ['accept with confirmed: false', { action: 'accept', content: { confirmed: false } }],
      ])('answers Cancelled on %s', async (_, answer) => {
        const c = await connect(kind, user('judy'), () => Promise.resolve(answer));
        expect(textOf(await c.callTool('delete-file', { path: 'a.txt' }))).toBe('Cancelled');
        if (kind.modern) expectModernRounds(c.v2!.wire, 'form', answer);
      });
    });

    describe('approve-deploy (confirm page through requestUrl)', () => {
      const deploy = async (
        name: string,
        onPage: (url: string, u: string) => Promise<unknown>,
        consent: ElicitAnswer['action'] = 'accept',
      ) => {
        const u = user(name);
        const browser = browserDuring(kind.modern);
        let seen: ElicitParams | undefined;
        const c = await connect(kind, u, async (params) => {
          seen = params;
          if (consent === 'accept') await browser.act(() => onPage(params.url!, u));
          return { action: consent };
        });
        const result = await browser.finish(c.callTool('approve-deploy', { app: 'shop' }));
        expect(seen).toBeDefined();
        return { result, seen: seen!, id: idOf(seen!.url, 'confirm'), c, u };
      };

      it('deploys after the user confirms on the page', async () => {
        const { result, seen, id, c, u } = await deploy('frank', async (url, u) => {
          const page = await request(demo.url).get(new URL(url).pathname).set(cookie(u)).expect(200);
          expect(page.text).toContain('Deploy shop to production?');
          expect((await submitPage(url, { action: 'confirm' }, u)).status).toBe(200);
        });
        expect(textOf(result)).toBe('Deployed shop');
        expect(seen).toMatchObject({ mode: 'url', message: 'Deploy shop to production?' });
        expect(await statusOf(id)).toBe('completed');
        expect(await service.list({ userId: u })).toHaveLength(1);
        if (kind.modern) {
          expect(seen).not.toHaveProperty('elicitationId');
          expectModernRounds(c.v2!.wire, 'url', { action: 'accept' });
        } else {
          // 2025-11-25: the URL request names the elicitation, and the session is told when it finished.
          expect(seen.elicitationId).toBe(id);
          await c.completion(id);
          expect(c.completed).toEqual([id]);
        }
      });

      it('reports a cancel on the page, and the elicitation ends declined', async () => {
        const { result, id } = await deploy('grace', async (url, u) => {
          expect((await submitPage(url, { action: 'cancel' }, u)).status).toBe(200);
        });
        expect(textOf(result)).toBe('Deployment cancelled');
        expect(await statusOf(id)).toBe('declined');
      });

      it('ends the elicitation when the client declines to open the URL, and the tool reports it', async () => {
        const { result, id, c, u } = await deploy('heidi', () => Promise.resolve(), 'decline');
        expect(textOf(result)).toBe('Deployment cancelled');
        expect(await statusOf(id)).toBe('declined');
        await request(demo.url).get(`/elicit/${id}/confirm`).set(cookie(u)).expect(409);
        if (kind.modern) expectModernRounds(c.v2!.wire, 'url', { action: 'decline' });
      });

      it('ends the elicitation cancelled when the client cancels', async () => {
        const { result, id } = await deploy('ike', () => Promise.resolve(), 'cancel');
        expect(textOf(result)).toBe('Deployment cancelled');
        expect(await statusOf(id)).toBe('cancelled');
      });
    });

    describe('configure-profile (every field kind)', () => {
      it('falls back to the hosted form page for a client that declares only URL mode', async () => {
        const u = user('olga');
        const browser = browserDuring(kind.modern);
        let seen: ElicitParams | undefined;
        let page: request.Response | undefined;
        const c = await connect(
          kind,
          u,
          async (params) => {
            seen = params;
            await browser.act(async () => {
              page = await submitHostedForm(
                params.url!,
                [
                  ['displayName', 'Ada Lovelace'],
                  ['email', 'ada@example.com'],
                  ['plan', 'team'],
                  ['interests', 'ai'],
                  ['interests', 'ops'],
                  ['action', 'submit'],
                ],
                u,
              );
            });
            return { action: 'accept' };
          },
          { url: {} },
        );
        const result = await browser.finish(c.callTool('configure-profile'));
        expect(page?.status).toBe(200);
        expect(textOf(result)).toBe('Profile saved for Ada Lovelace (team plan, interests: ai, ops)');
        expect(seen).toMatchObject({ mode: 'url', message: 'Set up your profile' });
        const id = idOf(seen!.url, 'form');
        expect(await statusOf(id)).toBe('completed');
        if (kind.modern) expectModernRounds(c.v2!.wire, 'url', { action: 'accept' });
        else await c.completion(id);
      });

      it('asks in form mode with every field kind, and applies the defaults', async () => {
        let seen: ElicitParams | undefined;
        const answer: ElicitAnswer = {
          action: 'accept',
          content: { displayName: 'Grace', email: 'grace@example.com', interests: ['web', 'ops'] },
        };
        const c = await connect(kind, user('pia'), (params) => {
          seen = params;
          return Promise.resolve(answer);
        });
        const result = await c.callTool('configure-profile');
        // plan was not answered: its default ('free') was applied.
        expect(textOf(result)).toBe('Profile saved for Grace (free plan, interests: web, ops)');
        expect(seen?.mode).toBe('form');
        expect(Object.keys(seen!.requestedSchema!.properties)).toEqual(PROFILE_FIELDS);
        expect(seen!.requestedSchema!.required).toEqual(['displayName', 'email', 'interests']);
        expect(await service.list({ userId: user('pia') })).toEqual([]);
        if (kind.modern) expectModernRounds(c.v2!.wire, 'form', answer);
      });
    });
  });

  describe('connect-service on 2026-07-28 (SDK 2.x client)', () => {
    it('answers input_required with a bare page URL, and the retry after the page was submitted succeeds', async () => {
      let seen: ElicitParams | undefined;
      let page: request.Response | undefined;
      const c = await connectV2Client(demo.mcpUrl, {
        user: 'alice',
        onElicit: async (params) => {
          seen = params;
          page = await submitPage(seen.url!, { apiKey: SECRET, action: 'submit' }, 'alice');
          return { action: 'accept' };
        },
      });
      open.push(c);
      const result = await c.client.callTool({ name: 'connect-service', arguments: { service: 'github' } });
      expect(textOf(result)).toBe('Connected to github');
      expect(page?.status).toBe(200);
      expect(page?.text).toContain('The API key was received');

      expectModernRounds(c.wire, 'url', { action: 'accept' });
      const asked = c.toolCalls()[0].response!.result!;
      expect(asked.inputRequests['elicitation-1'].params).toEqual({
        mode: 'url',
        message: 'Enter your github API key so the assistant can connect to github for you.',
        url: seen!.url,
      });
      // The URL is the page of one elicitation id and nothing else: no user, service or token in it.
      const id = idOf(seen!.url, 'api-key');
      expect(seen!.url).not.toMatch(/alice|github|token|key=/i);
      // The sealed state shows neither the user nor the arguments.
      expect(asked.requestState).not.toContain('alice');
      expect(asked.requestState).not.toContain('github');
      // The key never reaches the client.
      expect(JSON.stringify(c.wire.map((w) => w.response))).not.toContain(SECRET);
      expect(await statusOf(id)).toBe('completed');
      expect(await service.list({ userId: 'alice' })).toEqual([expect.objectContaining({ elicitationId: id, status: 'completed' })]);

      // The key is kept for the user: the next call completes in one round, without asking.
      const before = c.toolCalls().length;
      expect(textOf(await c.client.callTool({ name: 'connect-service', arguments: { service: 'github' } }))).toBe('Connected to github');
      expect(
        c
          .toolCalls()
          .slice(before)
          .map((w) => w.response!.result!.resultType),
      ).toEqual(['complete']);
    });

    it('answers a retry on a still-pending page with only requestState, then completes once the page is submitted', async () => {
      const c = await connectV2Client(demo.mcpUrl, { user: 'bruno', manual: true });
      open.push(c);
      const args = { service: 'gitlab' };
      const first = await c.callRaw('connect-service', args);
      expect(first.resultType).toBe('input_required');
      const url = first.inputRequests['elicitation-1'].params.url as string;
      const id = idOf(url, 'api-key');

      // The client accepted (it opened the page) but the user has not submitted it yet.
      const waiting = await c.callRaw('connect-service', args, {
        inputResponses: { 'elicitation-1': { action: 'accept' } },
        requestState: first.requestState,
      });
      expect(waiting.resultType).toBe('input_required');
      const onWire = c.toolCalls().at(-1)!.response!.result!;
      expect(onWire.resultType).toBe('input_required');
      expect(onWire).not.toHaveProperty('inputRequests');
      expect(typeof onWire.requestState).toBe('string');
      expect(onWire.requestState).not.toBe(first.requestState);
      expect(await statusOf(id)).toBe('pending');

      expect((await submitPage(url, { apiKey: 'glpat-xyz' }, 'bruno')).status).toBe(200);
      // "Retry later" carried no inputRequests: the retry sends the state alone.
      const done = await c.callRaw('connect-service', args, { requestState: onWire.requestState });
      expect(textOf(done)).toBe('Connected to gitlab');
      expect(c.toolCalls().at(-1)!.response!.result!.resultType).toBe('complete');
      expect(await statusOf(id)).toBe('completed');
      // One elicitation for the whole flow.
      expect(await service.list({ userId: 'bruno' })).toHaveLength(1);

      // Each state is single use: the first one, already redeemed, is refused.
      const replay = await c
        .callRaw('connect-service', args, { inputResponses: { 'elicitation-1': { action: 'accept' } }, requestState: first.requestState })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(replay).toMatchObject({ code: -32602 });
    });

    it('ends the elicitation when the client declines the URL, and the tool reports it', async () => {
      let seen: ElicitParams | undefined;
      const c = await connectV2Client(demo.mcpUrl, {
        user: 'carla',
        onElicit: (params) => {
          seen = params;
          return Promise.resolve({ action: 'decline' });
        },
      });
      open.push(c);
      const result = await c.client.callTool({ name: 'connect-service', arguments: { service: 'jira' } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe('The user declined to give the information this tool needs.');
      expectModernRounds(c.wire, 'url', { action: 'decline' });
      const id = idOf(seen?.url, 'api-key');
      expect(await statusOf(id)).toBe('declined');
      await request(demo.url).get(`/elicit/${id}/api-key`).set(cookie('carla')).expect(409);
    });
  });

  describe('connect-service on 2025-11-25: -32042, page, completion notification, retry', () => {
    it.each(KINDS.filter((k) => !k.modern))('$name', async (kind) => {
      const u = `${kind.key}-dora`;
      const c = await connect(kind, u, () => Promise.resolve({ action: 'accept' }));
      const error = await c.callTool('connect-service', { service: 'github' }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(kind.key === 'v1' ? V1UrlElicitationRequiredError : V2UrlElicitationRequiredError);
      expect(error).toMatchObject({ code: -32042 });
      const elicitations = (error as { data: { elicitations: Array<Record<string, string>> } }).data.elicitations;
      expect(elicitations).toHaveLength(1);
      const [el] = elicitations;
      expect(el).toMatchObject({ mode: 'url', message: 'Enter your github API key so the assistant can connect to github for you.' });
      expect(el.elicitationId).toBe(idOf(el.url, 'api-key'));
      expect(await statusOf(el.elicitationId)).toBe('pending');

      const notified = c.completion(el.elicitationId);
      const page = await submitPage(el.url, { apiKey: SECRET, action: 'submit' }, u);
      expect(page.status).toBe(200);
      await notified;
      expect(c.completed).toEqual([el.elicitationId]);

      const retry = await c.callTool('connect-service', { service: 'github' });
      expect(textOf(retry)).toBe('Connected to github');
      expect(JSON.stringify(retry)).not.toContain(SECRET);
      expect(await statusOf(el.elicitationId)).toBe('completed');
    });
  });

  describe('2026-07-28 capabilities: a mode the request did not declare is never embedded; the question takes the next rung', () => {
    it.each<[string, V2Capabilities, string, Record<string, unknown>, RegExp]>([
      ['connect-service, form only (elicitation: {}): the form bridge', {}, 'connect-service', { service: 'github' }, /\/api-key$/],
      ['approve-deploy, form only (elicitation: {}): the form bridge', {}, 'approve-deploy', { app: 'shop' }, /\/confirm$/],
      ['delete-file, URL only: the hosted form page', { url: {} }, 'delete-file', { path: 'a.txt' }, /\/form$/],
    ])('%s', async (_, elicitation, tool, args, page) => {
      const u = `kim-${tool}-${Object.keys(elicitation ?? {}).join('') || 'empty'}`;
      const c = await connectV2Client(demo.mcpUrl, { user: u, elicitation, manual: true });
      open.push(c);
      const first = await c.callRaw(tool, args);
      expect(first.resultType).toBe('input_required');
      const [request] = Object.values(first.inputRequests);
      const declared = elicitation && 'url' in elicitation ? 'url' : 'form';
      expect(request.params.mode ?? 'form').toBe(declared);
      const url = declared === 'url' ? String(request.params.url) : /(http:\S+)/.exec(String(request.params.message))?.[1];
      expect(url).toMatch(page);
      const [created] = await service.list({ userId: u });
      expect(created.status).toBe('pending');
      expect(url).toContain(created.elicitationId);
    });

    it('connect-service without any elicitation capability: a link result (not an error) with the page URL', async () => {
      const u = 'kim-connect-service-none';
      const c = await connectV2Client(demo.mcpUrl, { user: u, elicitation: null });
      open.push(c);
      const result = await c.client.callTool({ name: 'connect-service', arguments: { service: 'github' } });
      expect(result.isError).toBeFalsy();
      const [created] = await service.list({ userId: u });
      expect(JSON.stringify(result.content)).toContain(`/elicit/${created.elicitationId}/api-key`);
    });
  });
});
