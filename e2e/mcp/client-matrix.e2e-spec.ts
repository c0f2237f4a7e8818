/**
 * The client matrix of the fallback ladder (issue #12), end to end against the demo app over HTTP: the
 * testing kit's real clients ({2025-11-25 on SDK 1.x, 2026-07-28 on SDK 2.x} × {form + URL, form only, no
 * elicitation}) call the demo tools, and every question reaches the person through the best rung the
 * client has (url, form-bridge, link; form for form questions). Pages are submitted with the kit's
 * `submitPage`, and in Chromium for one cell per era and page kind. Also: the contract checks, an
 * instantly-declining client with and without `instantDeclineMs`, the form bridge's re-asks and the
 * client's own decline, and a link-rung retry by another user.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { startDemoApp, type DemoApp } from '../../examples/demo/demo-app.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import {
  createElicitationTestClient,
  submitPage,
  type ElicitationTestClient,
  type ElicitationTestClientOptions,
  type PageFieldValue,
  type TestElicitAnswer,
  type TestElicitRequest,
  type TestToolResult,
} from '../../src/testing/index.js';
import { CHROMIUM, chromiumWanted, launchPageBrowser, type PageBrowser } from '../support/page-browser.js';
import { textOf } from '../support/mcp-client.js';

const ERAS = ['2025-11-25', '2026-07-28'] as const;

/** The three kinds of client, as the kit declares them. */
const CLIENTS = {
  'form+url': { form: true, url: true },
  form: { form: true },
  none: 'none',
} as const satisfies Record<string, ElicitationTestClientOptions['capabilities']>;
type ClientKind = keyof typeof CLIENTS;

type PageKind = 'api-key' | 'confirm' | 'form';
type Rung = 'url' | 'form-bridge' | 'link' | 'form';

const UUID_V4 = '[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}';
const API_KEY = 'ghp_MATRIX_TEST_KEY_0123456789';
/** The `_meta` key of a link result (the library's contract with programs reading results). */
const PENDING_META = 'nestjs-mcp-elicitation/pending';
/** The form bridge's one field. */
const BRIDGE_SCHEMA = {
  type: 'object',
  properties: { finished: { type: 'boolean', title: 'I have finished on the page', default: false } },
  required: ['finished'],
};
const STILL_OPEN = 'The page does not have your answer yet';

const DONE_TEXT: Record<PageKind, string> = {
  'api-key': 'Thank you. The API key was received.',
  confirm: 'Thank you. Your confirmation was received.',
  form: 'Thank you. Your answers were received.',
};

const PROFILE = { displayName: 'Ada Lovelace', email: 'ada@example.com', plan: 'team', interests: ['ai', 'ops'] };

/** One demo tool call and how the person answers it. */
interface Scenario {
  /** How the row reads in the test name. */
  label: string;
  tool: 'connect-service' | 'approve-deploy' | 'delete-file' | 'configure-profile';
  args: Record<string, unknown>;
  /** `page`: requireAnswer / requestUrl; `form`: elicit (form mode, else the hosted form page). */
  question: 'page' | 'form';
  page: PageKind;
  /** The tool's message (the question's, and the page's). */
  message: string;
  /** What the person does on the page (`action: 'cancel'` declines it). */
  onPage: Record<string, PageFieldValue>;
  /** The same in the browser: fills the page (the primary button is then clicked). */
  inBrowser?: (page: Page) => Promise<void>;
  /** A form question asked in form mode: the client's answer. */
  inForm?: TestElicitAnswer;
  /** The tool's output once the person has answered. */
  expected: string;
  /** A declined scenario: the page's elicitation ends declined. */
  declines?: boolean;
  /** The next identical call asks anew once a link outcome was used (false: connect-service keeps the stored key). */
  spent: boolean;
}

