import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import request from 'supertest';
import { startDemoApp, type DemoApp } from '../../examples/demo/demo-app.js';
import { McpController } from '../../examples/demo/mcp.controller.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { connectClient, textOf } from '../support/mcp-client.js';
import { PAGE_CSP } from '../support/page-app.js';
import { csrfFor, postForm, submitForm } from '../support/page-form.js';
import { assetPath } from '../../test/support/page-assets.js';

const SECRET = 'ghp_PLANTED_SECRET_fastify_0123456789';
const HTML = 'text/html; charset=utf-8';

const pathOf = (url: string) => new URL(url).pathname;
const as = (user: string) => ({ Cookie: `demo_user=${user}` });

/** An error page of the module: HTML with the security headers, the status and the message. */
function expectErrorPage(res: request.Response, status: number, text?: string): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe(HTML);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['content-security-policy']).toMatch(PAGE_CSP);
  expect(res.headers['x-frame-options']).toBe('DENY');
  if (text) expect(res.text).toContain(text);
}

/** A POST sent with Transfer-Encoding: chunked (no Content-Length), over a raw connection. */
function chunkedPost(
  url: string,
  path: string,
  headers: Record<string, string>,
  chunks: string[],
): Promise<{ status: number; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, url), { method: 'POST', headers: { ...headers, 'Transfer-Encoding': 'chunked' } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    for (const c of chunks) req.write(c);
    req.end();
  });
}

