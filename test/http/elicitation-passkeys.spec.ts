/**
 * The passkey page (`/elicit/passkeys`) and a confirm page's passkey step (#45), on a real Nest app over real HTTP with
 * a software authenticator (the browser's side is e2e/approvals/passkeys.e2e-spec.ts): identity as the inbox has it,
 * CSRF tokens bound to the user, `returnTo` only to a confirm page of the module, `canRegister`'s three answers, removal;
 * a confirm page that asks for a passkey offers the ceremony or the way to add one, takes a confirmation only with the
 * user's signature (the receipt in the answer) and shows the page again, nothing stored, for anything else.
 */
import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';
import { PAGE_CSP, startPageApp } from '../../e2e/support/page-app.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';

const ORIGIN = 'http://localhost:3000';

interface Answer {
  status: number;
  headers: Headers;
  body: string;
}

const apps: INestApplication<Server>[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

async function start(options: Partial<ElicitationModuleOptions> = {}) {
  const { app, service } = await startPageApp({ baseUrl: ORIGIN, passkeys: {}, ...options }, { listen: true });
  apps.push(app);
  const base = await app.getUrl();
  /** A browser of `user`: its cookies kept between requests. */
  const browser = (user?: string) => {
    const cookies = new Map<string, string>();
    const send = async (path: string, form?: Record<string, string>): Promise<Answer> => {
      const headers: Record<string, string> = { ...(user && { 'x-test-user': user }) };
      if (cookies.size > 0) headers.cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
      const res = await fetch(`${base}${path}`, {
        method: form ? 'POST' : 'GET',
        headers,
        body: form && new URLSearchParams(form).toString(),
        redirect: 'manual',
      });
      for (const cookie of res.headers.getSetCookie()) {
        const [pair] = cookie.split(';');
        const eq = pair.indexOf('=');
        cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
      }
      return { status: res.status, headers: res.headers, body: await res.text() };
    };
    return { get: (path: string) => send(path), post: send };
  };
  return { service, browser };
}

const unescape = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&#x3D;/g, '=')
    .replace(/&#x60;/g, '`')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)![1];
const optionsOf = (html: string) =>
  JSON.parse(unescape(/data-passkey-options="([^"]+)"/.exec(html)![1])) as { challenge: string; rp?: { id: string } };

/** Adds a passkey of `authenticator` on the passkey page of `b` (its page `html`); resolves the answer. */
async function add(
  b: ReturnType<Awaited<ReturnType<typeof start>>['browser']>,
  html: string,
  authenticator: SoftAuthenticator,
  extra = {},
) {
  const response = authenticator.register(optionsOf(html).challenge);
  return b.post('/elicit/passkeys', { _csrf: csrfOf(html), action: 'add', name: '<b>laptop</b>', passkey: response, ...extra });
}

describe('the passkey page, /elicit/passkeys', () => {
  it("is the signed-in user's: 401 without one, 303 to loginUrl, 404 without resolvePageUser", async () => {
    expect((await (await start()).browser().get('/elicit/passkeys')).status).toBe(401);
    const login = await (await start({ loginUrl: '/login' })).browser().get('/elicit/passkeys');
    expect([login.status, login.headers.get('location')]).toEqual([303, '/login?returnTo=%2Felicit%2Fpasskeys']);
    const none = await (await start({ resolvePageUser: undefined, allowUnverifiedPages: true })).browser('bob').get('/elicit/passkeys');
    expect(none.status).toBe(404);
  });

  it("adds a passkey (the name escaped), lists it, removes it; the page has the pages' headers and the bar link", async () => {
    const { browser, service } = await start();
    const bob = browser('bob');
    const page = await bob.get('/elicit/passkeys');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(PAGE_CSP);
    expect(page.headers.get('set-cookie')).toMatch(/Path=\/elicit\/passkeys; .*HttpOnly; SameSite=Strict/);
    expect(page.body).toMatch(/<script nonce="[^"]+" src="\/elicit\/assets\/passkey\.[0-9a-f]{12}\.js" defer><\/script>/);
    expect(page.body).toContain('<a href="/elicit/passkeys" aria-current="page">Passkeys</a>');
    expect(optionsOf(page.body).rp).toEqual({ name: 'Authorization request', id: 'localhost' });
    const authenticator = new SoftAuthenticator('localhost', ORIGIN);
    const added = await add(bob, page.body, authenticator);
    expect(added.status).toBe(200);
    expect(added.body).toContain('Your passkey was added.');
    expect(added.body).toContain('&lt;b&gt;laptop&lt;/b&gt;');
    expect(added.body).not.toContain('<b>laptop</b>');
    expect((await service.listPasskeys('bob')).map((p) => p.id)).toEqual([authenticator.credentialId]);
    // Another user cannot remove it; bob can.
    const carol = browser('carol');
    const carolPage = await carol.get('/elicit/passkeys');
    const theirs = await carol.post('/elicit/passkeys', {
      _csrf: csrfOf(carolPage.body),
      action: 'remove',
      id: authenticator.credentialId,
    });
    expect(theirs.status).toBe(404);
    const removed = await bob.post('/elicit/passkeys', { _csrf: csrfOf(added.body), action: 'remove', id: authenticator.credentialId });
    expect(removed.body).toContain('The passkey was removed.');
    expect(await service.listPasskeys('bob')).toEqual([]);
  });

  it("refuses a post without the page's token, or with another user's", async () => {
    const { browser, service } = await start();
    const bob = browser('bob');
    const page = await bob.get('/elicit/passkeys');
    const authenticator = new SoftAuthenticator('localhost', ORIGIN);
    expect((await add(bob, page.body, authenticator, { _csrf: 'x' })).status).toBe(403);
    const carol = browser('carol');
    await carol.get('/elicit/passkeys');
    const carolsToken = csrfOf((await carol.get('/elicit/passkeys')).body);
    // carol's token, in a browser holding bob's nonce: bound to carol, refused for bob.
    expect((await add(bob, page.body, authenticator, { _csrf: carolsToken })).status).toBe(403);
    expect(await service.listPasskeys('bob')).toEqual([]);
  });

  it('goes back only to a confirm page of this module', async () => {
    const { browser, service } = await start();
    const { elicitationId } = await service.createUrlElicitation({ kind: 'confirm', presence: 'passkey', userId: 'bob', message: 'Sure?' });
    const bob = browser('bob');
    const evil = await bob.get(`/elicit/passkeys?returnTo=${encodeURIComponent('https://evil.example/elicit/x/confirm')}`);
    expect(evil.body).not.toContain('evil.example');
    const back = `/elicit/${elicitationId}/confirm`;
    const page = await bob.get(`/elicit/passkeys?returnTo=${encodeURIComponent(back)}`);
    expect(page.body).toContain(`<a href="${back}">Back to the request</a>`);
    const added = await add(bob, page.body, new SoftAuthenticator('localhost', ORIGIN), { returnTo: back });
    expect([added.status, added.headers.get('location')]).toEqual([303, back]);
  });

  it('follows canRegister: false refuses, a URL is the login step first', async () => {
    const { browser } = await start({ passkeys: { canRegister: (user) => (user === 'bob' ? false : '/login?fresh=1') } });
    const refused = await browser('bob').get('/elicit/passkeys');
    expect(refused.body).toContain('You cannot add a passkey here. Ask your administrator.');
    expect(refused.body).not.toContain('data-passkey=');
    const carol = await browser('carol').get('/elicit/passkeys');
    expect([carol.status, carol.headers.get('location')]).toEqual([303, '/login?fresh=1&returnTo=%2Felicit%2Fpasskeys']);
  });
});

describe('a confirm page that asks for a passkey', () => {
  async function confirmPage() {
    const app = await start();
    const action = { tool: 'transfer-funds', args: { to: 'acme', amount: 100 } };
    const { elicitationId } = await app.service.createUrlElicitation({
      kind: 'confirm',
      presence: 'passkey',
      action,
      userId: 'bob',
      message: 'Transfer?',
    });
    return { ...app, id: elicitationId, path: `/elicit/${elicitationId}/confirm` };
  }

  it('sends a user without a passkey to add one first, and offers no Approve', async () => {
    const { browser, path } = await confirmPage();
    const page = await browser('bob').get(path);
    expect(page.body).toContain('You need a passkey to approve this request.');
    // What the signature binds is on the page: the tool, the arguments, the fingerprint.
    expect(page.body).toMatch(/<code>transfer-funds<\/code>[\s\S]*<code>amount<\/code><\/dt><dd dir="auto"><code>100<\/code>/);
    expect(page.body).toMatch(/<code title="[0-9a-f]{64}">[0-9a-f]{12}<\/code>/);
    const post = await browser('bob').post(path, { _csrf: csrfOf(page.body), action: 'confirm' });
    expect(post.status).toBe(403);
    expect(page.body).toContain(`href="/elicit/passkeys?returnTo&#x3D;${encodeURIComponent(path)}"`);
    expect(page.body).not.toContain('value="confirm"');
  });

  it("takes the confirmation with the signature of the user's passkey, and keeps its receipt", async () => {
    const { browser, service, id, path } = await confirmPage();
    const bob = browser('bob');
    const authenticator = new SoftAuthenticator('localhost', ORIGIN);
    await add(bob, (await bob.get('/elicit/passkeys')).body, authenticator);
    const page = await bob.get(path);
    expect(page.body).toContain('approving signs exactly what is shown above');
    const { challenge } = optionsOf(page.body);
    const bare = await bob.post(path, { _csrf: csrfOf(page.body), action: 'confirm' });
    expect(bare.status).toBe(400);
    expect(bare.body).toContain('No passkey signature came with your answer.');
    expect(await service.getResult(id)).toEqual({ status: 'pending' });
    const done = await bob.post(path, { _csrf: csrfOf(page.body), action: 'confirm', passkey: authenticator.sign(challenge) });
    expect(done.status).toBe(200);
    const result = (await service.getResult(id)) as { status: string; data: { confirmed: boolean; receipt: object } };
    expect(result).toMatchObject({
      status: 'completed',
      data: { confirmed: true, receipt: { userId: 'bob', credentialId: authenticator.credentialId } },
    });
    expect(await service.verifyReceipt(result.data.receipt)).toMatchObject({ valid: true });
  });

  it('takes a refusal without a passkey', async () => {
    const { browser, service, id, path } = await confirmPage();
    const bob = browser('bob');
    const page = await bob.get(path);
    expect((await bob.post(path, { _csrf: csrfOf(page.body), action: 'cancel' })).status).toBe(200);
    expect(await service.getResult(id)).toEqual({ status: 'declined' });
  });
});

describe('without the passkeys option', () => {
  it("the bar has no passkey link, and the page is still there for a confirm page's link", async () => {
    const { app } = await startPageApp({ baseUrl: ORIGIN }, { listen: true });
    apps.push(app);
    const base = await app.getUrl();
    const page = await fetch(`${base}/elicit/passkeys`, { headers: { 'x-test-user': 'bob' } });
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).not.toContain('aria-current="page">Passkeys');
  });
});