const SCENARIOS: Scenario[] = [
  {
    label: 'connect-service',
    tool: 'connect-service',
    args: { service: 'github' },
    question: 'page',
    page: 'api-key',
    message: 'Enter your github API key so the assistant can connect to github for you.',
    onPage: { apiKey: API_KEY },
    inBrowser: (page) => page.getByLabel('API key', { exact: true }).fill(API_KEY),
    expected: 'Connected to github',
    spent: false,
  },
  {
    label: 'approve-deploy',
    tool: 'approve-deploy',
    args: { app: 'shop' },
    question: 'page',
    page: 'confirm',
    message: 'Deploy shop to production?',
    onPage: {},
    inBrowser: () => Promise.resolve(),
    expected: 'Deployed shop',
    spent: true,
  },
  {
    label: 'approve-deploy (declined)',
    tool: 'approve-deploy',
    args: { app: 'shop' },
    question: 'page',
    page: 'confirm',
    message: 'Deploy shop to production?',
    onPage: { action: 'cancel' },
    expected: 'Deployment cancelled',
    declines: true,
    spent: true,
  },
  {
    label: 'delete-file',
    tool: 'delete-file',
    args: { path: '/tmp/report.txt' },
    question: 'form',
    page: 'form',
    message: 'Delete /tmp/report.txt?',
    onPage: { confirmed: true },
    inForm: { action: 'accept', content: { confirmed: true } },
    expected: 'Deleted /tmp/report.txt',
    spent: true,
  },
  {
    label: 'delete-file (declined)',
    tool: 'delete-file',
    args: { path: '/tmp/report.txt' },
    question: 'form',
    page: 'form',
    message: 'Delete /tmp/report.txt?',
    onPage: { action: 'cancel' },
    inForm: { action: 'decline' },
    expected: 'Cancelled',
    declines: true,
    spent: true,
  },
  {
    label: 'configure-profile',
    tool: 'configure-profile',
    args: {},
    question: 'form',
    page: 'form',
    message: 'Set up your profile',
    onPage: PROFILE,
    inBrowser: async (page) => {
      await page.getByLabel('Display name').fill(PROFILE.displayName);
      await page.getByLabel('E-mail').fill(PROFILE.email);
      await page.getByLabel('Plan').selectOption(PROFILE.plan);
      const interests = page.getByRole('group', { name: 'Interests' });
      for (const interest of PROFILE.interests) await interests.getByLabel(interest, { exact: true }).check();
    },
    inForm: { action: 'accept', content: PROFILE },
    expected: 'Profile saved for Ada Lovelace (team plan, interests: ai, ops)',
    spent: true,
  },
];

/** The cells whose page is submitted in Chromium: one per era and page kind (api-key, confirm, hosted form). */
const IN_BROWSER: ReadonlyArray<[ClientKind, Scenario['label']]> = [
  ['form', 'connect-service'],
  ['form+url', 'approve-deploy'],
  ['none', 'configure-profile'],
];

/** The rung a question takes for a client (the default ladders). */
function rungOf(scenario: Scenario, client: ClientKind): Rung {
  if (scenario.question === 'form') return client === 'none' ? 'link' : 'form';
  return client === 'form+url' ? 'url' : client === 'form' ? 'form-bridge' : 'link';
}

/** A promise a test opens by hand (an `answer` callback that holds until the page was submitted). */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

const isBridge = (request: TestElicitRequest): boolean =>
  request.mode === 'form' && request.requestedSchema?.properties !== undefined && 'finished' in request.requestedSchema.properties;

/** One running demo app and what the tests need of it. */
class DemoUnderTest {
  private readonly clients: ElicitationTestClient[] = [];

  constructor(readonly demo: DemoApp) {}

  static async start(options: Parameters<typeof startDemoApp>[0]): Promise<DemoUnderTest> {
    return new DemoUnderTest(await startDemoApp({ port: 0, logger: false, throttleLimit: 100_000, ...options }));
  }

  async connect(options: Omit<ElicitationTestClientOptions, 'url'>): Promise<ElicitationTestClient> {
    const client = await createElicitationTestClient({ url: this.demo.mcpUrl, ...options });
    this.clients.push(client);
    return client;
  }

