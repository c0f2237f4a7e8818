import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { ElicitationStore } from '../../src/stores/elicitation-store.js';
import { PAGE_CSP, startPageApp } from '../support/page-app.js';
import { csrfFor, postForm, submitForm } from '../support/page-form.js';
import { assetPath } from '../../test/support/page-assets.js';

const here = dirname(fileURLToPath(import.meta.url));
const SECRET = 'sk-live-0123456789-PLANTED-SECRET';

async function startApp(options: Partial<ElicitationModuleOptions> & { routePrefix?: string; controllers?: boolean } = {}) {
  const { app } = await startPageApp(options);
  const server = app.getHttpServer();
  return {
    app,
    service: app.get(ElicitationService),
    http: () => request(server),
    /** Submits a page's form as `user` (GET for the CSRF pair, then POST). */
    submit: (pagePath: string, form: Record<string, string>, user?: string) =>
      submitForm(server, pagePath, form, user ? { 'x-test-user': user } : {}),
    csrf: (pagePath: string, user = 'alice') => csrfFor(server, pagePath, { 'x-test-user': user }),
    post: (pagePath: string, form: Record<string, string>, pair: Awaited<ReturnType<typeof csrfFor>>, user?: string) =>
      postForm(server, pagePath, form, pair, user ? { 'x-test-user': user } : {}),
  };
}

const path = (url: string) => new URL(url).pathname;