describe('the module on Fastify (the demo app with adapter: "fastify", over real HTTP)', () => {
  let demo: DemoApp;
  let service: ElicitationService;

  beforeAll(async () => {
    // Throttle and creation quota far above what these tests send (the 429 test starts its own app).
    demo = await startDemoApp({ port: 0, logger: false, adapter: 'fastify', throttleLimit: 10_000, createPerMinute: 1_000 });
    service = demo.app.get(ElicitationService);
  });
  afterAll(async () => {
    await demo.app.close();
  });

  const http = () => request(demo.url);
  const createKey = () =>
    service.createUrlElicitation({ kind: 'api-key', message: 'Enter your GitHub API key', userId: 'alice', type: 'api-key-github' });
  const createConfirm = () =>
    service.createUrlElicitation({
      kind: 'confirm',
      message: 'Deploy shop to production?',
      userId: 'alice',
      metadata: { confirmLabel: 'Deploy now' },
    });
  const submit = (pagePath: string, form: Record<string, string>, user = 'alice') => submitForm(demo.url, pagePath, form, as(user));
  const csrf = (pagePath: string, user = 'alice') => csrfFor(demo.url, pagePath, as(user));

  it('really runs on Fastify', () => {
    expect(demo.app.getHttpAdapter().getType()).toBe('fastify');
  });

  it('GET /elicit/:id/status: 200 with the status JSON, 404 JSON for unknown and malformed ids', async () => {
    const created = await createKey();
    const res = await http().get(`/elicit/${created.elicitationId}/status`).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['ratelimit-limit']).toBe('10000');
    expect(res.body).toEqual({
      elicitationId: created.elicitationId,
      status: 'pending',
      createdAt: expect.any(String),
      expiresAt: created.expiresAt.toISOString(),
      completed: false,
    });
    const unknown = await http().get('/elicit/1b4e28ba-2fa1-41d2-883f-0016d3cca427/status').expect(404);
    expect(unknown.headers['content-type']).toMatch(/^application\/json/);
    expect(unknown.body).toMatchObject({ statusCode: 404, message: expect.stringMatching(/not found/) });
    await http().get('/elicit/not-a-real-id/status').expect(404);
  });

  it('api-key page GET: the form, every security header with the CSP nonce on the style, and the CSRF cookie', async () => {
    const created = await createKey();
    const res = await http().get(pathOf(created.url)).set(as('alice')).expect(200);
    expect(res.headers['content-type']).toBe(HTML);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['strict-transport-security']).toBeUndefined();
    const csp = res.headers['content-security-policy'];
    expect(csp).toMatch(PAGE_CSP);
    const nonce = PAGE_CSP.exec(csp)![1];
    expect(res.text).toContain(`<style nonce="${nonce}">`);
    expect(res.text).toContain('Enter your GitHub API key');
    expect(res.text).toMatch(/<input type="password" id="apiKey" name="apiKey" autocomplete="off"[^>]* required/);
    const cookies = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatch(
      new RegExp(`^elicit_csrf=[A-Za-z0-9_-]{22}; Path=/elicit/${created.elicitationId}; Max-Age=\\d+; HttpOnly; SameSite=Strict$`),
    );
    // The token names its key (8 hex characters) before the HMAC.
    expect(res.text).toMatch(/name="_csrf" value="[0-9a-f]{8}\.[A-Za-z0-9_-]{43}"/);
    // A fresh nonce per render.
    const again = await http().get(pathOf(created.url)).set(as('alice')).expect(200);
    expect(PAGE_CSP.exec(again.headers['content-security-policy'])![1]).not.toBe(nonce);
    // The shared stylesheet and script, on Fastify too: under the nonce, served with their type and kept by the browser.
    const script = /<script nonce="[^"]+" src="([^"]+)" defer>/.exec(res.text)?.[1];
    const style = /<link rel="stylesheet" nonce="[^"]+" href="([^"]+)">/.exec(res.text)?.[1];
    expect(style).toMatch(assetPath('css'));
    expect(script).toMatch(assetPath('js'));
    const css = await http().get(style!).expect(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(css.text).toContain('.error-summary');
    const js = await http().get(script!).expect(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
  });

  it('an unidentified browser is sent to the demo sign-in (303), and a page of the wrong kind or id is a 404 page', async () => {
    const created = await createKey();
    const path = pathOf(created.url);
    const redirect = await http().get(path).expect(303);
    expect(redirect.headers.location).toBe(`/demo/login?returnTo=${encodeURIComponent(path)}`);
    expectErrorPage(await http().get(`/elicit/${created.elicitationId}/confirm`).set(as('alice')), 404);
    expectErrorPage(await http().get('/elicit/1b4e28ba-2fa1-41d2-883f-0016d3cca427/api-key').set(as('alice')), 404, 'not found');
  });

  it('api-key POST: a valid key shows the done page and is stored, trimmed; status hides it', async () => {
    const created = await createKey();
    const res = await submit(pathOf(created.url), { apiKey: `  ${SECRET}  `, action: 'submit' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(HTML);
    expect(res.headers['content-security-policy']).toMatch(PAGE_CSP);
    expect(res.text).toContain('The API key was received');
    expect(res.text).not.toContain(SECRET);
    expect(await service.getResult(created.elicitationId)).toEqual({ status: 'completed', data: { apiKey: SECRET } });
    const status = await http().get(`/elicit/${created.elicitationId}/status`).expect(200);
    expect(status.body).toMatchObject({ status: 'completed', completed: true });
    expect(status.text).not.toContain(SECRET);
  });

  it.each([
    ['an empty key', { apiKey: '' }, 'Enter the API key.'],
    ['a key over 4096 characters', { apiKey: 'k'.repeat(4097) }, 'The API key is longer than 4096 characters.'],
    ['an unknown action', { apiKey: 'k', action: 'delete' }, 'Unknown action.'],
  ])('api-key POST with %s: 400, the form again with the error, nothing stored', async (_, form, message) => {
    const created = await createKey();
    const res = await submit(pathOf(created.url), form);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe(HTML);
    expect(res.text).toContain(`<a href="#apiKey" id="error">${message}</a>`);
    expect(res.text).toContain('aria-invalid="true"');
    expect(([] as string[]).concat(res.headers['set-cookie'] ?? []).some((c) => c.startsWith('elicit_csrf='))).toBe(true);
    expect((await service.getStatus(created.elicitationId))!.status).toBe('pending');
  });

  // The CSRF refusals (no token, no cookie, a forged token, cross-site) on Fastify: e2e/security/csrf.e2e-spec.ts.
  it('another browser user: 403 on the page and on a post with a pair rendered for alice', async () => {
    const created = await createKey();
    const path = pathOf(created.url);
    expectErrorPage(await http().get(path).set(as('mallory')), 403, 'This request was made for a different account');
    const pair = await csrf(path);
    expectErrorPage(await postForm(demo.url, path, { apiKey: 'stolen' }, pair, as('mallory')), 403, 'different account');
    expect((await service.getStatus(created.elicitationId))!.status).toBe('pending');
  });

  it('a replayed form is a 409 page; the first key stays', async () => {
    const created = await createKey();
    const path = pathOf(created.url);
    const pair = await csrf(path);
    expect((await postForm(demo.url, path, { apiKey: 'first-key' }, pair, as('alice'))).status).toBe(200);
    const replay = await postForm(demo.url, path, { apiKey: 'second-key' }, pair, as('alice'));
    expectErrorPage(replay, 409, 'This request was already answered. Nothing was changed.');
    expect(replay.text).not.toMatch(/first-key|second-key/);
    expectErrorPage(await http().get(path).set(as('alice')), 409);
    expect(await service.getResult(created.elicitationId)).toEqual({ status: 'completed', data: { apiKey: 'first-key' } });
  });

  it('a 20 KB post is a 413 page, with and without Content-Length; nothing stored', async () => {
    const created = await createKey();
    const path = pathOf(created.url);
    const pair = await csrf(path);
    expectErrorPage(
      await postForm(demo.url, path, { apiKey: 'k'.repeat(20 * 1024) }, pair, as('alice')),
      413,
      'The form sent too much data. Nothing was saved.',
    );
    const body = `_csrf=${pair.token}&apiKey=${'k'.repeat(20 * 1024)}`;
    const chunked = await chunkedPost(
      demo.url,
      path,
      { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: `demo_user=alice; ${pair.cookie}` },
      [body.slice(0, 5000), body.slice(5000, 15000), body.slice(15000)],
    );
    expect(chunked.status).toBe(413);
    expect(chunked.headers['content-type']).toBe(HTML);
    expect((await service.getStatus(created.elicitationId))!.status).toBe('pending');
  });

  it('confirm page: GET renders the labels, confirm completes, cancel declines, another user gets 403', async () => {
    const created = await createConfirm();
    const path = pathOf(created.url);
    const page = await http().get(path).set(as('alice')).expect(200);
    expect(page.headers['content-type']).toBe(HTML);
    expect(page.headers['content-security-policy']).toMatch(PAGE_CSP);
    expect(page.text).toContain('Deploy shop to production?');
    expect(page.text).toContain('value="confirm" class="primary">Deploy now</button>');
    expectErrorPage(await postForm(demo.url, path, { action: 'confirm' }, await csrf(path), as('mallory')), 403);
    const bad = await submit(path, { action: 'maybe' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Choose confirm or cancel.');
    const done = await submit(path, { action: 'confirm' });
    expect(done.status).toBe(200);
    expect(done.text).toContain('Your confirmation was received');
    expect(await service.getResult(created.elicitationId)).toEqual({ status: 'completed', data: { confirmed: true } });

    const other = await createConfirm();
    expect((await submit(pathOf(other.url), { action: 'cancel' })).status).toBe(200);
    expect(await service.getResult(other.elicitationId)).toEqual({ status: 'declined' });
  });

  it('MCP over Fastify with the real SDK client: connect-service → -32042 → page → notification → retry', async () => {
    // frank: alice already stored a github key through the pages above.
    const frank = await connectClient(demo.mcpUrl, { user: 'frank' });
    try {
      const error = await frank.client.callTool({ name: 'connect-service', arguments: { service: 'github' } }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(UrlElicitationRequiredError);
      const required = error as UrlElicitationRequiredError;
      expect(required.code).toBe(-32042);
      const [el] = required.elicitations;
      expect(el.url).toBe(`${demo.url}/elicit/${el.elicitationId}/api-key`);

      const notified = frank.completion(el.elicitationId);
      const done = await submit(pathOf(el.url), { apiKey: SECRET, action: 'submit' }, 'frank');
      expect(done.status).toBe(200);
      expect(done.text).toContain('The API key was received');
      await notified;
      expect(frank.completed).toEqual([el.elicitationId]);

      const retry = await frank.client.callTool({ name: 'connect-service', arguments: { service: 'github' } });
      expect(textOf(retry)).toBe('Connected to github');
      expect(JSON.stringify(retry)).not.toContain(SECRET);
      expect(demo.app.get(McpController).openSessions).toBe(1);
    } finally {
      await frank.close();
    }
    // The DELETE that ends the session went through the hijacked reply too.
    expect(demo.app.get(McpController).openSessions).toBe(0);
  });

  it('MCP route checks on Fastify: no session id → 400, unknown session → 404, foreign Host → 403', async () => {
    const init = await http()
      .post('/mcp')
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(init.status).toBe(400);
    expect(init.body).toMatchObject({ error: { code: -32000 } });
    const unknown = await http().post('/mcp').set({ 'Mcp-Session-Id': 'nope', Accept: 'application/json, text/event-stream' }).send({});
    expect(unknown.status).toBe(404);
    const rebinding = await http().post('/mcp').set({ Host: 'evil.example', Accept: 'application/json, text/event-stream' }).send({});
    expect(rebinding.status).toBe(403);
  });
});

describe('the throttle on Fastify', () => {
  let demo: DemoApp;
  beforeAll(async () => {
    demo = await startDemoApp({ port: 0, logger: false, adapter: 'fastify', throttleLimit: 3 });
  });
  afterAll(async () => {
    await demo.app.close();
  });

  it('the 4th request from one IP is a 429 (JSON on status, a page on the pages) with Retry-After; the demo login is never throttled', async () => {
    const created = await demo.app.get(ElicitationService).createUrlElicitation({ kind: 'api-key', message: 'key?', userId: 'alice' });
    for (let i = 0; i < 3; i++) {
      const res = await request(demo.url).get(`/elicit/${created.elicitationId}/status`).expect(200);
      expect(res.headers['ratelimit-remaining']).toBe(String(2 - i));
    }
    const status = await request(demo.url).get(`/elicit/${created.elicitationId}/status`);
    expect(status.status).toBe(429);
    expect(status.headers['content-type']).toMatch(/^application\/json/);
    expect(Number(status.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(status.body).toMatchObject({ statusCode: 429, message: expect.stringMatching(/Too many requests/) });
    const page = await request(demo.url).get(pathOf(created.url)).set(as('alice'));
    expectErrorPage(page, 429, 'Too many requests from your network.');
    expect(Number(page.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const post = await request(demo.url).post(pathOf(created.url)).set(as('alice')).type('form').send({ apiKey: 'k' });
    expectErrorPage(post, 429);
    expect((await request(demo.url).get('/demo/login?user=alice')).status).toBe(200);
    expect(await demo.app.get(ElicitationService).getResult(created.elicitationId)).toEqual({ status: 'pending' });
  });
});