  /** Signs `user` in on the demo (`/demo/login`) and returns the browser's cookie. */
  async signIn(user: string): Promise<string> {
    const res = await fetch(`${this.demo.url}/demo/login?user=${encodeURIComponent(user)}`, { redirect: 'manual' });
    expect(res.status).toBe(200);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('demo_user='));
    if (!cookie) throw new Error('the demo login set no demo_user cookie');
    return cookie.split(';')[0];
  }

  /** The elicitation id of one of the demo's page URLs (and a check that the URL is nothing else). */
  idOf(url: string | undefined, page: PageKind): string {
    const match = new RegExp(`^${this.demo.url.replace(/\./g, '\\.')}/elicit/(${UUID_V4})/${page}$`).exec(url ?? '');
    if (!match) throw new Error(`not a ${page} page URL of the demo: ${url}`);
    return match[1];
  }

  /** `user`'s elicitations, oldest first: id and status. */
  async elicitationsOf(user: string): Promise<Array<{ id: string; status: string }>> {
    const list = await this.demo.app.get(ElicitationService).list({ userId: user });
    return list.map((e) => ({ id: e.elicitationId, status: e.status }));
  }

  async close(): Promise<void> {
    await Promise.all(this.clients.map((c) => c.close().catch(() => undefined)));
    await this.demo.app.close();
  }
}

/** What a link result must look like: not an error, the URL in its text, structuredContent and `_meta`. */
function expectLinkResult(result: TestToolResult, tool: string, url: string, id: string): void {
  expect(result.isError).toBeFalsy();
  const text = textOf(result);
  expect(text).toContain(url);
  expect(text).toContain(`call the tool "${tool}" again with the same arguments`);
  const pending = { elicitationId: id, url, status: 'pending' };
  // The text again in structuredContent, for clients that give the model only that (Mastra).
  expect(result.structuredContent).toEqual({ ...pending, instructions: text });
  expect(result._meta?.[PENDING_META]).toEqual(pending);
}

/** The page URL a link result carries (structuredContent). */
function linkUrlOf(result: TestToolResult): string {
  const url = result.structuredContent?.url;
  if (typeof url !== 'string') throw new Error(`not a link result: ${JSON.stringify(result)}`);
  return url;
}