describe('elicitation pages and status over HTTP', () => {
  let app: INestApplication;
  let service: ElicitationService;
  let http: () => request.Agent;
  let submit: Awaited<ReturnType<typeof startApp>>['submit'];
  let csrf: Awaited<ReturnType<typeof startApp>>['csrf'];
  let post: Awaited<ReturnType<typeof startApp>>['post'];

  beforeAll(async () => {
    ({ app, service, http, submit, csrf, post } = await startApp());
  });
  afterAll(async () => {
    await app.close();
  });

  const createKey = (extra: Record<string, unknown> = {}) =>
    service.createUrlElicitation({
      kind: 'api-key',
      message: 'Enter your GitHub API key',
      userId: 'alice',
      type: 'api-key-github',
      ...extra,
    });
  const createConfirm = (metadata: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
    service.createUrlElicitation({ kind: 'confirm', message: 'Deploy shop to production?', userId: 'alice', metadata, ...extra });

  describe('GET /elicit/:id/status', () => {
    it('answers the whole status JSON and nothing else, never the submitted key', async () => {
      const created = await createKey();
      const pending = await http().get(`/elicit/${created.elicitationId}/status`).expect(200);
      expect(pending.headers['content-type']).toMatch(/^application\/json/);
      expect(pending.headers['cache-control']).toBe('no-store');
      expect(pending.body).toEqual({
        elicitationId: created.elicitationId,
        status: 'pending',
        createdAt: expect.any(String),
        expiresAt: created.expiresAt.toISOString(),
        completed: false,
      });
      expect((await submit(path(created.url), { apiKey: SECRET, action: 'submit' }, 'alice')).status).toBe(200);
      const done = await http().get(`/elicit/${created.elicitationId}/status`).expect(200);
      expect(done.body).toMatchObject({ status: 'completed', completed: true });
      expect(Object.keys(done.body as Record<string, unknown>).sort()).toEqual([
        'completed',
        'createdAt',
        'elicitationId',
        'expiresAt',
        'status',
      ]);
      expect(done.text).not.toContain(SECRET);
    });

    it('answers 404 JSON for unknown ids, and for malformed ids without touching the store', async () => {
      const store = app.get(ElicitationStore);
      const original = store.get.bind(store);
      let reads = 0;
      store.get = async (...args) => (reads++, original(...args));
      try {
        const malformed = await http().get('/elicit/not-a-real-id/status').expect(404);
        expect(malformed.body).toMatchObject({ statusCode: 404, message: expect.stringMatching(/not found/) });
        await http().get('/elicit/1B4E28BA-2FA1-41D2-883F-0016D3CCA427/status').expect(404);
        expect(reads).toBe(0);
        await http().get('/elicit/1b4e28ba-2fa1-41d2-883f-0016d3cca427/status').expect(404);
        expect(reads).toBe(1);
      } finally {
        store.get = original;
      }
    });
  });

  describe('api-key page', () => {
    it('renders the message, a labelled password input and the security headers', async () => {
      const created = await createKey();
      const res = await http().get(path(created.url)).set('x-test-user', 'alice').expect(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-security-policy']).toMatch(PAGE_CSP);
      expect(res.text).toContain('Enter your GitHub API key');
      expect(res.text).toContain('<label for="apiKey">API key</label>');
      expect(res.text).toMatch(/<input type="password" id="apiKey" name="apiKey" autocomplete="off"[^>]* required/);
      expect(res.text).toMatch(/<button type="submit" name="action" value="cancel"/);
      const nonce = /style-src 'nonce-([^']+)'/.exec(res.headers['content-security-policy'])![1];
      expect(res.text).toContain(`<style nonce="${nonce}">`);
    });

    it("loads the pages' shared stylesheet and script, served once with a name that changes with them, kept by the browser", async () => {
      const created = await createKey();
      const page = await http().get(path(created.url)).set('x-test-user', 'alice').expect(200);
      const style = /<link rel="stylesheet" nonce="[^"]+" href="([^"]+)">/.exec(page.text)?.[1];
      const script = /<script nonce="[^"]+" src="([^"]+)" defer>/.exec(page.text)?.[1];
      expect(style).toMatch(assetPath('css'));
      expect(script).toMatch(assetPath('js'));
      // The page carries only what is its own: the shared bytes are in the assets.
      expect(page.text).not.toContain('.error-summary');
      for (const [url, type, holds] of [
        [style!, 'text/css; charset=utf-8', '.error-summary'],
        [script!, 'text/javascript; charset=utf-8', 'RelativeTimeFormat'],
      ] as const) {
        const asset = await http().get(url).expect(200);
        expect(asset.headers['content-type']).toBe(type);
        expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
        expect(asset.headers['x-content-type-options']).toBe('nosniff');
        expect(asset.headers['set-cookie']).toBeUndefined();
        expect(asset.text).toContain(holds);
      }
      // Another name under assets/ (an older fingerprint, a guess): the 404 page, nothing served.
      const unknown = await http()
        .get(String(style).replace(/page\.[0-9a-f]{12}/, 'page.000000000000'))
        .expect(404);
      expect(unknown.headers['content-type']).toBe('text/html; charset=utf-8');
      await http().get('/elicit/assets/..%2Fpackage.json').expect(404);
    });

    it('stores the trimmed key and shows the success page; status still hides it', async () => {
      const created = await createKey();
      const res = await submit(path(created.url), { apiKey: `  ${SECRET}  `, action: 'submit' }, 'alice');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.text).toContain('The API key was received');
      expect(res.text).toContain('You can close this window');
      expect(res.text).not.toContain(SECRET);
      expect(await service.getResult(created.elicitationId)).toEqual({ status: 'completed', data: { apiKey: SECRET } });
      expect(await service.findByUserAndType('alice', 'api-key-github')).toMatchObject({ data: { apiKey: SECRET } });
    });

    it.each([
      ['an empty key', { apiKey: '' }, 'Enter the API key.'],
      ['a blank key', { apiKey: '    ' }, 'Enter the API key.'],
      ['no key field', {}, 'Enter the API key.'],
      ['a key over 4096 characters', { apiKey: 'k'.repeat(4097) }, 'The API key is longer than 4096 characters.'],
      ['an unknown action', { apiKey: 'k', action: 'delete' }, 'Unknown action.'],
    ])('refuses %s with 400, re-shows the form with the error, and stores nothing', async (_, body, message) => {
      const created = await createKey();
      const res = await submit(path(created.url), body, 'alice');
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.text).toContain(`<a href="#apiKey" id="error">${message}</a>`);
      expect(res.text).toContain('name="apiKey"');
      expect(res.text).toContain('aria-invalid="true"');
      expect((await service.getStatus(created.elicitationId))!.status).toBe('pending');
    });

    it('refuses a second submit with 409, keeps the first key and shows neither', async () => {
      const created = await createKey();
      // A double submit replays the same form (same token and cookie).
      const pair = await csrf(path(created.url));
      await post(path(created.url), { apiKey: 'first-key' }, pair, 'alice').expect(200);
      const again = await post(path(created.url), { apiKey: 'second-key' }, pair, 'alice').expect(409);
      expect(again.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(again.text).toContain('This request was already answered. Nothing was changed.');
      expect(again.text).not.toMatch(/first-key|second-key/);
      await http().get(path(created.url)).set('x-test-user', 'alice').expect(409);
      expect(await service.getResult(created.elicitationId)).toEqual({ status: 'completed', data: { apiKey: 'first-key' } });
    });

    it('lets exactly one of many concurrent submits win', async () => {
      const created = await createKey();
      const pairs = await Promise.all(Array.from({ length: 20 }, () => csrf(path(created.url))));
      const responses = await Promise.all(pairs.map((pair, i) => post(path(created.url), { apiKey: `key-${i}` }, pair, 'alice')));
      expect(responses.map((r) => r.status).sort()).toEqual([200, ...Array<number>(19).fill(409)]);
      const result = await service.getResult(created.elicitationId);
      expect(result).toMatchObject({ status: 'completed', data: { apiKey: expect.stringMatching(/^key-\d+$/) } });
    });

    it('Cancel declines the elicitation', async () => {
      const created = await createKey();
      const pair = await csrf(path(created.url));
      const res = await post(path(created.url), { action: 'cancel' }, pair, 'alice').expect(200);
      expect(res.text).toContain('You declined the request.');
      expect(await service.getResult(created.elicitationId)).toEqual({ status: 'declined' });
      const again = await post(path(created.url), { apiKey: 'late' }, pair, 'alice').expect(409);
      expect(again.text).toContain('already declined');
    });

    it('answers 410 once expired, on GET and POST, and stores nothing', async () => {
      const created = await createKey({ ttlMs: 300 });
      const pair = await csrf(path(created.url));
      await new Promise((r) => setTimeout(r, 350));
      const res = await http().get(path(created.url)).set('x-test-user', 'alice').expect(410);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.text).toContain('This request has expired');
      await post(path(created.url), { apiKey: 'late' }, pair, 'alice').expect(410);
      expect(await service.getResult(created.elicitationId)).toEqual({ status: 'expired' });
      expect(((await http().get(`/elicit/${created.elicitationId}/status`).expect(200)).body as { status: string }).status).toBe('expired');
    });

    it('answers a readable 404 page for unknown, malformed and wrong-kind ids', async () => {
      const unknown = await http().get('/elicit/1b4e28ba-2fa1-41d2-883f-0016d3cca427/api-key').set('x-test-user', 'alice').expect(404);
      expect(unknown.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(unknown.text).toContain('This elicitation was not found');
      await http().get('/elicit/%3Cscript%3E/api-key').set('x-test-user', 'alice').expect(404);
      await http().post('/elicit/nope/api-key').set('x-test-user', 'alice').type('form').send({ apiKey: 'x' }).expect(404);
      const confirm = await createConfirm();
      await http().get(`/elicit/${confirm.elicitationId}/api-key`).set('x-test-user', 'alice').expect(404);
    });

    it('refuses another user with 403 and an unidentified browser with 401, storing nothing', async () => {
      const created = await createKey();
      const other = await http().get(path(created.url)).set('x-test-user', 'mallory').expect(403);
      expect(other.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(other.text).toContain('This request was made for a different account');
      expect(other.text).not.toContain('Enter your GitHub API key');
      // Even with a valid CSRF pair (taken from alice's render), the browser user must be alice.
      const pair = await csrf(path(created.url));
      const stolen = await post(path(created.url), { apiKey: 'stolen' }, pair, 'mallory').expect(403);
      expect(stolen.text).toContain('different account');
      const anonymous = await post(path(created.url), { apiKey: 'anon' }, pair).expect(401);
      expect(anonymous.text).toContain('Please sign in');
      expect((await service.getStatus(created.elicitationId))!.status).toBe('pending');
    });

    it('renders a message and metadata containing <script> escaped', async () => {
      const created = await createKey({ message: 'Key for <script>alert("x")</script> please' });
      const res = await http().get(path(created.url)).set('x-test-user', 'alice').expect(200);
      expect(res.text).not.toContain('<script>');
      expect(res.text).toContain('Key for &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; please');
    });
  });

  describe('confirm page', () => {
    it('shows title, message, warning and the configured labels, all escaped', async () => {
      const created = await createConfirm({
        title: 'Deploy <b>shop</b>',
        warning: '<script>alert(1)</script> replaces production',
        confirmLabel: 'Deploy now',
        cancelLabel: 'Not now',
      });
      const res = await http().get(path(created.url)).set('x-test-user', 'alice').expect(200);
      expect(res.text).toContain('<h1 dir="auto">Deploy &lt;b&gt;shop&lt;/b&gt;</h1>');
      expect(res.text).toContain('Deploy shop to production?');
      expect(res.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt; replaces production');
      expect(res.text).not.toContain('<script>');
      expect(res.text).toContain('value="confirm" class="primary">Deploy now</button>');
      expect(res.text).toContain('value="cancel">Not now</button>');
    });

    it('uses default labels and no warning without metadata', async () => {
      const res = await http()
        .get(path((await createConfirm()).url))
        .set('x-test-user', 'alice')
        .expect(200);
      expect(res.text).toContain('<h1 dir="auto">Please confirm</h1>');
      expect(res.text).toContain('>Confirm</button>');
      expect(res.text).toContain('>Cancel</button>');
      expect(res.text).not.toContain('class="warning"');
    });

    it('confirm completes with { confirmed: true }', async () => {
      const created = await createConfirm();
      const res = await submit(path(created.url), { action: 'confirm' }, 'alice');
      expect(res.status).toBe(200);
      expect(res.text).toContain('Your confirmation was received');
      expect(await service.getResult(created.elicitationId)).toEqual({ status: 'completed', data: { confirmed: true } });
    });

    it('cancel declines; a missing action is a 400 that changes nothing', async () => {
      const a = await createConfirm();
      expect((await submit(path(a.url), { action: 'cancel' }, 'alice')).status).toBe(200);
      expect(await service.getResult(a.elicitationId)).toEqual({ status: 'declined' });
      const b = await createConfirm();
      const bad = await submit(path(b.url), { action: 'maybe' }, 'alice');
      expect(bad.status).toBe(400);
      expect(bad.text).toContain('Choose confirm or cancel.');
      expect(await service.getResult(b.elicitationId)).toEqual({ status: 'pending' });
    });

    it('refuses another user with 403', async () => {
      const created = await createConfirm();
      await post(path(created.url), { action: 'confirm' }, await csrf(path(created.url)), 'mallory').expect(403);
      expect(await service.getResult(created.elicitationId)).toEqual({ status: 'pending' });
    });
  });
});

describe('page options', () => {
  it('mounts under a custom routePrefix and builds URLs from baseUrl with a path', async () => {
    const { app, service, http } = await startApp({ routePrefix: 'mcp/ask', baseUrl: 'https://example.com/api' });
    try {
      const created = await service.createUrlElicitation({ kind: 'confirm', message: 'ok?', userId: 'alice' });
      expect(created.url).toBe(`https://example.com/api/mcp/ask/${created.elicitationId}/confirm`);
      await http().get(`/mcp/ask/${created.elicitationId}/confirm`).set('x-test-user', 'alice').expect(200);
      await http().get(`/elicit/${created.elicitationId}/confirm`).set('x-test-user', 'alice').expect(404);
      await http().get(`/mcp/ask/${created.elicitationId}/status`).expect(200);
    } finally {
      await app.close();
    }
  });

  it('applies title, primaryColor and logoUrl, and a templatesDir override', async () => {
    const { app, service, http, submit } = await startApp({
      title: 'Acme <Cloud>',
      primaryColor: '#ff6600',
      logoUrl: '/static/logo.png',
      templatesDir: join(here, 'fixtures/templates'),
    });
    try {
      const created = await service.createUrlElicitation({ kind: 'confirm', message: 'ok?', userId: 'alice' });
      const page = await http().get(path(created.url)).set('x-test-user', 'alice').expect(200);
      expect(page.text).toContain('<span>Acme &lt;Cloud&gt;</span>');
      expect(page.text).toContain('--accent: #ff6600;');
      expect(page.text).toContain('<img src="/static/logo.png" alt="">');
      const done = await submit(path(created.url), { action: 'confirm' }, 'alice');
      expect(done.status).toBe(200);
      expect(done.text).toContain('<p id="custom-done">CUSTOM DONE: Thank you. Your confirmation was received.</p>');
    } finally {
      await app.close();
    }
  });

  it('without resolvePageUser the pages work for any browser (and the module warned at start-up)', async () => {
    const { app, service, submit } = await startApp({ resolvePageUser: undefined });
    try {
      const created = await service.createUrlElicitation({ kind: 'api-key', message: 'key?', userId: 'alice' });
      expect((await submit(path(created.url), { apiKey: 'k' })).status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('mounts nothing with controllers: false', async () => {
    const { app, service, http } = await startApp({ controllers: false });
    try {
      const created = await service.createUrlElicitation({ kind: 'confirm', message: 'ok?', userId: 'alice' });
      await http().get(`/elicit/${created.elicitationId}/status`).expect(404);
      expect(((await http().get(`/elicit/${created.elicitationId}/status`)).body as { message: string }).message).toMatch(/Cannot GET/);
    } finally {
      await app.close();
    }
  });
});
