/**
 * Attack suite: a real app over real HTTP (a listening server, supertest and raw sockets), one attack per
 * case. Every case asserts the status, the content type and that nothing was stored or changed, through
 * `ElicitationService.getResult/getStatus/list` and, where the refusal must come before any store access,
 * a spy counting `ElicitationStore.get` calls.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Controller, Get, type INestApplication, type LoggerService, type Type } from '@nestjs/common';
import request from 'supertest';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import type { ElicitationEvent } from '../../src/core/elicitation.types.js';
import { UnsafeUrlError } from '../../src/errors/unsafe-url.error.js';
import { ElicitationEvents } from '../../src/events/elicitation-events.js';
import { displayText, MAX_BUTTON_LABEL_LENGTH, MAX_TITLE_LENGTH } from '../../src/security/display-text.js';
import { ElicitationStore } from '../../src/stores/elicitation-store.js';
import { MemoryElicitationStore } from '../../src/stores/memory.store.js';
import { as, startPageApp } from '../support/page-app.js';
import { csrfFor, postForm, type CsrfPair } from '../support/page-form.js';
import { RecordingLogger } from '../support/recording-logger.js';
import { assetTag } from '../../test/support/page-assets.js';

const BASE_URL = 'http://127.0.0.1:3000';
const OWN_ORIGIN = BASE_URL;
const HTML = 'text/html; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';
const ENCRYPTION_KEY = randomBytes(32).toString('base64');

/** Public and private answers of the fake DNS used by the external URL policy. */
const DNS: Record<string, string[]> = {
  'auth.example.com': ['93.184.216.34'],
  'intranet.example.com': ['10.0.0.7'],
  'metadata.example.com': ['169.254.169.254'],
  'rebind.example.com': ['93.184.216.34', '127.0.0.1'],
  'v6-internal.example.com': ['fd00::1'],
  'mapped.example.com': ['::ffff:192.168.1.1'],
};
const resolveHost = (host: string): Promise<string[]> => Promise.resolve(DNS[host] ?? []);

/** The host app's own route, which the module's throttle must never touch. */
@Controller('host')
class HostController {
  @Get('ping')
  ping() {
    return { ok: true };
  }
}

interface Started {
  app: INestApplication;
  server: http.Server;
  port: number;
  service: ElicitationService;
  store: ElicitationStore;
  /** Counts `ElicitationStore.get` calls (the real method still runs). */
  storeGets: () => number;
  resetStoreGets: () => void;
  http: () => ReturnType<typeof request>;
}

async function startApp(
  options: Partial<ElicitationModuleOptions> = {},
  extra: { logger?: LoggerService; controllers?: Type[] } = {},
): Promise<Started> {
  const { app } = await startPageApp(
    { baseUrl: BASE_URL, encryptionKey: ENCRYPTION_KEY, externalUrlPolicy: { resolveHost }, ...options },
    { ...extra, listen: true },
  );
  const server = app.getHttpServer();
  const store = app.get(ElicitationStore);
  const spy = jest.spyOn(store, 'get');
  return {
    app,
    server,
    port: (server.address() as AddressInfo).port,
    service: app.get(ElicitationService),
    store,
    storeGets: () => spy.mock.calls.length,
    resetStoreGets: () => spy.mockClear(),
    http: () => request(server),
  };
}

/** A memory store that says it keeps its records elsewhere (as Redis does), so answers are sealed at rest. */
class OutOfProcessStore extends MemoryElicitationStore {
  override readonly inProcess: boolean = false;
}

const pathOf = (url: string) => new URL(url).pathname;

/** Handlebars' escaping, written out independently: what a payload must look like in the page. */
const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#x27;',
  '`': '&#x60;',
  '=': '&#x3D;',
};
const escapeHtml = (text: string) => text.replace(/[&<>"'`=]/g, (c) => ENTITIES[c]);

/** Every header and the body of a response, as one string to search. */
const everything = (res: request.Response) => `${JSON.stringify(res.headers)}\n${res.text ?? ''}`;

/** A page without its own script (the one `<script nonce src>` of the layout): what is left must hold no script. */
const withoutOwnScript = (html: string) => html.replace(/<script nonce="[A-Za-z0-9_-]+" src="[^"]+" defer><\/script>/, '');

/** The headers every HTML page of the module carries, and the CSP style nonce matching the page's `<style>`. */
function expectPageSecurity(res: request.Response, { body = true } = {}): void {
  expect(res.headers['content-type']).toBe(HTML);
  const csp: string = res.headers['content-security-policy'];
  expect(csp).toBeDefined();
  const directives = new Map(
    csp.split(';').map((d) => {
      const [name, ...values] = d.trim().split(/\s+/);
      return [name, values.join(' ')] as const;
    }),
  );
  expect(directives.get('default-src')).toBe("'none'");
  expect(directives.get('frame-ancestors')).toBe("'none'");
  expect(directives.get('form-action')).toBe("'self'");
  expect(directives.get('base-uri')).toBe("'none'");
  const nonce = /^'nonce-([A-Za-z0-9_-]{16,})'$/.exec(directives.get('style-src') ?? '')?.[1];
  expect(nonce).toBeDefined();
  // The page's one script (the countdown, the error summary's focus) runs under the same nonce; nothing else may.
  expect(directives.get('script-src')).toBe(`'nonce-${nonce}'`);
  if (body) {
    expect(res.text).toContain(`<style nonce="${nonce}">`);
    expect(res.text.match(/<style\b/g)).toHaveLength(1);
    // The stylesheet and the script every page shares, loaded under the same nonce; nothing else may load.
    expect(res.text.match(/<link\b[^>]*>/g)).toEqual([expect.stringMatching(assetTag('link', nonce!, 'css'))]);
    expect(res.text.match(/<script\b[^>]*>/g)).toEqual([expect.stringMatching(assetTag('script', nonce!, 'js'))]);
  }
  expect(res.headers['x-frame-options']).toBe('DENY');
  expect(res.headers['referrer-policy']).toBe('no-referrer');
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['cache-control']).toBe('no-store');
}

/** An HTML error page of the module, with its security headers. */
function expectErrorPage(res: request.Response, status: number, text?: string | RegExp): void {
  expect(res.status).toBe(status);
  expectPageSecurity(res);
  expect(res.text).toContain(`Status ${status}.`);
  if (typeof text === 'string') expect(res.text).toContain(text);
  else if (text) expect(res.text).toMatch(text);
}

const CSRF_REFUSED = 'This form has expired or was not sent from this site. Nothing was saved.';

/** Sends raw bytes on a socket and resolves everything the server answered (until it closes or goes idle). */
function rawExchange(port: number, payload: string, idleMs = 300): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(data);
    };
    socket.setEncoding('latin1');
    socket.on('connect', () => socket.write(payload, 'latin1'));
    socket.on('data', (chunk: string) => {
      data += chunk;
      clearTimeout(timer);
      timer = setTimeout(finish, idleMs);
    });
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', (error) => (data ? finish() : reject(error)));
  });
}

