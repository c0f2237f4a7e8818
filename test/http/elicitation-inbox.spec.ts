/**
 * The inbox route (#43), `GET /elicit/inbox`, on a real Nest app over real HTTP: identity as the pages have it (401
 * without a user, page and JSON; a 303 to `loginUrl` for the page; no inbox without `resolvePageUser`), each user's
 * own open questions only, newest first, paged with `?after=` (20 a page), answered and expired ones gone, a task's
 * question, what asked, escaping, the JSON's shape, the pages' headers and CSP (with `connect-src 'self'` for the
 * page's poll), languages, and the bar's link to the inbox on every page.
 */
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { PAGE_CSP, startPageApp } from '../../e2e/support/page-app.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const JSON_ACCEPT = 'application/json';
/** What a browser's navigation sends. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

interface Answer {
  status: number;
  headers: Headers;
  body: string;
}

/** The ids of the questions a rendered inbox lists, in order. */
const listedIds = (html: string) => [...html.matchAll(/<li class="question" data-id="([^"]+)">/g)].map((m) => m[1]);

/** The `href` of the inbox's "Older questions" link, or undefined when it is hidden. */
function olderLink(html: string): string | undefined {
  const match = /<a id="inbox-older" href="([^"]*)"( hidden)?>/.exec(html);
  return match && !match[2] ? match[1].replace(/&amp;/g, '&').replace(/&#x3D;/g, '=') : undefined;
}