describe('the client matrix of the fallback ladder (demo app, testing kit)', () => {
  let main: DemoUnderTest;
  /** instantDeclineMs 2 s; a short pendingRetryWaitMs, so the form bridge's re-asks are quick. */
  let quick: DemoUnderTest;
  let browser: PageBrowser | undefined;

  beforeAll(async () => {
    // A 2026-07-28 retry (and a form bridge's "finished") waits up to 2 s for a pending page.
    [main, quick] = await Promise.all([
      DemoUnderTest.start({ pendingRetryWaitMs: 2_000 }),
      DemoUnderTest.start({ instantDeclineMs: 2_000, pendingRetryWaitMs: 300 }),
    ]);
    if (chromiumWanted()) browser = await launchPageBrowser();
    else console.warn(`client-matrix: ${CHROMIUM} not found, the browser cells submit their pages over HTTP (submitPage) instead.`);
  });
  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    await Promise.all([main?.close(), quick?.close()]);
  });

  /** Submits a page as `user`: in Chromium for the browser cells, with the kit's `submitPage` otherwise. */
  async function answerOnPage(demo: DemoUnderTest, url: string, user: string, scenario: Scenario, viaBrowser = false) {
    if (viaBrowser && browser && scenario.inBrowser) {
      const submitted = await browser.submit(url, user, scenario.inBrowser);
      expect(submitted.errors).toEqual([]);
      return submitted;
    }
    return submitPage(url, scenario.onPage, { cookie: await demo.signIn(user) });
  }

  async function expectPageAnswered(demo: DemoUnderTest, url: string, user: string, scenario: Scenario, viaBrowser = false) {
    const page = await answerOnPage(demo, url, user, scenario, viaBrowser);
    expect(page.status).toBe(200);
    expect(page.text).toContain(scenario.declines ? 'You declined the request.' : DONE_TEXT[scenario.page]);
  }

  describe.each(ERAS)('%s', (era) => {
    const cells = (Object.keys(CLIENTS) as ClientKind[]).flatMap((client) =>
      SCENARIOS.map((scenario) => ({ client, scenario, rung: rungOf(scenario, client) })),
    );

    it.each(cells)('$client client × $scenario.label → $rung', async ({ client: kind, scenario, rung }) => {
      const user = `${era}-${kind}-${scenario.label}`.replace(/[^a-z0-9-]+/g, '-');
      const viaBrowser = IN_BROWSER.some(([k, label]) => k === kind && label === scenario.label);
      const bridge = gate();
      const client = await main.connect({
        era,
        user,
        capabilities: CLIENTS[kind],
        answer: async (request) => {
          if (request.mode === 'url') return { action: 'accept' };
          if (isBridge(request)) {
            // The person goes to the page first; they tick "I have finished" once it was submitted.
            await bridge.opened;
            return { action: 'accept', content: { finished: true } };
          }
          return scenario.inForm ?? { action: 'decline' };
        },
      });
      try {
        const call = () => client.callTool(scenario.tool, scenario.args);
        const finalStatus = scenario.declines ? 'declined' : 'completed';

        if (rung === 'form') {
          // The form question in form mode: no page at all.
          expect(textOf(await call())).toBe(scenario.expected);
          expect(client.requests).toEqual([
            { mode: 'form', message: scenario.message, requestedSchema: expect.objectContaining({ type: 'object' }) },
          ]);
          expect(client.urls).toEqual([]);
          expect(await main.elicitationsOf(user)).toEqual([]);
          return;
        }

        if (rung === 'link') {
          // A normal result with the URL; the same URL again until the page is submitted; then the output.
          const first = await call();
          const url = linkUrlOf(first);
          const id = main.idOf(url, scenario.page);
          expectLinkResult(first, scenario.tool, url, id);
          expect(textOf(first)).toContain(scenario.message);
          const again = await call();
          expectLinkResult(again, scenario.tool, url, id);
          expect(await main.elicitationsOf(user)).toEqual([{ id, status: 'pending' }]);

          await expectPageAnswered(main, url, user, scenario, viaBrowser);
          const answered = await call();
          expect(answered.isError).toBeFalsy();
          expect(textOf(answered)).toBe(scenario.expected);
          expect(await main.elicitationsOf(user)).toEqual([{ id, status: finalStatus }]);

          // The outcome was used by that call: the next identical call asks anew (connect-service: the stored key).
          const next = await call();
          if (scenario.spent) {
            const nextUrl = linkUrlOf(next);
            expect(nextUrl).not.toBe(url);
            expectLinkResult(next, scenario.tool, nextUrl, main.idOf(nextUrl, scenario.page));
            expect(await main.elicitationsOf(user)).toEqual([
              { id, status: finalStatus },
              { id: main.idOf(nextUrl, scenario.page), status: 'pending' },
            ]);
          } else {
            expect(textOf(next)).toBe(scenario.expected);
          }
          expect(client.requests).toEqual([]);
          return;
        }

        if (rung === 'form-bridge') {
          // A form-mode question carrying the page URL; the call waits while the person is on the page.
          const pending = call();
          pending.catch(() => undefined);
          const url = await client.waitForUrl();
          const id = main.idOf(url, scenario.page);
          expect(client.requests).toEqual([{ mode: 'form', message: expect.stringContaining(url), requestedSchema: BRIDGE_SCHEMA }]);
          expect(client.requests[0].message).toContain(scenario.message);
          try {
            await expectPageAnswered(main, url, user, scenario, viaBrowser);
          } finally {
            bridge.open();
          }
          expect(textOf(await pending)).toBe(scenario.expected);
          expect(await main.elicitationsOf(user)).toEqual([{ id, status: finalStatus }]);
          expect(client.requests).toHaveLength(1);
          return;
        }

        // url: 2025-11-25 requireAnswer fails with -32042 and the retry finds the key; otherwise the call waits.
        if (era === '2025-11-25' && scenario.tool === 'connect-service') {
          await expect(call()).rejects.toMatchObject({ code: -32042 });
          const url = client.lastUrl()!;
          const id = main.idOf(url, scenario.page);
          await expectPageAnswered(main, url, user, scenario, viaBrowser);
          await client.completion(id);
          expect(textOf(await call())).toBe(scenario.expected);
          expect(client.requests).toEqual([]);
          return;
        }
        const pending = call();
        pending.catch(() => undefined);
        const url = await client.waitForUrl();
        const id = main.idOf(url, scenario.page);
        await expectPageAnswered(main, url, user, scenario, viaBrowser);
        expect(textOf(await pending)).toBe(scenario.expected);
        expect(await main.elicitationsOf(user)).toEqual([{ id, status: finalStatus }]);
        expect(client.requests).toEqual([
          { mode: 'url', message: scenario.message, url, ...(era === '2025-11-25' ? { elicitationId: id } : {}) },
        ]);
      } finally {
        bridge.open();
      }
    });
  });

  describe.each(ERAS)('the contract checks of issue #12 on %s', (era) => {
    it('a form-only client (elicitation: {}) calling connect-service gets a form-mode question with the api-key URL; once the page is submitted and the client accepts, the same call returns Connected', async () => {
      const user = `${era}-contract-form-only`;
      const finished = gate();
      const client = await main.connect({
        era,
        user,
        capabilities: {},
        answer: async () => {
          await finished.opened;
          return { action: 'accept', content: { finished: true } };
        },
      });
      try {
        const call = client.callTool('connect-service', { service: 'gitlab' });
        call.catch(() => undefined);
        const url = await client.waitForUrl();
        const id = main.idOf(url, 'api-key');
        expect(url).toMatch(/\/elicit\/[0-9a-f-]{36}\/api-key$/);
        expect(client.requests).toEqual([{ mode: 'form', message: expect.stringContaining(url), requestedSchema: BRIDGE_SCHEMA }]);
        // The client's answer is still held: the page comes first.
        const page = await submitPage(url, { apiKey: API_KEY }, { cookie: await main.signIn(user) });
        expect(page).toEqual({ status: 200, text: expect.stringContaining(DONE_TEXT['api-key']) });
        finished.open();
        expect(textOf(await call)).toBe('Connected to gitlab');
        expect(await main.elicitationsOf(user)).toEqual([{ id, status: 'completed' }]);
      } finally {
        finished.open();
      }
    });

    it('a client with no elicitation calling connect-service gets a non-error result with the page URL, the same URL before submission, and Connected after', async () => {
      const user = `${era}-contract-none`;
      const client = await main.connect({ era, user, capabilities: 'none' });
      const first = await client.callTool('connect-service', { service: 'gitlab' });
      expect(first.isError).toBeFalsy();
      const url = linkUrlOf(first);
      const id = main.idOf(url, 'api-key');
      expect(textOf(first)).toContain(url);

      const again = await client.callTool('connect-service', { service: 'gitlab' });
      expect(again.isError).toBeFalsy();
      expect(textOf(again)).toContain(url);
      expect(linkUrlOf(again)).toBe(url);
      expect(await main.elicitationsOf(user)).toEqual([{ id, status: 'pending' }]);

      expect((await submitPage(url, { apiKey: API_KEY }, { cookie: await main.signIn(user) })).status).toBe(200);
      const done = await client.callTool('connect-service', { service: 'gitlab' });
      expect(done.isError).toBeFalsy();
      expect(textOf(done)).toBe('Connected to gitlab');
      expect(client.urls).toEqual([url]);
    });
  });

  describe('an instantly-declining client on 2025-11-25', () => {
    const era = '2025-11-25';
    const decline = (): TestElicitAnswer => ({ action: 'decline' });
    const byLabel = (label: string) => SCENARIOS.find((s) => s.label === label)!;
    const cases: Array<{ client: ClientKind; scenario: Scenario; without: (result: TestToolResult) => void }> = [
      { client: 'form+url', scenario: byLabel('approve-deploy'), without: (r) => expect(textOf(r)).toBe('Deployment cancelled') },
      { client: 'form', scenario: byLabel('approve-deploy'), without: (r) => expect(textOf(r)).toBe('Deployment cancelled') },
      {
        client: 'form',
        scenario: byLabel('connect-service'),
        without: (r) => {
          expect(r.isError).toBe(true);
          expect(textOf(r)).toContain('declined');
        },
      },
      { client: 'form+url', scenario: byLabel('delete-file'), without: (r) => expect(textOf(r)).toBe('Cancelled') },
    ];

    it.each(cases)(
      'without instantDeclineMs: the decline ends it ($client client × $scenario.label)',
      async ({ client: kind, scenario, without }) => {
        const user = `${era}-instant-off-${kind}-${scenario.tool}`.replace('+', '-');
        const client = await main.connect({ era, user, capabilities: CLIENTS[kind], answer: decline });
        without(await client.callTool(scenario.tool, scenario.args));
        expect(client.requests).toHaveLength(1);
        const ended = await main.elicitationsOf(user);
        expect(ended.every((e) => e.status === 'declined')).toBe(true);
      },
    );

    it.each(cases)(
      'with instantDeclineMs: a link whose URL then works ($client client × $scenario.label)',
      async ({ client: kind, scenario }) => {
        const user = `${era}-instant-on-${kind}-${scenario.tool}`.replace('+', '-');
        const client = await quick.connect({ era, user, capabilities: CLIENTS[kind], answer: decline });
        const first = await client.callTool(scenario.tool, scenario.args);
        const url = linkUrlOf(first);
        const id = quick.idOf(url, scenario.page);
        expectLinkResult(first, scenario.tool, url, id);
        expect(client.requests).toHaveLength(1);
        // A page question keeps the page the declined request showed.
        if (scenario.question === 'page') expect(client.urls).toEqual([url]);
        expect(await quick.elicitationsOf(user)).toEqual([{ id, status: 'pending' }]);

        await expectPageAnswered(quick, url, user, scenario);
        const done = await client.callTool(scenario.tool, scenario.args);
        expect(done.isError).toBeFalsy();
        expect(textOf(done)).toBe(scenario.expected);
        expect((await quick.elicitationsOf(user))[0]).toEqual({ id, status: 'completed' });
      },
    );
  });

  describe.each(ERAS)('the form bridge on %s', (era) => {
    /** A form-only client whose person ticks "I have finished" without having been on the page. */
    const hastyClient = (user: string) =>
      quick.connect({ era, user, capabilities: { form: true }, answer: () => ({ action: 'accept', content: { finished: true } }) });

    it('asks again while the page has no answer ("The page does not have your answer yet"), up to 3 times, then gives the link', async () => {
      const user = `${era}-bridge-reask`;
      const client = await hastyClient(user);
      const result = await client.callTool('approve-deploy', { app: 'shop' });
      expect(client.requests).toHaveLength(3);
      const url = client.urls[0];
      const id = quick.idOf(url, 'confirm');
      expect(client.requests.map((r) => r.message.includes(STILL_OPEN))).toEqual([false, true, true]);
      for (const request of client.requests)
        expect(request).toEqual({ mode: 'form', message: expect.stringContaining(url), requestedSchema: BRIDGE_SCHEMA });
      expectLinkResult(result, 'approve-deploy', url, id);
      expect(await quick.elicitationsOf(user)).toEqual([{ id, status: 'pending' }]);
    });

    it("after the bridge gave up, the link's URL works: the page submitted, calling again deploys", async () => {
      const user = `${era}-bridge-then-link`;
      const client = await hastyClient(user);
      const url = linkUrlOf(await client.callTool('approve-deploy', { app: 'shop' }));
      const id = quick.idOf(url, 'confirm');
      expect((await submitPage(url, {}, { cookie: await quick.signIn(user) })).status).toBe(200);
      expect(textOf(await client.callTool('approve-deploy', { app: 'shop' }))).toBe('Deployed shop');
      expect((await quick.elicitationsOf(user))[0]).toEqual({ id, status: 'completed' });
    });

    it.each([
      ['decline', 'declined'],
      ['cancel', 'cancelled'],
    ] as const)('the client answers %s: the elicitation ends %s and approve-deploy says Deployment cancelled', async (action, status) => {
      const user = `${era}-bridge-${action}`;
      const client = await main.connect({ era, user, capabilities: { form: true }, answer: () => ({ action }) });
      expect(textOf(await client.callTool('approve-deploy', { app: 'shop' }))).toBe('Deployment cancelled');
      const url = client.urls[0];
      expect(await main.elicitationsOf(user)).toEqual([{ id: main.idOf(url, 'confirm'), status }]);
    });

    it('the client declines connect-service: a tool error saying it was declined', async () => {
      const user = `${era}-bridge-decline-key`;
      const client = await main.connect({ era, user, capabilities: { form: true }, answer: () => ({ action: 'decline' }) });
      const result = await client.callTool('connect-service', { service: 'github' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('declined');
      expect(await main.elicitationsOf(user)).toEqual([{ id: main.idOf(client.urls[0], 'api-key'), status: 'declined' }]);
    });
  });

  describe.each(ERAS)('a link-rung retry by another user on %s', (era) => {
    const rows: Array<{
      tool: string;
      args: Record<string, unknown>;
      page: PageKind;
      fields: Record<string, PageFieldValue>;
      expected: string;
    }> = [
      { tool: 'connect-service', args: { service: 'jira' }, page: 'api-key', fields: { apiKey: API_KEY }, expected: 'Connected to jira' },
      { tool: 'approve-deploy', args: { app: 'billing' }, page: 'confirm', fields: {}, expected: 'Deployed billing' },
    ];
    it.each(rows)('$tool: gets its own question, never the first user’s URL or answer', async ({ tool, args, page, fields, expected }) => {
      const [alice, bob] = [`${era}-owner-${tool}`, `${era}-other-${tool}`];
      const aliceClient = await main.connect({ era, user: alice, capabilities: 'none' });
      const bobClient = await main.connect({ era, user: bob, capabilities: 'none' });

      const aliceUrl = linkUrlOf(await aliceClient.callTool(tool, args));
      const aliceId = main.idOf(aliceUrl, page);
      const bobFirst = await bobClient.callTool(tool, args);
      const bobUrl = linkUrlOf(bobFirst);
      expect(bobUrl).not.toBe(aliceUrl);
      expectLinkResult(bobFirst, tool, bobUrl, main.idOf(bobUrl, page));
      expect(await main.elicitationsOf(alice)).toEqual([{ id: aliceId, status: 'pending' }]);

      // Bob's browser cannot answer Alice's page; Alice answers it; Bob's retry still gets only his own page.
      const bobCookie = await main.signIn(bob);
      expect((await submitPage(aliceUrl, fields, { cookie: bobCookie })).status).toBe(403);
      expect((await submitPage(aliceUrl, fields, { cookie: await main.signIn(alice) })).status).toBe(200);
      const bobAgain = await bobClient.callTool(tool, args);
      expect(bobAgain.isError).toBeFalsy();
      expect(linkUrlOf(bobAgain)).toBe(bobUrl);
      expect(textOf(bobAgain)).not.toContain(expected);
      expect(await main.elicitationsOf(bob)).toEqual([{ id: main.idOf(bobUrl, page), status: 'pending' }]);

      expect(await main.elicitationsOf(alice)).toEqual([{ id: aliceId, status: 'completed' }]);
      expect(textOf(await aliceClient.callTool(tool, args))).toBe(expected);
    });
  });
});