/** A POST through node:http with the body written in pieces, so it goes out chunked, without Content-Length. */
function chunkedPost(port: number, path: string, headers: Record<string, string>, chunks: string[]) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe('attacks on the elicitation pages over HTTP', () => {
  let s: Started;

  beforeAll(async () => {
    s = await startApp();
  });
  afterAll(async () => {
    await s.app.close();
  });
  beforeEach(() => s.resetStoreGets());

  const createKey = (extra: Record<string, unknown> = {}) =>
    s.service.createUrlElicitation({
      kind: 'api-key',
      message: 'Enter your GitHub API key',
      userId: 'alice',
      type: 'api-key-github',
      ...extra,
    });
  const createConfirm = (extra: Record<string, unknown> = {}) =>
    s.service.createUrlElicitation({ kind: 'confirm', message: 'Deploy shop to production?', userId: 'alice', ...extra });
  const csrf = (pagePath: string, user = 'alice') => csrfFor(s.server, pagePath, as(user));
  const post = (pagePath: string, form: Record<string, string>, pair: CsrfPair, headers: Record<string, string> = as('alice')) =>
    postForm(s.server, pagePath, form, pair, headers);
  const expectPending = async (id: string) => {
    expect(await s.service.getResult(id)).toEqual({ status: 'pending' });
    expect((await s.service.getStatus(id))!.status).toBe('pending');
  };

  // ---------------------------------------------------------------------------------------------------
  describe('XSS: user-influenced text is always escaped', () => {
    const PAYLOADS: Array<[string, string]> = [
      ['script tag', '<script>alert(1)</script>'],
      ['attribute breakout with img onerror', '"><img src=x onerror=alert(1)>'],
      ['javascript: URL in a link', `<a href="javascript:alert(document.cookie)">open</a>`],
      ['bare javascript: URL with quotes', `javascript:alert('pwned')//"`],
      ['style breakout', '</style><script>alert(1)</script><style>'],
      ['template injection (constructor)', `{{constructor.constructor('alert(1)')()}}`],
      ['handlebars lookup gadget', `{{#with "s" as |string|}}{{lookup string.sub "constructor"}}{{/with}}`],
      ['SVG onload', '<svg/onload=alert(1)><svg><script>alert(2)</script></svg>'],
      ['single-quote attribute breaker', `' onmouseover='alert(1)' autofocus x='`],
      ['backtick attribute breaker', '` onfocus=`alert(1)` x=`'],
      ['RTL override around a script', '\u202E<script>alert("rtl")</script>\u202Dgnp.exe'],
      ['pre-escaped entities and comment', '&lt;script&gt;alert(1)&lt;/script&gt;<!--<script>-->'],
      ['zero-width and NUL split tag', '<scr\u200Bipt>alert(1)</scr\u0000ipt><iframe srcdoc="<script>alert(1)</script>">'],
    ];
    const seen: request.Response[] = [];

    /**
     * The raw payload is nowhere in the page, its escaped form is, and no `<script` came through. A text from the
     * elicitation (`cleaned`) is shown as `displayText` makes it (no controls, no bidi characters).
     */
    const expectEscaped = (res: request.Response, payload: string, shown: boolean | 'cleaned' = true) => {
      seen.push(res);
      expect(escapeHtml(payload)).not.toBe(payload);
      expect(res.text).not.toContain(payload);
      if (shown === 'cleaned') expect(res.text).toContain(escapeHtml(displayText(payload)));
      else if (shown) expect(res.text).toContain(escapeHtml(payload));
      else expect(res.text).not.toContain(escapeHtml(payload));
      expect(withoutOwnScript(res.text)).not.toMatch(/<script/i);
    };

    afterAll(() => {
      // Every response of this block, whatever the payload: no unescaped script tag, no event handler markup.
      expect(seen.length).toBeGreaterThan(PAYLOADS.length * 10);
      for (const res of seen) {
        expect(withoutOwnScript(res.text)).not.toMatch(/<script|<svg|<img src=x|<iframe|onerror=|onload=/i);
      }
    });

    it.each(PAYLOADS)('%s in the message: api-key page (200 and 400 re-render) and confirm page', async (_, payload) => {
      const key = await createKey({ message: `Key please ${payload}` });
      const page = await s.http().get(pathOf(key.url)).set(as('alice'));
      expect(page.status).toBe(200);
      expectPageSecurity(page);
      expectEscaped(page, payload, 'cleaned');
      const pair = await csrf(pathOf(key.url));
      const invalid = await post(pathOf(key.url), { apiKey: '   ' }, pair);
      expect(invalid.status).toBe(400);
      expect(invalid.headers['content-type']).toBe(HTML);
      expectEscaped(invalid, payload, 'cleaned');
      await expectPending(key.elicitationId);

      const confirm = await createConfirm({ message: `Confirm ${payload}` });
      const confirmPage = await s.http().get(pathOf(confirm.url)).set(as('alice'));
      expect(confirmPage.status).toBe(200);
      expect(confirmPage.headers['content-type']).toBe(HTML);
      expectEscaped(confirmPage, payload, 'cleaned');
      await expectPending(confirm.elicitationId);
    });

    it.each(PAYLOADS)('%s in every confirm label (title, warning, confirmLabel, cancelLabel)', async (_, payload) => {
      const labels = { title: `T1 ${payload}`, warning: `W2 ${payload}`, confirmLabel: `C3 ${payload}`, cancelLabel: `X4 ${payload}` };
      const created = await createConfirm({ metadata: labels });
      const page = await s.http().get(pathOf(created.url)).set(as('alice'));
      expect(page.status).toBe(200);
      expectPageSecurity(page);
      expectEscaped(page, payload, 'cleaned');
      // Each as the page shows it: the title and the labels on one capped line, the warning as a block.
      const shown = {
        title: escapeHtml(displayText(labels.title, 'line', MAX_TITLE_LENGTH)),
        warning: escapeHtml(displayText(labels.warning)),
        confirmLabel: escapeHtml(displayText(labels.confirmLabel, 'line', MAX_BUTTON_LABEL_LENGTH)),
        cancelLabel: escapeHtml(displayText(labels.cancelLabel, 'line', MAX_BUTTON_LABEL_LENGTH)),
      };
      for (const label of Object.values(shown)) expect(page.text).toContain(label);
      // The title is the heading: in <title> and <h1>.
      expect(page.text).toContain(`<title>${shown.title} · `);
      expect(page.text).toContain(`<h1 dir="auto">${shown.title}</h1>`);
      expect(page.text).toContain(`class="primary">${shown.confirmLabel}</button>`);
      expect(page.text).toContain(`value="cancel">${shown.cancelLabel}</button>`);

      const pair = await csrf(pathOf(created.url));
      const invalid = await post(pathOf(created.url), { action: 'maybe' }, pair);
      expect(invalid.status).toBe(400);
      expect(invalid.headers['content-type']).toBe(HTML);
      expectEscaped(invalid, payload, 'cleaned');
      for (const label of Object.values(shown)) expect(invalid.text).toContain(label);
      await expectPending(created.elicitationId);
    });

    it.each(PAYLOADS)('%s in the `title` module option (page and error pages)', async (_, payload) => {
      const title = `Acme ${payload}`.slice(0, 200);
      const own = await startApp({ title });
      try {
        const created = await own.service.createUrlElicitation({ kind: 'api-key', message: 'key?', userId: 'alice' });
        const page = await own.http().get(pathOf(created.url)).set(as('alice'));
        expect(page.status).toBe(200);
        expectPageSecurity(page);
        expectEscaped(page, title);
        expect(page.text).toContain(`<span>${escapeHtml(title)}</span>`);
        const notFound = await own.http().get('/elicit/0b4e28ba-2fa1-41d2-883f-0016d3cca427/api-key').set(as('alice'));
        expect(notFound.status).toBe(404);
        expect(notFound.headers['content-type']).toBe(HTML);
        expectEscaped(notFound, title);
        const forbidden = await own.http().get(pathOf(created.url)).set(as('mallory'));
        expect(forbidden.status).toBe(403);
        expectEscaped(forbidden, title);
        expect(await own.service.getResult(created.elicitationId)).toEqual({ status: 'pending' });
      } finally {
        await own.app.close();
      }
    });

    it.each(PAYLOADS)('%s as a submitted value: never echoed by the 400, success and 409 pages', async (_, payload) => {
      const created = await createKey();
      const pagePath = pathOf(created.url);
      // As an unknown action and as a field name: 400, not echoed, nothing stored.
      const pair = await csrf(pagePath);
      const badAction = await post(pagePath, { apiKey: 'k', action: payload }, pair);
      expect(badAction.status).toBe(400);
      expect(badAction.headers['content-type']).toBe(HTML);
      expect(badAction.text).toContain('Unknown action.');
      expectEscaped(badAction, payload, false);
      const tooLong = await post(pagePath, { apiKey: payload.repeat(Math.ceil(4100 / payload.length)) }, pair);
      expect(tooLong.status).toBe(400);
      expectEscaped(tooLong, payload, false);
      await expectPending(created.elicitationId);

      // As the key itself: stored as given, never shown.
      const done = await post(pagePath, { apiKey: payload, [payload]: payload, action: 'submit' }, pair);
      expect(done.status).toBe(200);
      expect(done.headers['content-type']).toBe(HTML);
      expect(done.text).toContain('The API key was received');
      expectEscaped(done, payload, false);
      const replay = await post(pagePath, { apiKey: `${payload}-again` }, pair);
      expect(replay.status).toBe(409);
      expect(replay.headers['content-type']).toBe(HTML);
      expectEscaped(replay, payload, false);
      const reopened = await s.http().get(pagePath).set(as('alice'));
      expect(reopened.status).toBe(409);
      expectEscaped(reopened, payload, false);
      expect(await s.service.getResult(created.elicitationId)).toEqual({ status: 'completed', data: { apiKey: payload.trim() } });
    });

    it.each(PAYLOADS)('%s in the id segment: 404 page, not echoed, no store lookup', async (_, payload) => {
      const id = encodeURIComponent(payload);
      const page = await s.http().get(`/elicit/${id}/confirm`).set(as('alice'));
      expect(page.status).toBe(404);
      expect(page.headers['content-type']).toBe(HTML);
      expectEscaped(page, payload, false);
      const status = await s.http().get(`/elicit/${id}/status`);
      expect(status.status).toBe(404);
      expect(status.headers['content-type']).toBe(JSON_TYPE);
      expect(status.text).not.toContain(payload);
      expect(s.storeGets()).toBe(0);
    });
  });

  // ---------------------------------------------------------------------------------------------------
  /**
   * The token and cookie mechanics over raw HTTP. The refusals a browser's tabs meet (no token, no cookie, a random,
   * empty or altered token, the cookie nonce as the token, a cross-site post) are in csrf.e2e-spec.ts, on Express
   * and on Fastify; what is here is refused the same way and is found nowhere else.
   */
  describe('CSRF', () => {
    let target: { elicitationId: string; url: string };
    let pagePath: string;
    let pair: CsrfPair;

    beforeEach(async () => {
      target = await createKey();
      pagePath = pathOf(target.url);
      pair = await csrf(pagePath);
      s.resetStoreGets();
    });

    /** A refused post: 403 HTML page, before any store read, and the elicitation still pending. */
    const expectRefused = async (res: request.Response) => {
      expectErrorPage(res, 403, CSRF_REFUSED);
      // Nothing posted is echoed (the posted keys all start with sk-); the style and script nonces are random
      // base64url, which may hold those three characters by chance.
      expect(res.text.replace(/nonce="[^"]*"/g, 'nonce=""')).not.toContain('sk-');
      expect(s.storeGets()).toBe(0);
      await expectPending(target.elicitationId);
      s.resetStoreGets();
    };

    it.each([
      ['the token with a suffix', () => `${pair.token}x`],
      ['the token in upper case', () => pair.token.toUpperCase()],
    ])('refuses a forged token: %s', async (_, forge) => {
      const forged = forge();
      if (forged === pair.token) return;
      await expectRefused(await post(pagePath, { apiKey: 'sk-forged' }, { ...pair, token: forged }));
    });

    it('refuses a forged cookie with the real token, and a cookie nonce of the wrong shape', async () => {
      await expectRefused(
        await post(pagePath, { apiKey: 'sk-forged' }, { ...pair, cookie: `elicit_csrf=${randomBytes(16).toString('base64url')}` }),
      );
      await expectRefused(await post(pagePath, { apiKey: 'sk-forged' }, { ...pair, cookie: `elicit_csrf=${pair.cookie.split('=')[1]}=` }));
      await expectRefused(await post(pagePath, { apiKey: 'sk-forged' }, { ...pair, cookie: 'elicit_csrf=' }));
    });

    it('refuses a token + cookie pair rendered for another elicitation (same user)', async () => {
      const other = await createKey();
      const otherPair = await csrf(pathOf(other.url));
      s.resetStoreGets();
      await expectRefused(await post(pagePath, { apiKey: 'sk-other-pair' }, otherPair));
      // Mixed: this page's cookie with the other page's token, and the reverse.
      await expectRefused(await post(pagePath, { apiKey: 'sk-mixed' }, { token: otherPair.token, cookie: pair.cookie }));
      await expectRefused(await post(pagePath, { apiKey: 'sk-mixed' }, { token: pair.token, cookie: otherPair.cookie }));
      expect(await s.service.getResult(other.elicitationId)).toEqual({ status: 'pending' });
    });

    it('refuses the token sent twice (array) or in the query string', async () => {
      await expectRefused(
        await s
          .http()
          .post(pagePath)
          .set({ ...as('alice'), Cookie: pair.cookie })
          .type('form')
          .send(`apiKey=sk-array&_csrf=${pair.token}&_csrf=${pair.token}`),
      );
      await expectRefused(
        await s
          .http()
          .post(`${pagePath}?_csrf=${pair.token}`)
          .set({ ...as('alice'), Cookie: pair.cookie })
          .type('form')
          .send({ apiKey: 'sk-query' }),
      );
    });

    it.each([
      ['Origin: our origin as a subdomain prefix', { Origin: 'http://127.0.0.1:3000.evil.example' }],
      ['Origin: https version of our origin', { Origin: 'https://127.0.0.1:3000' }],
      ['Sec-Fetch-Site: cross-site with our own Origin', { 'Sec-Fetch-Site': 'cross-site', Origin: OWN_ORIGIN }],
    ])('refuses a valid pair sent cross-site (%s)', async (_, headers) => {
      await expectRefused(await post(pagePath, { apiKey: 'sk-cross-site' }, pair, { ...as('alice'), ...headers }));
    });

    it.each([
      ['Origin: null (Referrer-Policy: no-referrer)', { Origin: 'null' }],
      ['our own Origin', { Origin: OWN_ORIGIN }],
      ['our own Origin and Sec-Fetch-Site: same-origin', { Origin: OWN_ORIGIN, 'Sec-Fetch-Site': 'same-origin' }],
      ['Sec-Fetch-Site: none (typed or bookmarked)', { 'Sec-Fetch-Site': 'none' }],
    ])('accepts a valid pair with %s', async (_, headers) => {
      const res = await post(pagePath, { apiKey: 'sk-legit-key', action: 'submit' }, pair, { ...as('alice'), ...headers });
      expect(res.status).toBe(200);
      expectPageSecurity(res);
      expect(res.text).toContain('The API key was received');
      expect(await s.service.getResult(target.elicitationId)).toEqual({ status: 'completed', data: { apiKey: 'sk-legit-key' } });
    });

    it('issues the cookie HttpOnly, SameSite=Strict and scoped to the elicitation path only', async () => {
      const page = await s.http().get(pagePath).set(as('alice'));
      const cookie = ([] as string[]).concat(page.headers['set-cookie'] ?? []);
      expect(cookie).toHaveLength(1);
      expect(cookie[0]).toMatch(
        new RegExp(`^elicit_csrf=[A-Za-z0-9_-]{22}; Path=/elicit/${target.elicitationId}; Max-Age=\\d+; HttpOnly; SameSite=Strict$`),
      );
      // Every render gets a fresh pair.
      const again = await csrf(pagePath);
      expect(again.token).not.toBe(pair.token);
      expect(again.cookie).not.toBe(pair.cookie);
      await expectPending(target.elicitationId);
    });

    it('refuses a cross-site post to the confirm page too', async () => {
      const confirm = await createConfirm();
      const confirmPair = await csrf(pathOf(confirm.url));
      s.resetStoreGets();
      const res = await post(pathOf(confirm.url), { action: 'confirm' }, confirmPair, { ...as('alice'), Origin: 'https://evil.example' });
      expectErrorPage(res, 403, CSRF_REFUSED);
      const noToken = await s.http().post(pathOf(confirm.url)).set(as('alice')).type('form').send({ action: 'confirm' });
      expectErrorPage(noToken, 403, CSRF_REFUSED);
      expect(s.storeGets()).toBe(0);
      expect(await s.service.getResult(confirm.elicitationId)).toEqual({ status: 'pending' });
    });
  });

  // ---------------------------------------------------------------------------------------------------
  describe('phishing: a link reaching the wrong browser', () => {
    const MESSAGE = 'Alice, enter the production API key for billing-7731';

    it("refuses mallory's GET with 403 naming no data", async () => {
      for (const kind of ['api-key', 'confirm'] as const) {
        const created = await s.service.createUrlElicitation({
          kind,
          message: MESSAGE,
          userId: 'alice',
          type: 'billing-secret-type',
          metadata: kind === 'confirm' ? { title: 'Wire 10k to acct 99', warning: 'irreversible-warning' } : {},
        });
        const res = await s.http().get(pathOf(created.url)).set(as('mallory'));
        expectErrorPage(res, 403, 'This request was made for a different account.');
        for (const leaked of [
          MESSAGE,
          'billing-7731',
          'alice',
          'billing-secret-type',
          'Wire 10k',
          'irreversible-warning',
          'name="_csrf"',
        ]) {
          expect(res.text).not.toContain(leaked);
        }
        expect(res.headers['set-cookie']).toBeUndefined();
        expect(await s.service.getResult(created.elicitationId)).toEqual({ status: 'pending' });
      }
    });

    it("refuses mallory posting with a pair rendered for alice (403), and alice's pair without identity (401)", async () => {
      const created = await createKey({ message: MESSAGE });
      const pagePath = pathOf(created.url);
      const alicePair = await csrf(pagePath);
      const stolen = await post(pagePath, { apiKey: 'sk-mallory' }, alicePair, { ...as('mallory'), Origin: OWN_ORIGIN });
      expectErrorPage(stolen, 403, 'different account');
      expect(stolen.text).not.toContain(MESSAGE);
      const confirmStolen = await createConfirm({ message: MESSAGE });
      const confirmPair = await csrf(pathOf(confirmStolen.url));
      expectErrorPage(await post(pathOf(confirmStolen.url), { action: 'confirm' }, confirmPair, as('mallory')), 403, 'different account');
      const anonymous = await post(pagePath, { apiKey: 'sk-anon' }, alicePair, {});
      expectErrorPage(anonymous, 401, 'Please sign in');
      expect(anonymous.text).not.toContain(MESSAGE);
      await expectPending(created.elicitationId);
      await expectPending(confirmStolen.elicitationId);
      // Mallory's render of her own page gives her nothing usable either: she never gets a pair for alice's page.
      await expect(csrf(pagePath, 'mallory')).rejects.toThrow(/no CSRF pair .* \(status 403\)/);
    });

    it('answers an unidentified browser 401 (no loginUrl), with an empty or blank user too', async () => {
      const created = await createKey({ message: MESSAGE });
      for (const headers of [{}, { 'x-test-user': '' }]) {
        const res = await s.http().get(pathOf(created.url)).set(headers);
        expectErrorPage(res, 401, 'Please sign in');
        expect(res.text).not.toContain(MESSAGE);
        expect(res.headers.location).toBeUndefined();
      }
      await expectPending(created.elicitationId);
    });

    describe('with loginUrl', () => {
      let login: Started;
      let absolute: Started;
      beforeAll(async () => {
        login = await startApp({ loginUrl: '/login' });
        absolute = await startApp({ loginUrl: 'https://auth.example.com/sign-in?app=shop', baseUrl: 'https://shop.example.com/api' });
      });
      afterAll(async () => {
        await login.app.close();
        await absolute.app.close();
      });

      const returnToOf = (location: string) => new URL(location, 'http://x.invalid').searchParams.get('returnTo');

      it('redirects an unidentified GET (303) to loginUrl?returnTo=<the page path>, for every page kind', async () => {
        for (const kind of ['api-key', 'confirm'] as const) {
          const created = await login.service.createUrlElicitation({ kind, message: MESSAGE, userId: 'alice' });
          const res = await login.http().get(pathOf(created.url));
          expect(res.status).toBe(303);
          expect(res.headers['content-type']).toBe(HTML);
          expect(res.headers['cache-control']).toBe('no-store');
          expect(res.headers.location).toBe(`/login?returnTo=${encodeURIComponent(`/elicit/${created.elicitationId}/${kind}`)}`);
          expect(res.headers['set-cookie']).toBeUndefined();
          expect(res.text).toBe('');
          expect(await login.service.getResult(created.elicitationId)).toEqual({ status: 'pending' });
        }
      });

      it('keeps an absolute loginUrl and its query, and returnTo includes the baseUrl path', async () => {
        const created = await absolute.service.createUrlElicitation({ kind: 'api-key', message: MESSAGE, userId: 'alice' });
        const res = await absolute.http().get(`/elicit/${created.elicitationId}/api-key`);
        expect(res.status).toBe(303);
        const location = new URL(res.headers.location);
        expect(location.origin).toBe('https://auth.example.com');
        expect(location.pathname).toBe('/sign-in');
        expect([...location.searchParams.keys()]).toEqual(['app', 'returnTo']);
        expect(location.searchParams.get('returnTo')).toBe(`/api/elicit/${created.elicitationId}/api-key`);
      });

      it('never lets returnTo point elsewhere, whatever the request path, query and headers say', async () => {
        const created = await login.service.createUrlElicitation({ kind: 'api-key', message: MESSAGE, userId: 'alice' });
        const id = created.elicitationId;
        const canonical = `/elicit/${id}/api-key`;
        const attempts: Array<[string, Record<string, string>]> = [
          [`${canonical}?returnTo=https://evil.example`, {}],
          [`${canonical}?returnTo=//evil.example/x&next=https://evil.example`, {}],
          [`${canonical}?returnTo=%0d%0aLocation:%20https://evil.example`, {}],
          [`${canonical}/`, {}],
          [`/ELICIT/${id}/API-KEY`, {}],
          [
            canonical,
            { Host: 'evil.example', 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-Proto': 'https', 'X-Original-URL': '//evil.example' },
          ],
          [canonical, { Referer: 'https://evil.example/', 'X-Rewrite-URL': '/evil' }],
          [`//evil.example/elicit/${id}/api-key`, {}],
          [`/elicit/${id}%2F..%2F..%2F%2Fevil.example/api-key`, {}],
          [`/elicit/${id}/api-key/..%2F..%2F..%2F%2Fevil.example`, {}],
          [`/elicit/${id}/confirm`, {}],
          [`/elicit/${id.toUpperCase()}/api-key`, {}],
          [`/elicit/${id}%00/api-key`, {}],
          [`/elicit/${encodeURIComponent(`${id}/../../evil`)}/api-key`, {}],
        ];
        for (const [path, headers] of attempts) {
          const res = await login.http().get(path).set(headers);
          expect(res.status).toBeLessThan(500);
          if (res.status === 303) {
            expect(res.headers.location).toBe(`/login?returnTo=${encodeURIComponent(canonical)}`);
            expect(returnToOf(res.headers.location)).toBe(canonical);
          } else if (res.status === 308) {
            // Another spelling of the page's own path (`/ELICIT/…`, a trailing slash): first to the canonical path.
            expect(res.headers.location).toBe(canonical);
          } else {
            expect(res.status).toBe(404);
            expect(res.headers.location).toBeUndefined();
          }
          expect(JSON.stringify(res.headers)).not.toMatch(/evil/i);
        }
        expect(await login.service.getResult(id)).toEqual({ status: 'pending' });
      });

      it('answers an unidentified POST 401 (no redirect), and another user 403 (no redirect)', async () => {
        const created = await login.service.createUrlElicitation({ kind: 'api-key', message: MESSAGE, userId: 'alice' });
        const pagePath = pathOf(created.url);
        const pair = await csrfFor(login.server, pagePath, as('alice'));
        const anon = await postForm(login.server, pagePath, { apiKey: 'sk-anon' }, pair, {});
        expectErrorPage(anon, 401, 'Please sign in');
        expect(anon.headers.location).toBeUndefined();
        const other = await login.http().get(pagePath).set(as('mallory'));
        expectErrorPage(other, 403);
        expect(other.headers.location).toBeUndefined();
        expect(await login.service.getResult(created.elicitationId)).toEqual({ status: 'pending' });
      });
    });
  });

  // ---------------------------------------------------------------------------------------------------
  describe('id guessing and malformed ids', () => {
    const MALFORMED: Array<[string, string]> = [
      ['a 10 KB id', 'a'.repeat(10 * 1024)],
      ['unicode', encodeURIComponent('ид-😀-ελ-\u202E')],
      ['encoded ../ traversal', '..%2F..%2F..%2Fetc%2Fpasswd'],
      ['encoded dot-dot', '%2e%2e'],
      ['NUL', '%00'],
      ['UUID + NUL', '1b4e28ba-2fa1-41d2-883f-0016d3cca427%00'],
      ['UUID + newline', '1b4e28ba-2fa1-41d2-883f-0016d3cca427%0A'],
      ['UUID + space', '1b4e28ba-2fa1-41d2-883f-0016d3cca427%20'],
      ['uppercase UUID v4', '1B4E28BA-2FA1-41D2-883F-0016D3CCA427'],
      ['UUID v1', '6ba7b810-9dad-11d1-80b4-00c04fd430c8'],
      ['UUID v4 with a bad variant', '1b4e28ba-2fa1-41d2-c83f-0016d3cca427'],
      ['UUID without dashes', '1b4e28ba2fa141d2883f0016d3cca427'],
      ['braced UUID', encodeURIComponent('{1b4e28ba-2fa1-41d2-883f-0016d3cca427}')],
      ['SQL-ish', encodeURIComponent(`1' OR '1'='1' --`)],
      ['SQL-ish with a UUID', encodeURIComponent(`1b4e28ba-2fa1-41d2-883f-0016d3cca427' OR 1=1;--`)],
      ['a Redis key glob', encodeURIComponent('*')],
      ['JSON', encodeURIComponent('{"$ne":null}')],
    ];

    it.each(MALFORMED)('%s: 404 on status and every page (GET and POST), without any store lookup', async (_, id) => {
      const status = await s.http().get(`/elicit/${id}/status`);
      expect(status.status).toBe(404);
      expect(status.headers['content-type']).toBe(JSON_TYPE);
      expect(status.body).toMatchObject({ statusCode: 404, message: expect.stringMatching(/not found/) });
      for (const page of ['api-key', 'confirm', 'external']) {
        const res = await s.http().get(`/elicit/${id}/${page}`).set(as('alice'));
        expectErrorPage(res, 404, 'This elicitation was not found');
      }
      for (const page of ['api-key', 'confirm']) {
        const res = await s.http().post(`/elicit/${id}/${page}`).set(as('alice')).type('form').send({ apiKey: 'k', action: 'confirm' });
        expectErrorPage(res, 404, 'This elicitation was not found');
      }
      expect(s.storeGets()).toBe(0);
    });

    it('an empty id segment is no route at all (404: the error page, JSON on the status path), without any store lookup', async () => {
      for (const path of ['/elicit//status', '/elicit//api-key', '/elicit//confirm', '/elicit//external']) {
        const res = await s.http().get(path).set(as('alice'));
        if (path.endsWith('/status')) {
          expect(res.status).toBe(404);
          expect(res.headers['content-type']).toBe(JSON_TYPE);
          expect(res.headers['x-content-type-options']).toBe('nosniff');
        } else expectErrorPage(res, 404, 'There is no page at this address.');
        expect(res.text).not.toContain('Cannot ');
      }
      const post = await s.http().post('/elicit//api-key').type('form').send({ apiKey: 'k' });
      expectErrorPage(post, 404);
      expect(s.storeGets()).toBe(0);
    });

    it('a well-formed unknown id is one store lookup and a 404; an existing id of another kind is a 404 page', async () => {
      const res = await s.http().get('/elicit/1b4e28ba-2fa1-41d2-883f-0016d3cca427/status');
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toBe(JSON_TYPE);
      expect(s.storeGets()).toBe(1);
      const created = await createConfirm();
      const wrongKind = await s.http().get(`/elicit/${created.elicitationId}/api-key`).set(as('alice'));
      expectErrorPage(wrongKind, 404);
      const wrongKindPost = await post(`/elicit/${created.elicitationId}/api-key`, { apiKey: 'k' }, await csrf(pathOf(created.url)));
      expectErrorPage(wrongKindPost, 404);
      expect(await s.service.getResult(created.elicitationId)).toEqual({ status: 'pending' });
    });

    describe('with throttle { limit: 5, ttlMs: 60000 }', () => {
      const THROTTLE = { limit: 5, ttlMs: 60_000 };
      let t: Started;
      afterEach(async () => {
        await t.app.close();
      });

      const expectThrottledStatus = (res: request.Response) => {
        expect(res.status).toBe(429);
        expect(res.headers['content-type']).toBe(JSON_TYPE);
        expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
        expect(res.body).toMatchObject({ statusCode: 429, message: expect.stringMatching(/Too many requests/) });
      };
      const expectThrottledPage = (res: request.Response) => {
        expectErrorPage(res, 429, 'Too many requests from your network.');
        expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
      };

      it('the 6th status request from one IP is 429 with Retry-After; the host route is never throttled', async () => {
        t = await startApp({ throttle: THROTTLE }, { controllers: [HostController] });
        const created = await t.service.createUrlElicitation({ kind: 'api-key', message: 'key?', userId: 'alice' });
        for (let i = 0; i < 5; i++) {
          const id = i % 2 ? created.elicitationId : `guess-${i}`;
          const res = await t.http().get(`/elicit/${id}/status`);
          expect(res.status).toBe(i % 2 ? 200 : 404);
          expect(res.headers['ratelimit-limit']).toBe('5');
          expect(res.headers['ratelimit-remaining']).toBe(String(4 - i));
        }
        t.resetStoreGets();
        expectThrottledStatus(await t.http().get(`/elicit/${created.elicitationId}/status`));
        // Another IP claimed through X-Forwarded-For is not believed (no trust proxy): still throttled.
        expectThrottledStatus(await t.http().get(`/elicit/${created.elicitationId}/status`).set('X-Forwarded-For', '203.0.113.9'));
        expectThrottledPage(await t.http().get(pathOf(created.url)).set(as('alice')));
        expect(t.storeGets()).toBe(0);
        for (let i = 0; i < 20; i++) {
          const host = await t.http().get('/host/ping');
          expect(host.status).toBe(200);
          expect(host.body).toEqual({ ok: true });
          expect(host.headers['ratelimit-limit']).toBeUndefined();
          expect(host.headers['retry-after']).toBeUndefined();
        }
        expect(await t.service.getResult(created.elicitationId)).toEqual({ status: 'pending' });
      });

      it('the 6th page request from one IP is a 429 page with Retry-After (GET and POST); nothing stored', async () => {
        t = await startApp({ throttle: THROTTLE }, { controllers: [HostController] });
        const created = await t.service.createUrlElicitation({ kind: 'api-key', message: 'key?', userId: 'alice' });
        const pagePath = pathOf(created.url);
        const pair = await csrfFor(t.server, pagePath, as('alice')); // 1
        for (let i = 0; i < 4; i++) {
          // 2..5: guesses, all 404
          const res = await t.http().get(`/elicit/00000000-0000-4000-8000-00000000000${i}/api-key`).set(as('alice'));
          expectErrorPage(res, 404);
        }
        t.resetStoreGets();
        expectThrottledPage(await t.http().get(pagePath).set(as('alice')));
        const throttledPost = await postForm(t.server, pagePath, { apiKey: 'sk-throttled' }, pair, as('alice'));
        expectThrottledPage(throttledPost);
        expectThrottledPage(await t.http().get(`/elicit/${created.elicitationId}/confirm`).set(as('alice')));
        expectThrottledStatus(await t.http().get(`/elicit/${created.elicitationId}/status`));
        expect(t.storeGets()).toBe(0);
        expect((await t.http().get('/host/ping')).status).toBe(200);
        expect(await t.service.getResult(created.elicitationId)).toEqual({ status: 'pending' });
      });
    });
  });

  // ---------------------------------------------------------------------------------------------------
  describe('oversized and malformed bodies', () => {
    let target: { elicitationId: string; url: string };
    let pagePath: string;
    let pair: CsrfPair;
    beforeEach(async () => {
      target = await createKey();
      pagePath = pathOf(target.url);
      pair = await csrf(pagePath);
      s.resetStoreGets();
    });

    it('a 20 KB urlencoded post (with a valid pair) is a 413 page; nothing stored, no store lookup', async () => {
      const res = await post(pagePath, { apiKey: 'k'.repeat(20 * 1024) }, pair);
      expectErrorPage(res, 413, 'The form sent too much data. Nothing was saved.');
      expect(s.storeGets()).toBe(0);
      await expectPending(target.elicitationId);
    });

    it('a 20 KB body spread over many fields, and one sent chunked without Content-Length, are 413 too', async () => {
      const fields = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`f${i}`, 'x'.repeat(50)]));
      expectErrorPage(await post(pagePath, { apiKey: 'k', ...fields }, pair), 413);
      const body = `_csrf=${pair.token}&apiKey=${'k'.repeat(20 * 1024)}`;
      const chunked = await chunkedPost(
        s.port,
        pagePath,
        { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: pair.cookie, 'x-test-user': 'alice' },
        [body.slice(0, 5000), body.slice(5000, 15000), body.slice(15000)],
      );
      expect(chunked.status).toBe(413);
      expect(chunked.headers['content-length']).toBeDefined();
      expect(chunked.headers['content-type']).toBe(HTML);
      expect(chunked.headers['content-security-policy']).toContain("default-src 'none'");
      expect(s.storeGets()).toBe(0);
      await expectPending(target.elicitationId);
    });

    // Malformed JSON, a bad percent-escape in the id and a body over the body parser's limit are answered before the
    // module (400, 413; no store read): e2e/security/error-headers.e2e-spec.ts, on Express and on Fastify.
    it('a JSON body is refused (403) without a valid pair, and JSON scalars are a 4xx; nothing stored', async () => {
      const json = await s
        .http()
        .post(pagePath)
        .set({ ...as('alice'), Cookie: pair.cookie })
        .send({ apiKey: 'sk-json', action: 'submit' });
      expectErrorPage(json, 403, CSRF_REFUSED);
      const noCookie = await s.http().post(pagePath).set(as('alice')).send({ apiKey: 'sk-json', _csrf: pair.token });
      expectErrorPage(noCookie, 403);
      for (const scalar of ['null', '"sk"', '5', 'true']) {
        const res = await s
          .http()
          .post(pagePath)
          .set({ ...as('alice'), Cookie: pair.cookie })
          .set('Content-Type', 'application/json')
          .send(scalar);
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
      }
      expect(s.storeGets()).toBe(0);
      await expectPending(target.elicitationId);
    });

    it('JSON arrays and values without a usable toString are a 4xx, never a 500 (was: 500 from the size check)', async () => {
      const bodies = [
        '[1,2]',
        '[["_csrf","x"],["apiKey","y"]]',
        '[]',
        '{"apiKey":{"toString":1}}',
        '{"x":{"toString":{},"valueOf":{}}}',
        `{"_csrf":"${pair.token}","apiKey":{"toString":null}}`,
      ];
      for (const body of bodies) {
        const res = await s
          .http()
          .post(pagePath)
          .set({ ...as('alice'), Cookie: pair.cookie })
          .set('Content-Type', 'application/json')
          .send(body);
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
        expect(res.headers['content-type']).toBe(HTML);
      }
      await expectPending(target.elicitationId);
    });

    it('a urlencoded field `a[toString]=x` (cross-site, no token) is a 403, never a 500', async () => {
      for (const body of ['a[toString]=x', 'apiKey[toString]=1&apiKey[a]=2', 'a[valueOf]=1&a[toString]=2', 'x[y][toString]=z']) {
        const res = await s
          .http()
          .post(pagePath)
          .set({ ...as('alice'), Origin: 'https://evil.example' })
          .type('form')
          .send(body);
        expectErrorPage(res, 403, CSRF_REFUSED);
      }
      // With a valid pair the same shapes are a 400 (not a string), and nothing is stored.
      const res = await s
        .http()
        .post(pagePath)
        .set({ ...as('alice'), Cookie: pair.cookie })
        .type('form')
        .send(`_csrf=${pair.token}&apiKey[toString]=1`);
      expect(res.status).toBe(400);
      expect(res.text).toContain('Enter the API key.');
      await expectPending(target.elicitationId);
    });

    it.each([
      ['text/plain', 'text/plain'],
      ['multipart/form-data', 'multipart/form-data; boundary=xyz'],
      ['application/xml', 'application/xml'],
      ['no content type', ''],
    ])('a %s body carrying the real token is refused (403): only parsed form fields count', async (_, type) => {
      const text = `_csrf=${pair.token}&apiKey=sk-plain&action=submit`;
      const body = type.startsWith('multipart')
        ? `--xyz\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${pair.token}\r\n--xyz\r\nContent-Disposition: form-data; name="apiKey"\r\n\r\nsk-plain\r\n--xyz--\r\n`
        : text;
      // node:http directly: supertest would label a string body as a form when no type is set.
      const res = await chunkedPost(s.port, pagePath, { ...as('alice'), Cookie: pair.cookie, ...(type ? { 'Content-Type': type } : {}) }, [
        body,
      ]);
      expect(res.status).toBe(403);
      expect(res.headers['content-type']).toBe(HTML);
      expect(res.headers['content-security-policy']).toContain("default-src 'none'");
      expect(res.text).toContain(CSRF_REFUSED);
      expect(s.storeGets()).toBe(0);
      await expectPending(target.elicitationId);
    });

    it('an unsupported charset is refused before the app (415); nothing stored', async () => {
      const res = await s
        .http()
        .post(pagePath)
        .set({ ...as('alice'), Cookie: pair.cookie, 'Content-Type': 'application/x-www-form-urlencoded; charset=utf-7' })
        .send(`_csrf=${pair.token}&apiKey=sk-utf7`);
      expect(res.status).toBe(415);
      expect(s.storeGets()).toBe(0);
      await expectPending(target.elicitationId);
    });

    it.each([
      ['apiKey[]=a&apiKey[]=b', 'array brackets'],
      ['apiKey=a&apiKey=b', 'a repeated field'],
      ['apiKey[x]=a', 'an object'],
      ['apiKey[0][1]=a', 'a nested array'],
    ])('`%s` (%s) with a valid pair is a 400 re-render; nothing stored', async (form) => {
      const res = await s
        .http()
        .post(pagePath)
        .set({ ...as('alice'), Cookie: pair.cookie })
        .type('form')
        .send(`${form}&_csrf=${pair.token}`);
      expect(res.status).toBe(400);
      expectPageSecurity(res);
      expect(res.text).toContain('<a href="#apiKey" id="error">Enter the API key.</a>');
      await expectPending(target.elicitationId);
    });

    it('action as an array or object on the confirm page is a 400; nothing stored', async () => {
      const confirm = await createConfirm();
      const confirmPair = await csrf(pathOf(confirm.url));
      for (const form of ['action[]=confirm', 'action=confirm&action=cancel', 'action[toString]=confirm', 'action[0]=cancel']) {
        const res = await s
          .http()
          .post(pathOf(confirm.url))
          .set({ ...as('alice'), Cookie: confirmPair.cookie })
          .type('form')
          .send(`${form}&_csrf=${confirmPair.token}`);
        expect(res.status).toBe(400);
        expect(res.headers['content-type']).toBe(HTML);
        expect(res.text).toContain('Choose confirm or cancel.');
      }
      expect(await s.service.getResult(confirm.elicitationId)).toEqual({ status: 'pending' });
    });

    it('prototype-pollution shaped fields change nothing (the app keeps answering normally)', async () => {
      const res = await s
        .http()
        .post(pagePath)
        .set({ ...as('alice'), Cookie: pair.cookie })
        .type('form')
        .send(`__proto__[polluted]=1&constructor[prototype][polluted]=1&apiKey=sk-proto&_csrf=${pair.token}&action=bogus`);
      expect(res.status).toBe(400);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
      const json = await s
        .http()
        .post(pagePath)
        .set({ ...as('alice'), Cookie: pair.cookie })
        .set('Content-Type', 'application/json')
        .send('{"__proto__":{"polluted":1},"apiKey":"sk"}');
      expectErrorPage(json, 403);
      expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
      await expectPending(target.elicitationId);
    });

    it('CR/LF in values that could reach a header never produce an injected header', async () => {
      // No response header echoes request input; a CR/LF sent encoded stays data, and sent raw is refused by Node.
      const anon = await startApp({ loginUrl: '/login' });
      try {
        const created = await anon.service.createUrlElicitation({ kind: 'api-key', message: 'key?', userId: 'alice' });
        const encoded = await anon.http().get(`${pathOf(created.url)}?returnTo=%0D%0ASet-Cookie:%20injected=1&x=%0D%0AX-Injected:%201`);
        expect(encoded.status).toBe(303);
        expect(encoded.headers['set-cookie']).toBeUndefined();
        expect(encoded.headers['x-injected']).toBeUndefined();
        expect(encoded.headers.location).toBe(`/login?returnTo=${encodeURIComponent(pathOf(created.url))}`);

        const withCookie = await anon.http().get(pathOf(created.url)).set('Cookie', 'elicit_csrf=abc%0D%0ASet-Cookie:%20injected=1');
        expect(withCookie.status).toBe(303);
        expect(withCookie.headers['set-cookie']).toBeUndefined();

        for (const raw of [
          `GET ${pathOf(created.url)}?returnTo=x HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: a=b\rSet-Cookie: injected=1\r\nConnection: close\r\n\r\n`,
          `GET ${pathOf(created.url)} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: a=b\r\n Set-Cookie: injected=1\r\nConnection: close\r\n\r\n`,
          `GET ${pathOf(created.url)}\r\nSet-Cookie: injected=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
          `GET ${pathOf(created.url)}?a=%0d%0aSet-Cookie:injected=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Test-User: \r\nConnection: close\r\n\r\n`,
        ]) {
          const answer = await rawExchange(anon.port, raw);
          const head = answer.split('\r\n\r\n')[0];
          expect(head).toMatch(/^HTTP\/1\.1 (303|400) /);
          expect(head).not.toMatch(/injected/i);
          expect(head.split('\r\n').filter((line) => /^set-cookie:/i.test(line))).toEqual([]);
        }
        expect(await anon.service.getResult(created.elicitationId)).toEqual({ status: 'pending' });

        // An external URL with CR/LF: the URL parser drops raw CR/LF and the Location stays one header.
        const external = await s.service.createUrlElicitation({
          kind: 'external',
          url: 'https://auth.example.com/consent?state=a\r\nSet-Cookie: injected=1',
          message: 'Connect',
          userId: 'alice',
        });
        const redirect = await s.http().get(pathOf(external.url)).set(as('alice'));
        expect(redirect.status).toBe(303);
        expect(redirect.headers.location).not.toMatch(/[\r\n]/);
        expect(redirect.headers.location.startsWith('https://auth.example.com/consent?state=')).toBe(true);
        expect(redirect.headers['set-cookie']).toBeUndefined();
      } finally {
        await anon.app.close();
      }
    });
  });

  // ---------------------------------------------------------------------------------------------------
  // A tab's pair replayed after the elicitation expired (410) or was declined (409): e2e/security/csrf.e2e-spec.ts.
  describe('replay', () => {
    it('re-posting a completed form with the same pair is a 409 and keeps the first value', async () => {
      const created = await createKey();
      const pagePath = pathOf(created.url);
      const pair = await csrf(pagePath);
      const first = await post(pagePath, { apiKey: 'sk-first', action: 'submit' }, pair);
      expect(first.status).toBe(200);
      expect(first.headers['content-type']).toBe(HTML);
      for (const form of [{ apiKey: 'sk-second', action: 'submit' }, { action: 'cancel' }, { apiKey: 'sk-first' }] as Record<
        string,
        string
      >[]) {
        const replay = await post(pagePath, form, pair, { ...as('alice'), Origin: OWN_ORIGIN });
        expectErrorPage(replay, 409, 'This request was already answered. Nothing was changed.');
        expect(replay.text).not.toMatch(/sk-first|sk-second/);
      }
      // A fresh render is no way around it either.
      expectErrorPage(await s.http().get(pagePath).set(as('alice')), 409);
      expect(await s.service.getResult(created.elicitationId)).toEqual({ status: 'completed', data: { apiKey: 'sk-first' } });
    });

    it('a declined confirm cannot be turned into a confirm by replaying its form', async () => {
      const created = await createConfirm();
      const pair = await csrf(pathOf(created.url));
      expect((await post(pathOf(created.url), { action: 'cancel' }, pair)).status).toBe(200);
      const replay = await post(pathOf(created.url), { action: 'confirm' }, pair);
      expectErrorPage(replay, 409, 'This request was already declined. Nothing was changed.');
      expect(await s.service.getResult(created.elicitationId)).toEqual({ status: 'declined' });
    });
  });

  // ---------------------------------------------------------------------------------------------------
  describe('SSRF through createUrlElicitation({ kind: "external" })', () => {
    const UNSAFE: Array<[string, string]> = [
      ['cloud metadata', 'https://169.254.169.254/latest/meta-data/iam/security-credentials/'],
      ['decimal 127.0.0.1', 'https://2130706433/admin'],
      ['hex 127.0.0.1', 'https://0x7f000001/admin'],
      ['octal 127.0.0.1', 'https://0177.0.0.1/admin'],
      ['short 127.1', 'https://127.1/admin'],
      ['IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/admin'],
      ['IPv6 loopback', 'https://[::1]/'],
      ['localhost', 'https://localhost/admin'],
      ['localhost with a trailing dot', 'https://localhost./admin'],
      ['a *.internal name', 'https://metadata.google.internal/computeMetadata/v1/'],
      ['a name resolving to 10/8', 'https://intranet.example.com/'],
      ['a name resolving to link-local', 'https://metadata.example.com/'],
      ['a name with one private address among public ones', 'https://rebind.example.com/'],
      ['a name resolving to IPv6 ULA', 'https://v6-internal.example.com/'],
      ['a name resolving to IPv4-mapped private', 'https://mapped.example.com/'],
      ['an unresolvable name', 'https://nowhere.example.com/'],
      ['plain http', 'http://auth.example.com/consent'],
      ['credentials in the URL', 'https://admin:hunter2@auth.example.com/'],
      ['a javascript: URL', 'javascript:alert(1)'],
      ['a file: URL', 'file:///etc/passwd'],
      ['a token in the query', 'https://auth.example.com/consent?access_token=abc'],
    ];

    it.each(UNSAFE)('%s is refused with UnsafeUrlError and nothing is stored', async (_, url) => {
      const events: ElicitationEvent[] = [];
      const off = s.app.get(ElicitationEvents).subscribe((e) => events.push(e));
      const before = await s.service.list({ userId: 'ssrf-user' });
      try {
        await expect(
          s.service.createUrlElicitation({ kind: 'external', url, message: 'Connect', userId: 'ssrf-user' }),
        ).rejects.toBeInstanceOf(UnsafeUrlError);
      } finally {
        off();
      }
      expect(await s.service.list({ userId: 'ssrf-user' })).toEqual(before);
      expect(events).toEqual([]);
    });

    it('a public URL (resolver answering a public IP) works; its page redirects only the right user', async () => {
      const url = 'https://auth.example.com/oauth/authorize?client_id=shop&state=xyz&scope=repo';
      const created = await s.service.createUrlElicitation({ kind: 'external', url, message: 'Connect GitHub', userId: 'alice' });
      expect(created.url).toBe(`${BASE_URL}/elicit/${created.elicitationId}/external`);
      expect(created.url).not.toContain('auth.example.com');
      const res = await s.http().get(pathOf(created.url)).set(as('alice'));
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe(url);
      expectPageSecurity(res, { body: false });

      const mallory = await s.http().get(pathOf(created.url)).set(as('mallory'));
      expectErrorPage(mallory, 403, 'different account');
      expect(mallory.headers.location).toBeUndefined();
      expect(mallory.text).not.toContain('auth.example.com');
      const anonymous = await s.http().get(pathOf(created.url));
      expectErrorPage(anonymous, 401);
      expect(anonymous.headers.location).toBeUndefined();
      // The other page kinds of this id are 404, and nothing about it changed.
      expectErrorPage(await s.http().get(`/elicit/${created.elicitationId}/api-key`).set(as('alice')), 404);
      expect(await s.service.getResult(created.elicitationId)).toEqual({ status: 'pending' });
      // Once answered (by the app's callback), the redirect is over: 409, no Location.
      await s.service.complete(created.elicitationId, { connected: true });
      const after = await s.http().get(pathOf(created.url)).set(as('alice'));
      expectErrorPage(after, 409);
      expect(after.headers.location).toBeUndefined();
    });
  });
});

// -----------------------------------------------------------------------------------------------------
describe('secrets never leak', () => {
  const SECRET = `sk-PLANTED-${randomBytes(12).toString('hex')}`;

  it.each([
    ['a store that keeps it outside the process, sealed at rest', true],
    ['the memory store, kept as is in the process', false],
  ])('is in no log line, console write, response, event or listing of the whole flow: %s', async (_label, outside) => {
    const recorder = new RecordingLogger();
    const written: string[] = [];
    const consoleSpies = (['log', 'info', 'warn', 'error', 'debug', 'trace'] as const).map((level) =>
      jest
        .spyOn(console, level)
        .mockImplementation((...args: unknown[]) => void written.push(`console.${level} ${args.map(String).join(' ')}`)),
    );
    const streamSpies = [process.stdout, process.stderr].map((stream) => {
      const original = stream.write.bind(stream) as (...a: unknown[]) => boolean;
      return jest.spyOn(stream, 'write').mockImplementation((chunk: unknown, ...rest: unknown[]) => {
        written.push(Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk));
        return original(chunk, ...rest);
      });
    });

    // A store that keeps answers outside the process has them sealed; the memory store keeps them as JSON text.
    const s = await startApp(outside ? { store: new OutOfProcessStore() } : {}, { logger: recorder });
    const responses: string[] = [];
    const events: ElicitationEvent[] = [];
    const off = s.app.get(ElicitationEvents).subscribe((e) => events.push(e));
    const rxEvents: ElicitationEvent[] = [];
    const subscription = s.app.get(ElicitationEvents).events$.subscribe((e) => rxEvents.push(e));
    const keep = <T extends request.Response>(res: T) => (responses.push(everything(res)), res);
    try {
      const created = await s.service.createUrlElicitation({
        kind: 'api-key',
        message: 'Enter your key',
        userId: 'alice',
        type: 'api-key-stripe',
        session: 'sess-1',
      });
      const pagePath = pathOf(created.url);
      const alice = as('alice');
      const csrf = (path: string) => csrfFor(s.server, path, alice);
      const post = (path: string, form: Record<string, string>, pair: CsrfPair, headers: Record<string, string> = alice) =>
        postForm(s.server, path, form, pair, headers);
      const waiting = s.service.waitForCompletion(created.elicitationId);

      keep(await s.http().get(pagePath).set(alice));
      keep(await s.http().get(`/elicit/${created.elicitationId}/status`));
      const pair = await csrf(pagePath);
      // Failing submissions carrying the secret first: cross-site, wrong user, bad action, too long, too large.
      keep(await post(pagePath, { apiKey: SECRET }, pair, { ...alice, Origin: 'https://evil.example' }));
      keep(await post(pagePath, { apiKey: SECRET }, pair, as('mallory')));
      keep(await post(pagePath, { apiKey: SECRET, action: `bogus-${SECRET}` }, pair));
      keep(await post(pagePath, { apiKey: SECRET.repeat(200) }, pair));
      keep(await post(pagePath, { apiKey: SECRET.repeat(1000) }, pair));
      keep(
        await s
          .http()
          .post(pagePath)
          .set({ ...alice, Cookie: pair.cookie })
          .set('Content-Type', 'application/json')
          .send(`{"apiKey":{"toString":"${SECRET}"}}`),
      );
      keep(await s.http().post(`/elicit/${SECRET}/api-key`).set(alice).type('form').send({ apiKey: SECRET }));
      keep(await s.http().get(`/elicit/${SECRET}/status`));
      expect(await s.service.getResult(created.elicitationId)).toEqual({ status: 'pending' });

      // The real submission, then everything that can be looked at afterwards.
      const done = keep(await post(pagePath, { apiKey: `  ${SECRET}  `, action: 'submit' }, pair, { ...alice, Origin: 'null' }));
      expect(done.status).toBe(200);
      keep(await s.http().get(`/elicit/${created.elicitationId}/status`));
      const replay = keep(await post(pagePath, { apiKey: SECRET }, pair));
      expect(replay.status).toBe(409);
      keep(await s.http().get(pagePath).set(alice));
      keep(await s.http().get(pagePath).set(as('mallory')));

      // Server-side reads do return it (that is their job), decrypted in process.
      expect(await waiting).toEqual({ status: 'completed', data: { apiKey: SECRET } });
      expect(await s.service.getResult(created.elicitationId)).toEqual({ status: 'completed', data: { apiKey: SECRET } });

      const listing = JSON.stringify([
        await s.service.list({ userId: 'alice' }),
        await s.service.list({ userId: 'alice', status: 'completed' }),
      ]);
      expect(listing).toContain(created.elicitationId);

      // At rest outside the process: sealed, bound to the id, no trace of the plaintext in any encoding.
      const stored = await s.store.get(created.elicitationId, Date.now());
      if (!outside) expect(stored!.data).toEqual({ $json: JSON.stringify({ apiKey: SECRET }) });
      else
        expect(stored!.data).toEqual({
          $sealed: expect.stringMatching(/^v1\.[0-9a-f]{8}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/),
        });
      // Sealed, no encoding of the plaintext shows either (the memory store's copy holds it as typed, checked above).
      if (outside) {
        const atRest = JSON.stringify(stored);
        for (const encoding of ['utf8', 'base64', 'base64url', 'hex'] as const) {
          expect(atRest).not.toContain(Buffer.from(SECRET).toString(encoding));
        }
      }
      const found = await s.service.findByUserAndType('alice', 'api-key-stripe', { consume: true });
      expect(found?.data).toEqual({ apiKey: SECRET });
      expect(JSON.stringify(await s.store.get(created.elicitationId, Date.now()))).not.toContain(SECRET);
      expect(await s.service.getResult(created.elicitationId)).toBeUndefined();

      expect(responses).toHaveLength(15);
      expect(events.map((e) => e.type)).toEqual(['created', 'completed']);
      expect(rxEvents).toEqual(events);
      // The recorder did receive the app's logs (route mapping at least), so silence below is meaningful.
      expect(recorder.lines.length).toBeGreaterThan(0);
      expect(recorder.lines.some((l) => l.includes('/elicit/:id/api-key'))).toBe(true);
      const haystacks: Array<[string, string]> = [
        ['responses', responses.join('\n')],
        ['events', JSON.stringify(events)],
        ['listing', listing],
        ['log lines', recorder.lines.join('\n')],
        ['console and stdout/stderr', written.join('\n')],
      ];
      for (const [what, text] of haystacks) {
        expect({ what, leaked: text.includes(SECRET) }).toEqual({ what, leaked: false });
      }
    } finally {
      subscription.unsubscribe();
      off();
      for (const spy of [...consoleSpies, ...streamSpies]) spy.mockRestore();
      await s.app.close();
    }
  });
});

// -----------------------------------------------------------------------------------------------------
describe('security headers on every page response', () => {
  let s: Started;
  let throttled: Started;
  beforeAll(async () => {
    s = await startApp({ loginUrl: undefined });
    throttled = await startApp({ throttle: { limit: 1, ttlMs: 60_000 } });
  });
  afterAll(async () => {
    await s.app.close();
    await throttled.app.close();
  });

  it('200, 400, 401, 403, 404, 409, 410, 413 and 429 pages all carry CSP (with the style nonce), XFO, Referrer-Policy, nosniff and no-store', async () => {
    const alice = { 'x-test-user': 'alice' };
    const key = await s.service.createUrlElicitation({ kind: 'api-key', message: 'key?', userId: 'alice' });
    const confirm = await s.service.createUrlElicitation({ kind: 'confirm', message: 'ok?', userId: 'alice' });
    const expiring = await s.service.createUrlElicitation({ kind: 'api-key', message: 'key?', userId: 'alice', ttlMs: 100 });
    const keyPath = pathOf(key.url);
    const pair = await csrfFor(s.server, keyPath, alice);
    const seen = new Map<number, request.Response>();
    const check = (res: request.Response, status: number) => {
      expect(res.status).toBe(status);
      expectPageSecurity(res);
      seen.set(status, res);
    };

    check(await s.http().get(keyPath).set(alice), 200);
    check(await s.http().get(pathOf(confirm.url)).set(alice), 200);
    check(await postForm(s.server, keyPath, { apiKey: '' }, pair, alice), 400);
    check(await s.http().get(keyPath), 401);
    check(await s.http().get(keyPath).set({ 'x-test-user': 'mallory' }), 403);
    check(await s.http().post(keyPath).set(alice).type('form').send({ apiKey: 'k' }), 403);
    check(await s.http().get('/elicit/nope/api-key').set(alice), 404);
    check(await s.http().get('/elicit/1b4e28ba-2fa1-41d2-883f-0016d3cca427/confirm').set(alice), 404);
    check(await postForm(s.server, keyPath, { apiKey: 'k'.repeat(20 * 1024) }, pair, alice), 413);
    await new Promise((r) => setTimeout(r, 150));
    check(await s.http().get(pathOf(expiring.url)).set(alice), 410);
    const done = await postForm(s.server, keyPath, { apiKey: 'sk-ok' }, pair, alice);
    check(done, 200);
    check(await postForm(s.server, keyPath, { apiKey: 'sk-again' }, pair, alice), 409);
    check(await s.http().get(keyPath).set(alice), 409);

    const t = await throttled.service.createUrlElicitation({ kind: 'confirm', message: 'ok?', userId: 'alice' });
    check(await throttled.http().get(pathOf(t.url)).set(alice), 200);
    let tooMany = await throttled.http().get(pathOf(t.url)).set(alice);
    // The throttle counts in fixed one-minute windows: one may have ended between the two; the next is in the same one.
    if (tooMany.status === 200) tooMany = await throttled.http().get(pathOf(t.url)).set(alice);
    check(tooMany, 429);
    expect(tooMany.headers['retry-after']).toMatch(/^\d+$/);

    expect([...seen.keys()].sort()).toEqual([200, 400, 401, 403, 404, 409, 410, 413, 429]);
    // A fresh nonce on every response.
    const nonces = [...seen.values()].map((r) => /'nonce-([^']+)'/.exec(r.headers['content-security-policy'])![1]);
    expect(new Set(nonces).size).toBe(nonces.length);
    expect(await s.service.getResult(confirm.elicitationId)).toEqual({ status: 'pending' });
    expect(await s.service.getResult(key.elicitationId)).toEqual({ status: 'completed', data: { apiKey: 'sk-ok' } });
  });
});
