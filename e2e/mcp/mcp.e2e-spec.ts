import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import request from 'supertest';
import { startDemoApp, type DemoApp } from '../../examples/demo/demo-app.js';
import { CompletionNotifications } from '../../src/mcp/completion-notifications.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { connectClient, textOf, type TestClient } from '../support/mcp-client.js';
import { connectV2Client } from '../support/mcp-v2-client.js';
import { csrfFor, postForm, submitForm } from '../support/page-form.js';

const SECRET = 'ghp_PLANTED_SECRET_0123456789';
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('MCP binding over Streamable HTTP with the real SDK client (spec 2025-11-25)', () => {
  let demo: DemoApp;
  const clients: TestClient[] = [];
  const connect = async (...args: Parameters<typeof connectClient> extends [unknown, ...infer R] ? R : never) => {
    const c = await connectClient(demo.mcpUrl, ...args);
    clients.push(c);
    return c;
  };
  /** The browser: the demo login cookie, then the page. */
  const browser = (user = 'alice') => ({
    get: (url: string) => request(demo.url).get(new URL(url).pathname).set('Cookie', `demo_user=${user}`),
    /** Renders the page (CSRF token and cookie) and submits its form. */
    post: (url: string, form: Record<string, string>) => submitForm(demo.url, new URL(url).pathname, form, { Cookie: `demo_user=${user}` }),
    /** Submits with a form rendered for `as` (to post as another user than the one who rendered it). */
    postWithFormOf: async (as: string, url: string, form: Record<string, string>) =>
      postForm(demo.url, new URL(url).pathname, form, await csrfFor(demo.url, new URL(url).pathname, { Cookie: `demo_user=${as}` }), {
        Cookie: `demo_user=${user}`,
      }),
  });

  beforeAll(async () => {
    demo = await startDemoApp({ port: 0, logger: false });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await demo.app.close();
  });

  const requiredError = async (call: Promise<unknown>): Promise<UrlElicitationRequiredError> => {
    const error = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UrlElicitationRequiredError);
    return error as UrlElicitationRequiredError;
  };

  describe('connect-service: -32042, page, notification, retry', () => {
    it('runs the whole flow and never shows the key to the client', async () => {
      const alice = await connect();
      const bystander = await connect({ user: 'alice' });
      const error = await requiredError(alice.client.callTool({ name: 'connect-service', arguments: { service: 'github' } }));
      expect(error.code).toBe(-32042);
      expect(error.elicitations).toHaveLength(1);
      const [el] = error.elicitations;
      expect(el.mode).toBe('url');
      expect(el.elicitationId).toMatch(UUID_V4);
      expect(el.url).toBe(`${demo.url}/elicit/${el.elicitationId}/api-key`);
      expect(el.message).toMatch(/github API key/);

      const page = await browser().get(el.url).expect(200);
      expect(page.text).toContain('Enter your github API key');
      const status = await request(demo.url).get(`/elicit/${el.elicitationId}/status`).expect(200);
      expect(status.body).toMatchObject({ status: 'pending', completed: false });

      const notified = alice.completion(el.elicitationId);
      const done = await browser().post(el.url, { apiKey: SECRET, action: 'submit' });
      expect(done.status).toBe(200);
      expect(done.text).toContain('The API key was received');
      await notified;
      expect(alice.completed).toEqual([el.elicitationId]);

      const retry = await alice.client.callTool({ name: 'connect-service', arguments: { service: 'github' } });
      expect(textOf(retry)).toBe('Connected to github');
      expect(JSON.stringify(retry)).not.toContain(SECRET);
      const after = await request(demo.url).get(`/elicit/${el.elicitationId}/status`).expect(200);
      expect(after.body).toMatchObject({ status: 'completed', completed: true });
      expect(after.text).not.toContain(SECRET);

      // Only the session that asked is notified.
      await new Promise((r) => setTimeout(r, 200));
      expect(bystander.completed).toEqual([]);
      // The key is stored per user: another user still has to give their own.
      const bob = await connect({ user: 'bob' });
      await requiredError(bob.client.callTool({ name: 'connect-service', arguments: { service: 'github' } }));
    });

    it('shows the same page again when the client retries before the user answered', async () => {
      const c = await connect({ user: 'carol' });
      const first = await requiredError(c.client.callTool({ name: 'connect-service', arguments: { service: 'gitlab' } }));
      const second = await requiredError(c.client.callTool({ name: 'connect-service', arguments: { service: 'gitlab' } }));
      expect(second.elicitations[0].elicitationId).toBe(first.elicitations[0].elicitationId);
    });

    it('notifies the session when the user declines on the page; the retry reports the decline once, the next one asks again', async () => {
      const c = await connect({ user: 'dave' });
      const { elicitations } = await requiredError(c.client.callTool({ name: 'connect-service', arguments: { service: 'jira' } }));
      const notified = c.completion(elicitations[0].elicitationId);
      expect((await browser('dave').post(elicitations[0].url, { action: 'cancel' })).status).toBe(200);
      await notified;
      const retry = await c.client.callTool({ name: 'connect-service', arguments: { service: 'jira' } });
      expect(retry.isError).toBe(true);
      expect(textOf(retry)).toMatch(/declined/);
      const again = await requiredError(c.client.callTool({ name: 'connect-service', arguments: { service: 'jira' } }));
      expect(again.elicitations[0].elicitationId).not.toBe(elicitations[0].elicitationId);
    });

    it('refuses the page to another browser user (403) and keeps the elicitation pending', async () => {
      const c = await connect({ user: 'erin' });
      const { elicitations } = await requiredError(c.client.callTool({ name: 'connect-service', arguments: { service: 'slack' } }));
      // Mallory's browser cannot even render the page, and a form rendered for erin is refused to her too.
      await browser('mallory').get(elicitations[0].url).expect(403);
      expect((await browser('mallory').postWithFormOf('erin', elicitations[0].url, { apiKey: 'attacker-key' })).status).toBe(403);
      // An unidentified browser is sent to the demo sign-in, and from there back to this very page.
      const path = new URL(elicitations[0].url).pathname;
      const redirect = await request(demo.url).get(path).expect(303);
      expect(redirect.headers.location).toBe(`/demo/login?returnTo=${encodeURIComponent(path)}`);
      const form = await request(demo.url).get(redirect.headers.location).expect(200);
      expect(form.text).toContain(`name="returnTo" value="${path}"`);
      const signedIn = await request(demo.url)
        .get(`/demo/login?user=erin&returnTo=${encodeURIComponent(path)}`)
        .expect(303);
      expect(signedIn.headers.location).toBe(path);
      await request(demo.url).get('/demo/login?user=erin&returnTo=//evil.example/').expect(200);
      const status = await request(demo.url).get(`/elicit/${elicitations[0].elicitationId}/status`).expect(200);
      expect((status.body as { status: string }).status).toBe('pending');
    });
  });

  describe('approve-deploy: URL elicitation awaited inside the call', () => {
    const deployWith = async (user: string, onUrl: (url: string) => Promise<void>, consent: 'accept' | 'decline' | 'cancel' = 'accept') => {
      let seen: { url: string; elicitationId: string; message: string } | undefined;
      const c = await connect({
        user,
        onElicit: (params) => {
          if (params.mode !== 'url') return Promise.reject(new Error('expected URL mode'));
          seen = { url: params.url, elicitationId: params.elicitationId, message: params.message };
          if (consent === 'accept') setTimeout(() => void onUrl(params.url), 20);
          return Promise.resolve({ action: consent });
        },
      });
      const result = await c.client.callTool({ name: 'approve-deploy', arguments: { app: 'shop' } }, undefined, { timeout: 20_000 });
      return { result, seen: seen!, client: c };
    };

    it('returns "Deployed <app>" after the user confirms on the page', async () => {
      const { result, seen, client } = await deployWith('frank', async (url) => {
        const page = await browser('frank').get(url).expect(200);
        expect(page.text).toContain('Deploy shop to production?');
        expect(page.text).toContain('>Deploy</button>');
        expect((await browser('frank').post(url, { action: 'confirm' })).status).toBe(200);
      });
      expect(textOf(result)).toBe('Deployed shop');
      expect(seen.url).toBe(`${demo.url}/elicit/${seen.elicitationId}/confirm`);
      await client.completion(seen.elicitationId);
    });

    it('returns "Deployment cancelled" when the user cancels on the page', async () => {
      const { result } = await deployWith('grace', async (url) => {
        expect((await browser('grace').post(url, { action: 'cancel' })).status).toBe(200);
      });
      expect(textOf(result)).toBe('Deployment cancelled');
    });

    it('returns "Deployment cancelled" when the client declines to open the URL, and closes the elicitation', async () => {
      const { result, seen } = await deployWith('heidi', () => Promise.resolve(), 'decline');
      expect(textOf(result)).toBe('Deployment cancelled');
      const status = await request(demo.url).get(`/elicit/${seen.elicitationId}/status`).expect(200);
      expect((status.body as { status: string }).status).toBe('declined');
      await browser('heidi').get(seen.url).expect(409);
    });
  });

  describe('delete-file: form mode pass-through', () => {
    it('deletes on accept with confirmed: true, and the request carries the schema', async () => {
      let asked: Record<string, unknown> | undefined;
      const c = await connect({
        user: 'ivan',
        onElicit: (params) => {
          asked = params;
          return Promise.resolve({ action: 'accept', content: { confirmed: true } });
        },
      });
      const result = await c.client.callTool({ name: 'delete-file', arguments: { path: '/tmp/report.txt' } });
      expect(textOf(result)).toBe('Deleted /tmp/report.txt');
      expect(asked).toMatchObject({
        mode: 'form',
        message: 'Delete /tmp/report.txt?',
        requestedSchema: { type: 'object', properties: { confirmed: { type: 'boolean' } }, required: ['confirmed'] },
      });
    });

    it.each([
      ['decline', { action: 'decline' as const }],
      ['cancel', { action: 'cancel' as const }],
      ['accept with confirmed: false', { action: 'accept' as const, content: { confirmed: false } }],
    ])('answers Cancelled on %s', async (_, answer) => {
      const c = await connect({ user: 'judy', onElicit: () => Promise.resolve(answer) });
      expect(textOf(await c.client.callTool({ name: 'delete-file', arguments: { path: 'a.txt' } }))).toBe('Cancelled');
    });
  });

  describe('clients without the needed capability get the question down the fallback ladder, never a hang', () => {
    it('connect-service on a form-only client: the form bridge carries the page URL; declining it ends the question', async () => {
      let message = '';
      const c = await connect({
        user: 'kim',
        elicitation: {},
        onElicit: (params) => {
          message = params.message;
          return Promise.resolve({ action: 'decline' });
        },
      });
      const result = await c.client.callTool({ name: 'connect-service', arguments: { service: 'github' } });
      expect(message).toMatch(/\/elicit\/[0-9a-f-]{36}\/api-key/);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/declined/);
    });

    it('approve-deploy on a client without elicitation: a link result, not an error', async () => {
      const c = await connect({ user: 'kim', elicitation: null });
      const result = await c.client.callTool({ name: 'approve-deploy', arguments: { app: 'shop' } });
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toMatch(/\/elicit\/[0-9a-f-]{36}\/confirm/);
    });

    it('delete-file on a URL-only client: the hosted form page in URL mode', async () => {
      let mode = '';
      const c = await connect({
        user: 'kim',
        elicitation: { url: {} },
        onElicit: (params) => {
          mode = params.mode ?? 'form';
          return Promise.resolve({ action: 'decline' });
        },
      });
      const result = await c.client.callTool({ name: 'delete-file', arguments: { path: 'a.txt' } });
      expect(mode).toBe('url');
      expect(textOf(result)).toBe('Cancelled');
    });

    it('connect-service without an authenticated user: no 2025-11-25 session and no 2026-07-28 request (401 on both eras)', async () => {
      await expect(connect({ user: null })).rejects.toMatchObject({ code: 401, message: expect.stringContaining('Sign in first') });
      await expect(connectV2Client(demo.mcpUrl, { user: null })).rejects.toThrow(/401|Unauthorized|Sign in first/);
    });
  });

  describe('sessions', () => {
    it('answers 404 for an unknown session and 400 without one', async () => {
      const body = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
      await request(demo.url)
        .post('/mcp')
        .set('Mcp-Session-Id', 'no-such-session')
        .set('Accept', 'application/json, text/event-stream')
        .send(body)
        .expect(404);
      await request(demo.url).post('/mcp').set('Accept', 'application/json, text/event-stream').send(body).expect(400);
    });

    it('refuses a foreign Host or Origin (DNS rebinding)', async () => {
      await request(demo.url).post('/mcp').set('Host', 'evil.example').send({}).expect(403);
      await request(demo.url).post('/mcp').set('Origin', 'https://evil.example').send({}).expect(403);
    });

    it('forgets the session pairing when the session closes, and the result survives', async () => {
      const binding = demo.app.get(CompletionNotifications);
      const service = demo.app.get(ElicitationService);
      const c = await connectClient(demo.mcpUrl, { user: 'liam' });
      const { elicitations } = await requiredError(c.client.callTool({ name: 'connect-service', arguments: { service: 'aws' } }));
      expect(binding.tracked.elicitations).toBeGreaterThanOrEqual(1);
      const before = binding.tracked;
      await c.close();
      const deadline = Date.now() + 2_000;
      while (binding.tracked.elicitations >= before.elicitations && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(binding.tracked.elicitations).toBe(before.elicitations - 1);
      // Completing after the session closed is stored, not lost: a new session finds it.
      expect((await browser('liam').post(elicitations[0].url, { apiKey: SECRET })).status).toBe(200);
      expect(await service.findByUserAndType('liam', 'api-key-aws')).toMatchObject({ data: { apiKey: SECRET } });
      const fresh = await connect({ user: 'liam' });
      expect(textOf(await fresh.client.callTool({ name: 'connect-service', arguments: { service: 'aws' } }))).toBe('Connected to aws');
    });

    it('drops the pairing once the elicitation finishes', async () => {
      const binding = demo.app.get(CompletionNotifications);
      const c = await connect({ user: 'mia' });
      const { elicitations } = await requiredError(c.client.callTool({ name: 'connect-service', arguments: { service: 'npm' } }));
      const id = elicitations[0].elicitationId;
      expect(binding.isPaired(id)).toBe(true);
      expect((await browser('mia').post(elicitations[0].url, { apiKey: 'k' })).status).toBe(200);
      await c.completion(id);
      expect(binding.isPaired(id)).toBe(false);
    });
  });
});
