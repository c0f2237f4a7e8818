/**
 * CSRF as people use the pages (issue 19 §4), in the attack suite's style: a real app over real HTTP on Express
 * and on Fastify, and one real browser. A page opened in two tabs keeps both forms valid until the elicitation
 * is answered, while every refusal still holds (cross-site, forged, another elicitation's, another browser's or
 * another user's token, a planted cookie, a replay after the end). The module's routes are served at their
 * canonical spelling only: another spelling of a page GET is a 308 to it. A refused post says to reload the page.
 *
 * `Browser` below is a cookie jar that behaves as a browser's does: one value per cookie name and path (the
 * last one set wins), sent only to paths it matches (case-sensitively), longer paths first.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import formbody from '@fastify/formbody';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { ElicitationModule } from '../../src/module/elicitation.module.js';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { ElicitationStore } from '../../src/stores/elicitation-store.js';
import { freePort } from '../../examples/demo/demo-process.js';
import { PAGE_CSP, pageTestOptions } from '../support/page-app.js';
import { browserIt, launchChromium } from '../support/page-browser.js';
import { assetTag } from '../../test/support/page-assets.js';

const HTML = 'text/html; charset=utf-8';
const ENCRYPTION_KEY = randomBytes(32).toString('base64');
const CSRF_HEADING = 'This form has expired';
const CSRF_TEXT = 'This form has expired or was not sent from this site. Nothing was saved. Reload the page and try again.';
const OTHER_USER_HEADING = 'Not your request';

type Adapter = 'express' | 'fastify';

interface Started {
  app: INestApplication;
  server: Server;
  origin: string;
  service: ElicitationService;
  /** `ElicitationStore.get` calls since the last reset (the real method still runs). */
  storeGets: () => number;
  resetStoreGets: () => void;
}

/** The module in a real app on `adapter`, listening on `port` (0: any), with the header identity of page tests. */
async function startApp(
  adapter: Adapter,
  options: Partial<ElicitationModuleOptions> & Record<string, unknown> = {},
  port = 0,
): Promise<Started> {
  const testing = await Test.createTestingModule({
    imports: [ElicitationModule.forRoot(pageTestOptions({ encryptionKey: ENCRYPTION_KEY, ...options }))],
  }).compile();
  let app: INestApplication;
  if (adapter === 'fastify') {
    // As the demo does: urlencoded posts through @fastify/formbody, Nest's own parsers left out.
    const fastify = testing.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false, bodyParser: false });
    await fastify.register(formbody);
    app = fastify;
  } else {
    app = testing.createNestApplication({ logger: false });
  }
  await app.listen(port, '127.0.0.1');
  const server = app.getHttpServer() as Server;
  const store = app.get(ElicitationStore);
  const spy = jest.spyOn(store, 'get');
  return {
    app,
    server,
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    service: app.get(ElicitationService),
    storeGets: () => spy.mock.calls.length,
    resetStoreGets: () => spy.mockClear(),
  };
}

/** A cookie as a browser keeps it: one value per name and path. */
interface JarCookie {
  name: string;
  value: string;
  path: string;
}