describe('the inbox, GET /elicit/inbox (#43)', () => {
  let app: INestApplication<Server>;
  let service: ElicitationService;
  let base: string;

  beforeAll(async () => {
    ({ app, service } = await startPageApp({}, { listen: true }));
    base = await app.getUrl();
  });
  afterAll(async () => {
    await app.close();
  });

  async function get(
    path: string,
    { user, accept, language }: { user?: string; accept?: string; language?: string } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { accept: accept ?? BROWSER_ACCEPT };
    if (user) headers['x-test-user'] = user;
    if (language) headers['accept-language'] = language;
    const res = await fetch(`${base}${path}`, { headers, redirect: 'manual' });
    return { status: res.status, headers: res.headers, body: await res.text() };
  }

  /** Creates questions for `userId` one after another (each at least a millisecond later); resolves their ids, oldest first. */
  async function ask(userId: string, count: number, extra: Record<string, unknown> = {}): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      ids.push(
        (await service.createUrlElicitation({ kind: 'confirm', message: `Question ${i} for ${userId}`, userId, ...extra })).elicitationId,
      );
      await sleep(2);
    }
    return ids;
  }

  describe('identity, exactly as on the pages', () => {
    it('answers 401 without a browser user: an error page, or JSON when JSON is asked for', async () => {
      await ask('alice', 1);
      const page = await get('/elicit/inbox');
      expect(page.status).toBe(401);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.body).toContain('<h1 dir="auto">Please sign in</h1>');
      expect(page.body).not.toContain('Question 0');
      const json = await get('/elicit/inbox', { accept: JSON_ACCEPT });
      expect(json.status).toBe(401);
      expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(JSON.parse(json.body)).toEqual({
        statusCode: 401,
        message: 'Please sign in to this application, then open the link again.',
        error: 'Unauthorized',
      });
      expect(json.headers.get('vary')).toBe('Accept');
    });

    it('sends a browser without a user to loginUrl with the inbox as returnTo; JSON stays 401', async () => {
      const { app: withLogin } = await startPageApp({ loginUrl: '/auth/login' }, { listen: true });
      try {
        const url = await withLogin.getUrl();
        const page = await fetch(`${url}/elicit/inbox`, { redirect: 'manual' });
        expect(page.status).toBe(303);
        expect(page.headers.get('location')).toBe(`/auth/login?returnTo=${encodeURIComponent('/elicit/inbox')}`);
        expect(page.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none';base-uri 'none'");
        const json = await fetch(`${url}/elicit/inbox`, { headers: { accept: JSON_ACCEPT }, redirect: 'manual' });
        expect(json.status).toBe(401);
      } finally {
        await withLogin.close();
      }
    });

    it('has no inbox without resolvePageUser (no user can be told from another): 404, and no link to it', async () => {
      const { app: open, service: openService } = await startPageApp({ resolvePageUser: undefined }, { listen: true });
      try {
        const url = await open.getUrl();
        const { elicitationId } = await openService.createUrlElicitation({ kind: 'confirm', message: 'Deploy?', userId: 'alice' });
        expect((await fetch(`${url}/elicit/inbox`)).status).toBe(404);
        expect((await fetch(`${url}/elicit/inbox`, { headers: { accept: JSON_ACCEPT } })).status).toBe(404);
        const page = await (await fetch(`${url}/elicit/${elicitationId}/confirm`)).text();
        expect(page).not.toContain('/elicit/inbox');
      } finally {
        await open.close();
      }
    });

    it("two users each see their own open questions, and nothing of the other's", async () => {
      const carols = await ask('carol', 2);
      const daves = await ask('dave', 3);
      const carol = await get('/elicit/inbox', { user: 'carol' });
      expect(carol.status).toBe(200);
      expect(listedIds(carol.body)).toEqual([...carols].reverse());
      expect(carol.body).not.toContain('for dave');
      const dave = JSON.parse((await get('/elicit/inbox', { user: 'dave', accept: JSON_ACCEPT })).body) as {
        questions: Array<{ elicitationId: string }>;
      };
      expect(dave.questions.map((q) => q.elicitationId)).toEqual([...daves].reverse());
      expect(JSON.stringify(dave)).not.toContain('carol');
    });
  });

  describe('the list', () => {
    it('lists newest first, and pages with ?after= (20 a page) across three pages, page and JSON alike', async () => {
      const ids = await ask('erin', 45);
      const newestFirst = [...ids].reverse();
      const first = await get('/elicit/inbox', { user: 'erin' });
      expect(listedIds(first.body)).toEqual(newestFirst.slice(0, 20));
      expect(first.body).not.toContain('id="inbox-newest"');
      const secondPath = olderLink(first.body)!;
      expect(secondPath).toMatch(/^\/elicit\/inbox\?after=.+/);
      const second = await get(secondPath, { user: 'erin' });
      expect(listedIds(second.body)).toEqual(newestFirst.slice(20, 40));
      // A later page links back to the newest questions.
      expect(second.body).toContain('<a id="inbox-newest" href="/elicit/inbox">Back to the newest questions</a>');
      const third = await get(olderLink(second.body)!, { user: 'erin' });
      expect(listedIds(third.body)).toEqual(newestFirst.slice(40));
      expect(olderLink(third.body)).toBeUndefined();

      // The same pages as JSON, following `next`.
      const pages: Array<{ questions: Array<{ elicitationId: string }>; next?: string }> = [];
      let path = '/elicit/inbox';
      for (let i = 0; i < 3; i++) {
        const page = JSON.parse((await get(path, { user: 'erin', accept: JSON_ACCEPT })).body) as (typeof pages)[number];
        pages.push(page);
        if (page.next) path = `/elicit/inbox?after=${encodeURIComponent(page.next)}`;
      }
      expect(pages.map((p) => p.questions.length)).toEqual([20, 20, 5]);
      expect(pages.flatMap((p) => p.questions.map((q) => q.elicitationId))).toEqual(newestFirst);
      expect(pages[2]).not.toHaveProperty('next');
    });

    it('drops a question once it is answered or expired; shows the empty state when none is left', async () => {
      const [answered] = await ask('frank', 1);
      const expiring = await service.createUrlElicitation({ kind: 'confirm', message: 'Soon gone', userId: 'frank', ttlMs: 30 });
      expect(listedIds((await get('/elicit/inbox', { user: 'frank' })).body)).toEqual([expiring.elicitationId, answered]);
      await service.complete(answered, { confirmed: true });
      await sleep(40);
      const empty = await get('/elicit/inbox', { user: 'frank' });
      expect(listedIds(empty.body)).toEqual([]);
      expect(empty.body).toContain('<ol class="inbox" id="inbox-list" hidden>');
      expect(empty.body).toContain('<p class="empty" id="inbox-empty">Nothing is waiting for you. New questions appear here.</p>');
      expect(JSON.parse((await get('/elicit/inbox', { user: 'frank', accept: JSON_ACCEPT })).body)).toEqual({ questions: [] });
    });

    it("shows a task's question, and what asked where the record says it", async () => {
      const { elicitationId, url } = await service.createUrlElicitation({
        kind: 'api-key',
        message: 'Enter your deploy token',
        userId: 'grace',
        taskId: 'task-7',
        metadata: { askedBy: { tool: 'deploy-shop', client: 'Claude Code' } },
      });
      const page = await get('/elicit/inbox', { user: 'grace' });
      expect(listedIds(page.body)).toEqual([elicitationId]);
      expect(page.body).toContain('<div data-fact="tool"><dt>Tool</dt><dd><bdi>deploy-shop</bdi></dd></div>');
      expect(page.body).toContain('<div data-fact="client"><dt>App</dt><dd><bdi>Claude Code</bdi></dd></div>');
      expect(page.body).toContain(`<a class="answer" href="${url}" aria-describedby="q-${elicitationId}">Answer this question</a>`);
      // Without askedBy: neither line (the page's <template> for the script has both).
      await ask('heidi', 1);
      const list = (await get('/elicit/inbox', { user: 'heidi' })).body.split('<template')[0];
      expect(list).not.toContain('data-fact="tool"');
      expect(list).not.toContain('data-fact="client"');
    });

    it('escapes the message (and shows it as the pages do); the JSON carries it as text', async () => {
      const message = 'Deploy <script>alert(1)</script> & "quote"\u202E now?';
      await service.createUrlElicitation({ kind: 'confirm', message, userId: 'ivan' });
      const page = await get('/elicit/inbox', { user: 'ivan' });
      expect(page.body).toContain('Deploy &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quote&quot; now?');
      expect(page.body).not.toContain('<script>alert(1)');
      expect(page.body).not.toContain('\u202E');
      const json = JSON.parse((await get('/elicit/inbox', { user: 'ivan', accept: JSON_ACCEPT })).body) as {
        questions: Array<{ message: string }>;
      };
      expect(json.questions[0].message).toBe('Deploy <script>alert(1)</script> & "quote" now?');
    });

    it('shows when each was asked and when it expires as the pages show times (<time datetime>)', async () => {
      const { expiresAt } = await service.createUrlElicitation({ kind: 'confirm', message: 'Deploy?', userId: 'judy', ttlMs: 9 * 60_000 });
      const page = await get('/elicit/inbox', { user: 'judy' });
      expect(page.body).toMatch(
        /<dt>Asked<\/dt><dd><time data-at="asked" datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z">[^<]+ UTC<\/time><\/dd>/,
      );
      expect(page.body).toContain(`<time data-at="expires" datetime="${expiresAt.toISOString()}">in 9 minutes</time>`);
    });
  });

  describe('the JSON', () => {
    it('answers { questions, next? } with ISO dates when Accept prefers application/json; never an answer or metadata', async () => {
      const { elicitationId, url, expiresAt } = await service.createUrlElicitation({
        kind: 'confirm',
        message: 'Merge the pull request?',
        userId: 'kim',
        taskId: 'task-9',
        metadata: { askedBy: { tool: 'merge', client: 'Inspector' }, secretish: 'not for the inbox' },
      });
      const created = (await service.list({ userId: 'kim' }))[0].createdAt;
      for (const accept of [JSON_ACCEPT, 'application/json, text/html;q=0.5', 'text/html;q=0.1, application/*']) {
        const res = await get('/elicit/inbox', { user: 'kim', accept });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(JSON.parse(res.body)).toEqual({
          questions: [
            {
              elicitationId,
              kind: 'confirm',
              message: 'Merge the pull request?',
              url,
              createdAt: new Date(created).toISOString(),
              expiresAt: expiresAt.toISOString(),
              taskId: 'task-9',
              askedBy: { tool: 'merge', client: 'Inspector' },
            },
          ],
        });
      }
      // A browser's Accept, none, or the wildcard alone: the page.
      for (const accept of [BROWSER_ACCEPT, '*/*', 'text/html, application/json']) {
        expect((await get('/elicit/inbox', { user: 'kim', accept })).headers.get('content-type')).toBe('text/html; charset=utf-8');
      }
      const none = await fetch(`${base}/elicit/inbox`, { headers: { 'x-test-user': 'kim' } });
      expect(none.headers.get('content-type')).toBe('text/html; charset=utf-8');
    });
  });

  describe('headers, languages, the bar', () => {
    /** Every header of an answer but those that differ from one answer to the next, the CSP with its nonce as `N`. */
    function stableHeaders(answer: Answer): Record<string, string> {
      const out: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (['date', 'etag', 'content-length', 'set-cookie', 'vary', 'keep-alive', 'connection'].includes(name)) return;
        out[name] = name === 'content-security-policy' ? value.replace(/'nonce-[^']+'/g, "'nonce-N'") : value;
      });
      return out;
    }

    it("sends the pages' security headers; its CSP is the pages' with connect-src 'self' (the poll) and nothing more", async () => {
      const { url } = await service.createUrlElicitation({ kind: 'confirm', message: 'Deploy?', userId: 'leo' });
      const page = await get(new URL(url).pathname, { user: 'leo' });
      const inbox = await get('/elicit/inbox', { user: 'leo' });
      expect(page.status).toBe(200);
      expect(inbox.status).toBe(200);
      const pageHeaders = stableHeaders(page);
      const inboxHeaders = stableHeaders(inbox);
      const inboxCsp = inboxHeaders['content-security-policy'];
      expect(inboxCsp).toBe(`${pageHeaders['content-security-policy']};connect-src 'self'`);
      expect({ ...inboxHeaders, 'content-security-policy': '' }).toEqual({ ...pageHeaders, 'content-security-policy': '' });
      expect(inbox.headers.get('content-security-policy')!.replace(";connect-src 'self'", '')).toMatch(PAGE_CSP);
      expect(inbox.headers.get('cache-control')).toBe('no-store');
      expect(inbox.headers.get('vary')).toBe('Accept');
      // The page's scripts carry the response's nonce; none is inline.
      const nonce = /script-src 'nonce-([^']+)'/.exec(inbox.headers.get('content-security-policy')!)![1];
      const scripts = [...inbox.body.matchAll(/<script[^>]*>/g)].map((m) => m[0]);
      expect(scripts).toEqual([
        expect.stringMatching(new RegExp(`^<script nonce="${nonce}" src="/elicit/assets/inbox\\.[0-9a-f]{12}\\.js" defer>$`)),
        expect.stringMatching(new RegExp(`^<script nonce="${nonce}" src="/elicit/assets/page\\.[0-9a-f]{12}\\.js" defer>$`)),
      ]);
      expect(inbox.body).not.toMatch(/\son[a-z]+=/);
      // Reloads itself every 30 s without JavaScript; no other page does.
      expect(inbox.body).toContain('<noscript><meta http-equiv="refresh" content="30"></noscript>\n</head>');
      expect(page.body).not.toContain('http-equiv="refresh"');
      // The JSON: the headers of an answer that is not a page.
      const json = await get('/elicit/inbox', { user: 'leo', accept: JSON_ACCEPT });
      expect(json.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none';base-uri 'none'");
      expect(json.headers.get('x-frame-options')).toBe('DENY');
      expect(json.headers.get('cache-control')).toBe('no-store');
    });

    it("serves its script as the pages' assets are served", async () => {
      const inbox = await get('/elicit/inbox', { user: 'leo' });
      const src = /<script nonce="[^"]+" src="(\/elicit\/assets\/inbox\.[0-9a-f]{12}\.js)"/.exec(inbox.body)![1];
      const res = await fetch(`${base}${src}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(await res.text()).toContain("fetch(source, { headers: { Accept: 'application/json' }");
    });

    it.each([
      ['de', 'ltr', 'Ihre offenen Fragen', 'Zurzeit wartet nichts auf Sie.', 'Offene Fragen'],
      ['ar', 'rtl', 'أسئلتك المفتوحة', 'لا شيء بانتظارك الآن.', 'الأسئلة المفتوحة'],
    ])('speaks the request language (%s, %s)', async (language, dir, heading, empty, link) => {
      const page = await get('/elicit/inbox', { user: 'nobody-here', language });
      expect(page.body).toContain(`<html lang="${language}" dir="${dir}">`);
      expect(page.body).toContain(`<h1 dir="auto">${heading}</h1>`);
      expect(page.body).toContain(empty);
      expect(page.body).toContain(`<nav><a href="/elicit/inbox" aria-current="page">${link}</a></nav>`);
    });

    it('puts the link to the inbox in the bar of every page, error pages included', async () => {
      const { url } = await service.createUrlElicitation({ kind: 'api-key', message: 'Key?', userId: 'mia' });
      const link = '<nav><a href="/elicit/inbox">Open questions</a></nav>';
      expect((await get(new URL(url).pathname, { user: 'mia' })).body).toContain(link);
      const notFound = await get('/elicit/0b0b0b0b-0b0b-4b0b-8b0b-0b0b0b0b0b0b/api-key', { user: 'mia' });
      expect(notFound.status).toBe(404);
      expect(notFound.body).toContain(link);
      const forbidden = await get(new URL(url).pathname, { user: 'not-mia' });
      expect(forbidden.status).toBe(403);
      expect(forbidden.body).toContain(link);
    });

    it("is never taken for an elicitation's id: /elicit/inbox/<page> is a page no elicitation has", async () => {
      for (const page of ['api-key', 'confirm', 'status']) {
        const res = await get(`/elicit/inbox/${page}`, { user: 'mia' });
        expect({ page, status: res.status }).toEqual({ page, status: 404 });
      }
      expect((await fetch(`${base}/elicit/inbox`, { method: 'POST', headers: { 'x-test-user': 'mia' } })).status).toBe(404);
    });
  });
});