/** RFC 6265 path-match, case-sensitive as browsers do it. */
const pathMatches = (cookiePath: string, requestPath: string): boolean =>
  requestPath === cookiePath ||
  (requestPath.startsWith(cookiePath) && (cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/'));

/** A page as a tab holds it: the form's CSRF token, and the response that rendered it. */
interface Tab {
  token: string;
  res: request.Response;
}

/**
 * One browser profile: its cookies and who it is signed in as (the `x-test-user` header of page tests). Tabs
 * share the jar, so a later render's cookie replaces an earlier one of the same name and path, as in a browser.
 */
class Browser {
  readonly cookies: JarCookie[] = [];

  constructor(
    private readonly server: Server,
    readonly user: string | undefined,
  ) {}

  /** The Cookie header a browser sends to `path`: matching cookies, longer paths first. */
  cookieHeader(path: string): string | undefined {
    const sent = this.cookies.filter((c) => pathMatches(c.path, path)).sort((a, b) => b.path.length - a.path.length);
    return sent.length ? sent.map((c) => `${c.name}=${c.value}`).join('; ') : undefined;
  }

  /** Stores a cookie as a browser does: replaces the one of the same name and path (Max-Age=0 deletes it). */
  keep(name: string, value: string, path: string, maxAge = 1): void {
    const at = this.cookies.findIndex((c) => c.name === name && c.path === path);
    if (at >= 0) this.cookies.splice(at, 1);
    if (maxAge > 0) this.cookies.push({ name, value, path });
  }

  private headersFor(path: string, extra: Record<string, string> = {}): Record<string, string> {
    const cookie = this.cookieHeader(path);
    return { ...(this.user ? { 'x-test-user': this.user } : {}), ...(cookie ? { Cookie: cookie } : {}), ...extra };
  }

  private absorb(res: request.Response): void {
    for (const line of ([] as string[]).concat(res.headers['set-cookie'] ?? [])) {
      const [pair, ...attributes] = line.split(';').map((part) => part.trim());
      const eq = pair.indexOf('=');
      const attr = (name: string) => attributes.find((a) => a.toLowerCase().startsWith(`${name}=`))?.split('=')[1];
      this.keep(pair.slice(0, eq), pair.slice(eq + 1), attr('path') ?? '/', Number(attr('max-age') ?? 1));
    }
  }

  /** GETs `path` (no redirect followed) and keeps the cookies it sets. */
  async get(path: string): Promise<request.Response> {
    const res = await request(this.server).get(path).set(this.headersFor(path)).redirects(0);
    this.absorb(res);
    return res;
  }

  /** Opens a page in a new tab: GET, then read the form's token. Throws when no form was rendered. */
  async open(path: string): Promise<Tab> {
    const res = await this.get(path);
    const token = /name="_csrf" value="([^"]+)"/.exec(res.text)?.[1];
    if (res.status !== 200 || !token) throw new Error(`no form on ${path} (status ${res.status})`);
    return { token, res };
  }

  /** Submits a tab's form with what the browser holds now (its cookies), and `headers` a browser would add. */
  async submit(
    path: string,
    tab: Pick<Tab, 'token'>,
    form: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<request.Response> {
    const res = await request(this.server)
      .post(path)
      .set(this.headersFor(path, headers))
      .type('form')
      .send({ ...form, _csrf: tab.token })
      .redirects(0);
    this.absorb(res);
    return res;
  }
}

/** The CSRF cookie a response set, as `name=value`. */
const csrfCookieOf = (res: request.Response): string | undefined =>
  ([] as string[])
    .concat(res.headers['set-cookie'] ?? [])
    .find((c) => c.startsWith('elicit_csrf='))
    ?.split(';')[0];

/** The CSRF cookie's scope for a page: the elicitation's own path, `/elicit/<id>`. */
const scopeOf = (pagePath: string) => pagePath.slice(0, pagePath.lastIndexOf('/'));

const headingOf = (res: request.Response): string | undefined => /<h1[^>]*>([^<]*)<\/h1>/.exec(res.text)?.[1];

/** An HTML error page of the module: status, the page's security headers, heading and text. */
function expectErrorPage(res: request.Response, status: number, heading: string, text?: string): void {
  expect({ status: res.status, heading: headingOf(res) }).toEqual({ status, heading });
  expect(res.headers['content-type']).toBe(HTML);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['content-security-policy']).toMatch(PAGE_CSP);
  // The page's one style and one script run under the CSP's nonce; nothing else is there.
  const nonce = PAGE_CSP.exec(res.headers['content-security-policy'])?.[1];
  expect(res.text.match(/<style\b[^>]*>/g)).toEqual([`<style nonce="${nonce}">`]);
  expect(res.text.match(/<script\b[^>]*>/g)).toEqual([expect.stringMatching(assetTag('script', nonce!, 'js'))]);
  expect(res.text.match(/<link\b[^>]*>/g)).toEqual([expect.stringMatching(assetTag('link', nonce!, 'css'))]);
  expect(res.headers['x-frame-options']).toBe('DENY');
  expect(res.headers['referrer-policy']).toBe('no-referrer');
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.text).toContain(`Status ${status}.`);
  if (text) expect(res.text).toContain(text);
}

describe.each<Adapter>(['express', 'fastify'])('CSRF as people use the pages, on %s', (adapter) => {
  let s: Started;

  beforeAll(async () => {
    s = await startApp(adapter);
  });
  afterAll(async () => {
    await s.app.close();
  });
  beforeEach(() => s.resetStoreGets());

  const create = (kind: 'api-key' | 'confirm' | 'form' = 'api-key', extra: Record<string, unknown> = {}) =>
    s.service.createUrlElicitation({ kind, message: 'Enter your GitHub API key', userId: 'alice', ...extra });
  const pathOf = (url: string) => new URL(url).pathname;
  const browser = (user: string | undefined = 'alice') => new Browser(s.server, user);
  const expectPending = async (id: string) => {
    expect(await s.service.getResult(id)).toEqual({ status: 'pending' });
    expect((await s.service.getStatus(id))?.status).toBe('pending');
  };
  /** A refused post: the CSRF page (echoing nothing that was posted), before any store read, nothing changed. */
  const expectCsrfRefused = async (res: request.Response, id: string) => {
    expectErrorPage(res, 403, CSRF_HEADING, CSRF_TEXT);
    // Nothing posted is echoed (the posted keys all start with sk-); the style and script nonces are random
    // base64url, which may hold those three characters by chance.
    expect(res.text.replace(/nonce="[^"]*"/g, 'nonce=""')).not.toContain('sk-');
    expect(s.storeGets()).toBe(0);
    await expectPending(id);
    s.resetStoreGets();
  };

  describe('two tabs', () => {
    it('keeps the first tab valid after a second tab opened the page (the browser holds only the last cookie)', async () => {
      const created = await create();
      const path = pathOf(created.url);
      const alice = browser();
      const first = await alice.open(path);
      const second = await alice.open(path);
      // The second render kept the browser's nonce: one cookie, the same value, refreshed.
      expect(csrfCookieOf(second.res)).toBe(csrfCookieOf(first.res));
      expect(alice.cookies).toEqual([{ name: 'elicit_csrf', value: csrfCookieOf(first.res)!.split('=')[1], path: scopeOf(path) }]);
      const res = await alice.submit(path, first, { apiKey: 'sk-from-the-first-tab', action: 'submit' });
      expect(res.status).toBe(200);
      expect(headingOf(res)).toBe('Done');
      expect(await s.service.getResult(created.elicitationId)).toEqual({ status: 'completed', data: { apiKey: 'sk-from-the-first-tab' } });
      // The second tab's form is valid as a form, but the request is answered: 409, the first answer kept.
      const late = await alice.submit(path, second, { apiKey: 'sk-from-the-second-tab', action: 'submit' });
      expectErrorPage(late, 409, 'Already answered', 'This request was already answered. Nothing was changed.');
      expect(await s.service.getResult(created.elicitationId)).toEqual({ status: 'completed', data: { apiKey: 'sk-from-the-first-tab' } });
    });

    it('works in either order, with three tabs, and on the confirm page', async () => {
      const created = await create('confirm', { message: 'Deploy shop?' });
      const path = pathOf(created.url);
      const alice = browser();
      const tabs = [await alice.open(path), await alice.open(path), await alice.open(path)];
      const res = await alice.submit(path, tabs[1], { action: 'cancel' });
      expect(res.status).toBe(200);
      expect(await s.service.getResult(created.elicitationId)).toEqual({ status: 'declined' });
      for (const tab of [tabs[0], tabs[2]]) {
        expectErrorPage(await alice.submit(path, tab, { action: 'confirm' }), 409, 'Already declined');
      }
      expect(await s.service.getResult(created.elicitationId)).toEqual({ status: 'declined' });
    });

    it('keeps the other tab valid after a refused hosted form was shown again in one tab', async () => {
      const form = {
        type: 'object' as const,
        properties: { team: { type: 'string' as const, title: 'Team', minLength: 2 } },
        required: ['team'],
      };
      const created = await create('form', { form, message: 'Which team?' });
      const path = pathOf(created.url);
      const alice = browser();
      const first = await alice.open(path);
      const second = await alice.open(path);
      const invalid = await alice.submit(path, second, { team: 'x' });
      expect(invalid.status).toBe(400);
      expect(csrfCookieOf(invalid)).toBe(csrfCookieOf(first.res));
      const res = await alice.submit(path, first, { team: 'platform' });
      expect(res.status).toBe(200);
      expect(await s.service.getResult(created.elicitationId)).toEqual({ status: 'completed', data: { team: 'platform' } });
    });

    it("gives a second browser of the same user its own nonce: neither browser can post with the other one's token", async () => {
      const created = await create();
      const path = pathOf(created.url);
      const laptop = browser();
      const phone = browser();
      const onLaptop = await laptop.open(path);
      const onPhone = await phone.open(path);
      expect(csrfCookieOf(onPhone.res)).not.toBe(csrfCookieOf(onLaptop.res));
      s.resetStoreGets();
      await expectCsrfRefused(await phone.submit(path, onLaptop, { apiKey: 'sk-crossed', action: 'submit' }), created.elicitationId);
      await expectCsrfRefused(await laptop.submit(path, onPhone, { apiKey: 'sk-crossed', action: 'submit' }), created.elicitationId);
      expect((await phone.submit(path, onPhone, { apiKey: 'sk-phone', action: 'submit' })).status).toBe(200);
    });
  });

  describe('what is still refused', () => {
    let id: string;
    let path: string;
    let alice: Browser;
    let tabs: Tab[];

    beforeEach(async () => {
      const created = await create();
      id = created.elicitationId;
      path = pathOf(created.url);
      alice = browser();
      tabs = [await alice.open(path), await alice.open(path)];
      s.resetStoreGets();
    });

    it.each([
      ['Origin: another site', { Origin: 'https://evil.example' }],
      ['Origin: our host on another port', { Origin: 'http://127.0.0.1:3001' }],
      ['Sec-Fetch-Site: cross-site', { 'Sec-Fetch-Site': 'cross-site' }],
      ['Sec-Fetch-Site: same-site (a sibling subdomain)', { 'Sec-Fetch-Site': 'same-site' }],
    ])("a cross-site post with a tab's valid token and the browser's cookie (%s): 403", async (_, headers) => {
      for (const tab of tabs)
        await expectCsrfRefused(await alice.submit(path, tab, { apiKey: 'sk-cross-site', action: 'submit' }, headers), id);
    });

    it.each([
      ['a random token', () => randomBytes(32).toString('base64url')],
      ['no token', () => ''],
      ["the browser's nonce itself", () => alice.cookies[0].value],
      ['a tab token with one character changed', () => tabs[0].token.slice(0, -1) + (tabs[0].token.endsWith('A') ? 'B' : 'A')],
    ])('a forged token (%s): 403', async (_, forge) => {
      await expectCsrfRefused(await alice.submit(path, { token: forge() }, { apiKey: 'sk-forged', action: 'submit' }), id);
    });

    it("the browser's cookie without any token field: 403", async () => {
      const res = await request(s.server)
        .post(path)
        .set({ 'x-test-user': 'alice', Cookie: alice.cookieHeader(path)! })
        .type('form')
        .send({ apiKey: 'sk-no-token', action: 'submit' });
      await expectCsrfRefused(res, id);
    });

    it("a valid token without the browser's cookie, or with a cookie nonce the server never paired with it: 403", async () => {
      const cookieless = browser();
      await expectCsrfRefused(await cookieless.submit(path, tabs[0], { apiKey: 'sk-no-cookie', action: 'submit' }), id);
      cookieless.keep('elicit_csrf', randomBytes(16).toString('base64url'), scopeOf(path));
      await expectCsrfRefused(await cookieless.submit(path, tabs[0], { apiKey: 'sk-other-nonce', action: 'submit' }), id);
    });

    it("another elicitation's token, from the same browser and user: 403, both still pending", async () => {
      const other = await create();
      const otherPath = pathOf(other.url);
      const otherTab = await alice.open(otherPath);
      s.resetStoreGets();
      // The browser sends this page's cookie only (the other one is scoped to the other path): the token does not match it.
      await expectCsrfRefused(await alice.submit(path, otherTab, { apiKey: 'sk-other-elicitation', action: 'submit' }), id);
      // Even with both cookies sent (e.g. planted on a wider path), a token binds its own elicitation.
      alice.keep('elicit_csrf', alice.cookies.find((c) => c.path === scopeOf(otherPath))!.value, '/elicit');
      await expectCsrfRefused(await alice.submit(path, otherTab, { apiKey: 'sk-other-elicitation', action: 'submit' }), id);
      await expectPending(other.elicitationId);
    });

    it("another browser user's post with alice's tab token and cookie: 403 Not your request; mallory never gets a form for it", async () => {
      const mallory = new Browser(s.server, 'mallory');
      for (const cookie of alice.cookies) mallory.keep(cookie.name, cookie.value, cookie.path);
      const stolen = await mallory.submit(path, tabs[0], { apiKey: 'sk-mallory', action: 'submit' });
      expectErrorPage(stolen, 403, OTHER_USER_HEADING, 'This request was made for a different account.');
      expect(csrfCookieOf(stolen)).toBeUndefined();
      const page = await mallory.get(path);
      expectErrorPage(page, 403, OTHER_USER_HEADING);
      expect(page.text).not.toContain('name="_csrf"');
      expect(csrfCookieOf(page)).toBeUndefined();
      // Mallory's own page, rendered with alice's nonce planted in her browser, gives a token for her elicitation only.
      const own = await s.service.createUrlElicitation({ kind: 'api-key', message: 'Yours', userId: 'mallory' });
      const ownPath = pathOf(own.url);
      mallory.keep('elicit_csrf', alice.cookies[0].value, scopeOf(ownPath));
      const ownTab = await mallory.open(ownPath);
      s.resetStoreGets();
      await expectCsrfRefused(await alice.submit(path, ownTab, { apiKey: 'sk-mallory-token', action: 'submit' }), id);
      await expectPending(own.elicitationId);
    });

    it('a cookie planted by a sibling subdomain (a longer path, sent first) neither breaks the tabs nor helps its planter', async () => {
      const created = await create();
      const victimPath = pathOf(created.url);
      const planted = randomBytes(16).toString('base64url');
      const victim = browser();
      victim.keep('elicit_csrf', planted, victimPath);
      const first = await victim.open(victimPath);
      const second = await victim.open(victimPath);
      s.resetStoreGets();
      // The planter knows its nonce but not the token for it, which only the victim's pages carry.
      for (const token of [randomBytes(32).toString('base64url'), planted, ''])
        await expectCsrfRefused(
          await victim.submit(victimPath, { token }, { apiKey: 'sk-planter', action: 'submit' }),
          created.elicitationId,
        );
      expect((await victim.submit(victimPath, first, { apiKey: 'sk-victim', action: 'submit' })).status).toBe(200);
      expect(await s.service.getResult(created.elicitationId)).toEqual({ status: 'completed', data: { apiKey: 'sk-victim' } });
      expectErrorPage(await victim.submit(victimPath, second, { apiKey: 'sk-victim-again', action: 'submit' }), 409, 'Already answered');
    });

    it("a tab's token replayed after the elicitation finished: 409, or 410 after it expired; nothing changed", async () => {
      expect((await alice.submit(path, tabs[1], { action: 'cancel' })).status).toBe(200);
      for (const tab of tabs) {
        const replay = await alice.submit(path, tab, { apiKey: 'sk-replayed', action: 'submit' });
        expectErrorPage(replay, 409, 'Already declined');
      }
      expect(await s.service.getResult(id)).toEqual({ status: 'declined' });
      const short = await create('api-key', { ttlMs: 200 });
      const shortPath = pathOf(short.url);
      const late = [await alice.open(shortPath), await alice.open(shortPath)];
      await new Promise((resolve) => setTimeout(resolve, 250));
      for (const tab of late)
        expectErrorPage(await alice.submit(shortPath, tab, { apiKey: 'sk-late', action: 'submit' }), 410, 'This request has expired');
      expect(await s.service.getResult(short.elicitationId)).toEqual({ status: 'expired' });
    });

    it('never builds the cookie from a malformed nonce the browser sent: a fresh one instead', async () => {
      const created = await create();
      const freshPath = pathOf(created.url);
      for (const bad of ['abc', `${'A'.repeat(22)}=`, 'A'.repeat(23), `${'A'.repeat(21)}%0D%0ASet-Cookie:x=1`]) {
        const b = browser();
        b.keep('elicit_csrf', bad, scopeOf(freshPath));
        const tab = await b.open(freshPath);
        expect(csrfCookieOf(tab.res)).toMatch(/^elicit_csrf=[A-Za-z0-9_-]{22}$/);
        expect(csrfCookieOf(tab.res)).not.toContain(bad);
        expect(([] as string[]).concat(tab.res.headers['set-cookie'] ?? [])).toHaveLength(1);
      }
    });
  });

  describe('the CSRF refusal page', () => {
    it('is headed "This form has expired" and says to reload (nothing read, nothing changed); another account\'s 403 keeps "Not your request"', async () => {
      const created = await create();
      const path = pathOf(created.url);
      s.resetStoreGets();
      // A post without any token or cookie.
      const res = await request(s.server).post(path).set('x-test-user', 'alice').type('form').send({ apiKey: 'sk-x', action: 'submit' });
      await expectCsrfRefused(res, created.elicitationId);
      expect(res.text).toContain(`<title>${CSRF_HEADING} ·`);
      expect(res.text).not.toContain(OTHER_USER_HEADING);
      expect(res.text).not.toContain('different account');
      const other = await request(s.server).get(path).set('x-test-user', 'mallory');
      expectErrorPage(other, 403, OTHER_USER_HEADING, 'This request was made for a different account.');
      expect(other.text).not.toContain(CSRF_HEADING);
    });
  });

  describe('the canonical path', () => {
    const spellings = (id: string, page: string): string[] => [
      `/ELICIT/${id}/${page}`,
      `/Elicit/${id}/${page}`,
      `/elicit/${id}/${page.toUpperCase()}`,
      `/elicit/${id}/${page}/`,
      `/elicit/${id}/${page}/?x=1`,
    ];

    it('a page GET at another spelling is a 308 to the canonical path (no cookie, no store read), or a 404', async () => {
      for (const kind of ['api-key', 'confirm'] as const) {
        const created = await create(kind);
        const canonical = pathOf(created.url);
        for (const spelling of spellings(created.elicitationId, kind)) {
          s.resetStoreGets();
          const res = await request(s.server).get(spelling).set('x-test-user', 'alice').redirects(0);
          if (adapter === 'express') {
            // Express matches routes case-insensitively and ignores a trailing slash: the module redirects.
            expect({ spelling, status: res.status, location: res.headers.location }).toEqual({
              spelling,
              status: 308,
              location: canonical,
            });
            expect(res.headers['cache-control']).toBe('no-store');
          } else {
            // Fastify's router is case-sensitive and strict about the trailing slash: no route at all.
            expect({ spelling, status: res.status }).toEqual({ spelling, status: 404 });
          }
          expect(res.headers['set-cookie']).toBeUndefined();
          expect(res.text).not.toContain('name="_csrf"');
          expect(s.storeGets()).toBe(0);
        }
        await expectPending(created.elicitationId);
      }
    });

    it('after opening the page at an upper-case URL, the browser follows the redirect and its post works', async () => {
      const created = await create();
      const canonical = pathOf(created.url);
      const alice = browser();
      const first = await alice.get(`/ELICIT/${created.elicitationId}/api-key`);
      if (adapter === 'express') {
        expect(first.status).toBe(308);
        expect(first.headers.location).toBe(canonical);
      } else {
        expect(first.status).toBe(404);
      }
      expect(alice.cookies).toEqual([]);
      const tab = await alice.open(canonical);
      const res = await alice.submit(canonical, tab, { apiKey: 'sk-after-redirect', action: 'submit' });
      expect(res.status).toBe(200);
      expect(await s.service.getResult(created.elicitationId)).toEqual({ status: 'completed', data: { apiKey: 'sk-after-redirect' } });
    });

    it('a post to another spelling is a 404 before any store read, even with a valid token and cookie; nothing changed', async () => {
      const created = await create();
      const canonical = pathOf(created.url);
      const alice = browser();
      const tab = await alice.open(canonical);
      const cookie = alice.cookieHeader(canonical)!;
      for (const spelling of spellings(created.elicitationId, 'api-key')) {
        s.resetStoreGets();
        const res = await request(s.server)
          .post(spelling)
          .set({ 'x-test-user': 'alice', Cookie: cookie })
          .type('form')
          .send({ apiKey: 'sk-elsewhere', action: 'submit', _csrf: tab.token })
          .redirects(0);
        expect({ spelling, status: res.status, location: res.headers.location }).toEqual({ spelling, status: 404, location: undefined });
        expect(s.storeGets()).toBe(0);
      }
      await expectPending(created.elicitationId);
    });
  });
});

describe('the canonical path with a routePrefix in capitals and a baseUrl path (Express)', () => {
  let s: Started;

  beforeAll(async () => {
    // As behind a proxy that strips `/shop`: the app sees `/Mcp/Elicit/…`, the browser uses `/shop/Mcp/Elicit/…`.
    s = await startApp('express', { baseUrl: 'http://127.0.0.1:3000/shop', routePrefix: 'Mcp/Elicit' });
  });
  afterAll(async () => {
    await s.app.close();
  });

  it('redirects another spelling to the configured spelling under the baseUrl path, and scopes the cookie there', async () => {
    const created = await s.service.createUrlElicitation({ kind: 'api-key', message: 'Key?', userId: 'alice' });
    const id = created.elicitationId;
    expect(new URL(created.url).pathname).toBe(`/shop/Mcp/Elicit/${id}/api-key`);
    const lower = await request(s.server).get(`/mcp/elicit/${id}/api-key`).set('x-test-user', 'alice').redirects(0);
    expect(lower.status).toBe(308);
    expect(lower.headers.location).toBe(`/shop/Mcp/Elicit/${id}/api-key`);
    const page = await request(s.server).get(`/Mcp/Elicit/${id}/api-key`).set('x-test-user', 'alice');
    expect(page.status).toBe(200);
    expect(csrfCookieOf(page)).toBeDefined();
    expect(([] as string[]).concat(page.headers['set-cookie'])[0]).toContain(`; Path=/shop/Mcp/Elicit/${id};`);
  });
});

const chromiumIt = browserIt('the two-tabs CSRF test in Chromium');

describe('two tabs in a real browser (Chromium)', () => {
  chromiumIt(
    'opens the api-key page in two tabs of one browser, submits from the first: done; the second then gets 409',
    async () => {
      const port = await freePort();
      const s = await startApp('express', { baseUrl: `http://127.0.0.1:${port}` }, port);
      const browser = await launchChromium();
      try {
        const created = await s.service.createUrlElicitation({ kind: 'api-key', message: 'Enter your GitHub API key', userId: 'alice' });
        // One profile, signed in as alice (the page tests' identity header), two tabs on the same link.
        const context = await browser.newContext({ extraHTTPHeaders: { 'x-test-user': 'alice' } });
        context.setDefaultTimeout(10_000);
        const first = await context.newPage();
        const second = await context.newPage();
        expect((await first.goto(created.url))?.status()).toBe(200);
        expect((await second.goto(created.url))?.status()).toBe(200);
        expect((await context.cookies(created.url)).filter((c) => c.name === 'elicit_csrf')).toHaveLength(1);

        await first.getByLabel('API key', { exact: true }).fill('sk-first-tab');
        const [posted] = await Promise.all([
          first.waitForResponse((r) => r.url() === created.url && r.request().method() === 'POST'),
          first.getByRole('button', { name: 'Submit', exact: true }).click(),
        ]);
        expect(posted.status()).toBe(200);
        await first.getByText('The API key was received').waitFor();
        expect(await first.locator('h1').textContent()).toBe('Done');
        expect(await s.service.getResult(created.elicitationId)).toEqual({ status: 'completed', data: { apiKey: 'sk-first-tab' } });

        await second.getByLabel('API key', { exact: true }).fill('sk-second-tab');
        const [late] = await Promise.all([
          second.waitForResponse((r) => r.url() === created.url && r.request().method() === 'POST'),
          second.getByRole('button', { name: 'Submit', exact: true }).click(),
        ]);
        expect(late.status()).toBe(409);
        await second.getByText('This request was already answered').waitFor();
        expect(await s.service.getResult(created.elicitationId)).toEqual({ status: 'completed', data: { apiKey: 'sk-first-tab' } });

        // And a typed upper-case link lands on the canonical page.
        const other = await s.service.createUrlElicitation({ kind: 'api-key', message: 'Another key', userId: 'alice' });
        const typed = other.url.replace('/elicit/', '/ELICIT/');
        expect((await first.goto(typed))?.status()).toBe(200);
        expect(first.url()).toBe(other.url);
        await first.getByLabel('API key', { exact: true }).fill('sk-typed');
        const [typedPost] = await Promise.all([
          first.waitForResponse((r) => r.url() === other.url && r.request().method() === 'POST'),
          first.getByRole('button', { name: 'Submit', exact: true }).click(),
        ]);
        expect(typedPost.status()).toBe(200);
        expect(await s.service.getResult(other.elicitationId)).toEqual({ status: 'completed', data: { apiKey: 'sk-typed' } });
      } finally {
        await browser.close();
        await s.app.close();
      }
    },
    60_000,
  );
});
