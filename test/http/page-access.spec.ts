/**
 * `ElicitationPageAccess`: every check a page makes, in its order (id, path spelling, size, origin/CSRF, record and
 * kind, browser user, expiry, still pending), on records a real `ElicitationService` created in the memory store.
 * The redirects are read off a real HTTP answer.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ForbiddenException, PayloadTooLargeException, UnauthorizedException } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import type { ElicitationKind } from '../../src/core/elicitation.types.js';
import { ElicitationCsrfException } from '../../src/http/exceptions/elicitation-csrf.exception.js';
import { ElicitationExpiredException } from '../../src/http/exceptions/elicitation-expired.exception.js';
import { ElicitationFinishedException } from '../../src/http/exceptions/elicitation-finished.exception.js';
import { ElicitationNotFoundException } from '../../src/http/exceptions/elicitation-not-found.exception.js';
import { pageTextOf } from '../../src/http/exceptions/page-text.js';
import { ElicitationPageAccess, type FormBody } from '../../src/http/page-access.js';
import type { PageRequest } from '../../src/http/page-http.js';
import { PageSecurity } from '../../src/http/page-security.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { PAGE_MESSAGES } from '../../src/messages/default-messages.js';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';
import { compileElicitation } from '../support/testing-module.js';
import { exchange } from './http-exchange.support.js';

/** Who the browser is: the `x-user` header (absent: nobody). */
const OPTIONS: Partial<ElicitationModuleOptions> = {
  resolvePageUser: (req: PageRequest) => req.headers['x-user'] as string | undefined,
  limits: { createPerMinute: 100_000, maxPendingPerUser: 100_000, maxBodyBytes: 100 },
  oauth: {
    providers: {
      github: {
        authorizationEndpoint: 'https://github.com/login/oauth/authorize',
        tokenEndpoint: 'https://github.com/login/oauth/access_token',
        clientId: 'gh-client',
        clientSecret: 'gh-secret',
        scopes: ['read:user'],
      },
    },
  },
};

interface Setup {
  moduleRef: TestingModule;
  service: ElicitationService;
  access: ElicitationPageAccess;
  security: PageSecurity;
}

async function setUp(options: Partial<ElicitationModuleOptions> = {}): Promise<Setup> {
  const moduleRef = await compileElicitation({ ...OPTIONS, ...options });
  return {
    moduleRef,
    service: moduleRef.get(ElicitationService),
    access: moduleRef.get(ElicitationPageAccess),
    security: moduleRef.get(PageSecurity),
  };
}

/** A page request as Node gives it: method, target, headers. */
function request(method: string, url: string, headers: Record<string, string> = {}): PageRequest {
  return { method, url, headers };
}

async function created(service: ElicitationService, kind: ElicitationKind = 'api-key', userId = 'alice', ttlMs?: number) {
  const extra = kind === 'oauth' ? { provider: 'github' } : {};
  const { elicitationId } = await service.createUrlElicitation({ kind, message: 'Your key', userId, ttlMs, ...extra });
  return elicitationId;
}

/** A CSRF token issued for `id`, with the cookie header that carries its nonce. */
function csrfFor(security: PageSecurity, id: string): { token: string; cookie: string } {
  let setCookie = '';
  const token = security.issueCsrf(id, Date.now() + 60_000, { header: (_name: string, value: string) => (setCookie = value) });
  return { token, cookie: setCookie.split(';')[0] };
}

/** What a check refuses with, thrown or rejected (fails the test when it passes). */
async function refusal(check: () => Promise<unknown>): Promise<unknown> {
  try {
    await check();
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
}

/** The English text an exception's page shows. */
const textOf = (error: unknown): string | undefined => pageTextOf(error)?.(PAGE_MESSAGES);

describe('ElicitationPageAccess', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setUp();
  });
  afterAll(() => s.moduleRef.close());

  describe('open (a page GET)', () => {
    it('gives the pending record to its own user at the canonical path, a query string and a host prefix ignored', async () => {
      const id = await created(s.service);
      const noRes = undefined as never;
      for (const url of [`/elicit/${id}/api-key`, `/elicit/${id}/api-key?lang=de`, `/api/v1/elicit/${id}/api-key`]) {
        const record = await s.access.open(id, 'api-key', request('GET', url, { 'x-user': 'alice' }), noRes);
        expect(record).toMatchObject({ id, kind: 'api-key', status: 'pending', userId: 'alice' });
      }
    });

    it.each(['not-an-id', '00000000-0000-0000-0000-000000000000', 'A1B2C3D4-0000-4000-8000-000000000000'])(
      'refuses an id of the wrong shape (%s) with 404',
      async (id) => {
        const error = await refusal(() => s.access.open(id, 'api-key', request('GET', `/elicit/${id}/api-key`), undefined as never));
        expect(error).toBeInstanceOf(ElicitationNotFoundException);
      },
    );

    it('refuses an unknown id and a page of another kind with the same 404', async () => {
      const id = await created(s.service, 'confirm');
      const unknown = '0f0e0d0c-0b0a-4000-8000-000000000000';
      const req = (page: string, which = id) => request('GET', `/elicit/${which}/${page}`, { 'x-user': 'alice' });
      expect(await refusal(() => s.access.open(unknown, 'confirm', req('confirm', unknown), undefined as never))).toBeInstanceOf(
        ElicitationNotFoundException,
      );
      expect(await refusal(() => s.access.open(id, 'api-key', req('api-key'), undefined as never))).toBeInstanceOf(
        ElicitationNotFoundException,
      );
    });

    it.each([
      ['in another letter case', (id: string) => `/ELICIT/${id}/api-key`],
      ['with a trailing slash', (id: string) => `/elicit/${id}/api-key/`],
      ['with the page in capitals', (id: string) => `/elicit/${id}/API-KEY?x=1`],
    ])('answers the page %s with a 308 to the canonical path, with no-store, before the store', async (_label, pathOf) => {
      // An id nobody created: the redirect comes before the record is looked up.
      const id = '0f0e0d0c-0b0a-4000-8000-000000000001';
      const answer = await exchange({ path: pathOf(id), headers: { 'x-user': 'alice' } }, (_context, req, res) =>
        s.access.open(id, 'api-key', req, res),
      );
      expect(answer.thrown).toBeUndefined();
      expect(answer.result).toBeUndefined();
      expect(answer.status).toBe(308);
      expect(answer.headers.get('location')).toBe(`/elicit/${id}/api-key`);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.headers.get('content-security-policy')).toContain("default-src 'none'");
    });

    it('refuses another user with 403 "another account", and a browser without a user with 401 "sign in"', async () => {
      const id = await created(s.service);
      const other = await refusal(() =>
        s.access.open(id, 'api-key', request('GET', `/elicit/${id}/api-key`, { 'x-user': 'bob' }), undefined as never),
      );
      expect(other).toBeInstanceOf(ForbiddenException);
      expect(textOf(other)).toBe(PAGE_MESSAGES.errors.otherAccount);
      const withoutUser: Array<Record<string, string>> = [{}, { 'x-user': '' }];
      for (const headers of withoutUser) {
        const none = await refusal(() =>
          s.access.open(id, 'api-key', request('GET', `/elicit/${id}/api-key`, headers), undefined as never),
        );
        expect(none).toBeInstanceOf(UnauthorizedException);
        expect(textOf(none)).toBe(PAGE_MESSAGES.errors.signIn);
      }
    });

    it('refuses an expired record with 410 and a finished one with 409 naming how it ended', async () => {
      const expiring = await created(s.service, 'api-key', 'alice', 1);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const req = (id: string) => request('GET', `/elicit/${id}/api-key`, { 'x-user': 'alice' });
      expect(await refusal(() => s.access.open(expiring, 'api-key', req(expiring), undefined as never))).toBeInstanceOf(
        ElicitationExpiredException,
      );
      const declined = await created(s.service);
      await s.service.decline(declined);
      const finished = await refusal(() => s.access.open(declined, 'api-key', req(declined), undefined as never));
      expect(finished).toBeInstanceOf(ElicitationFinishedException);
      expect((finished as ElicitationFinishedException).recordedStatus).toBe('declined');
    });

    it('checks the user before the expiry: another user learns nothing of the record', async () => {
      const declined = await created(s.service);
      await s.service.decline(declined);
      const error = await refusal(() =>
        s.access.open(declined, 'api-key', request('GET', `/elicit/${declined}/api-key`, { 'x-user': 'bob' }), undefined as never),
      );
      expect(error).toBeInstanceOf(ForbiddenException);
    });
  });

  describe('with loginUrl', () => {
    let login: Setup;
    beforeAll(async () => {
      login = await setUp({ loginUrl: '/login', baseUrl: 'https://mcp.example.com/app' });
    });
    afterAll(() => login.moduleRef.close());

    it('sends a GET without a user to sign in (303, returnTo the page under the base path, no-store)', async () => {
      const id = await created(login.service);
      const answer = await exchange({ path: `/app/elicit/${id}/api-key` }, (_context, req, res) =>
        login.access.open(id, 'api-key', req, res),
      );
      expect(answer.thrown).toBeUndefined();
      expect(answer.result).toBeUndefined();
      expect(answer.status).toBe(303);
      expect(answer.headers.get('location')).toBe(`/login?returnTo=${encodeURIComponent(`/app/elicit/${id}/api-key`)}`);
      expect(answer.headers.get('cache-control')).toBe('no-store');
    });

    it('refuses a post without a user with 401 rather than redirecting it', async () => {
      const id = await created(login.service);
      const { token, cookie } = csrfFor(login.security, id);
      const error = await refusal(() =>
        login.access.openPost(id, 'api-key', request('POST', `/app/elicit/${id}/api-key`, { cookie, 'content-length': '10' }), {
          _csrf: token,
        }),
      );
      expect(error).toBeInstanceOf(UnauthorizedException);
    });

    it('still refuses another user with 403', async () => {
      const id = await created(login.service);
      const answer = await exchange({ path: `/app/elicit/${id}/api-key`, headers: { 'x-user': 'bob' } }, (_context, req, res) =>
        login.access.open(id, 'api-key', req, res),
      );
      expect(answer.thrown).toBeInstanceOf(ForbiddenException);
      expect(answer.headers.get('location')).toBeNull();
    });
  });

  describe('openPost (a page post)', () => {
    const post = (id: string, headers: Record<string, string>, page = 'api-key') =>
      request('POST', `/elicit/${id}/${page}`, { 'x-user': 'alice', ...headers });

    it('gives the pending record for a same-origin post carrying the token its cookie matches', async () => {
      const id = await created(s.service);
      const { token, cookie } = csrfFor(s.security, id);
      const sameOrigin: Array<Record<string, string>> = [
        {},
        { origin: 'https://mcp.example.com' },
        { origin: 'null' },
        { 'sec-fetch-site': 'same-origin' },
      ];
      for (const origin of sameOrigin) {
        const record = await s.access.openPost(id, 'api-key', post(id, { cookie, 'content-length': '42', ...origin }), { _csrf: token });
        expect(record.id).toBe(id);
      }
    });

    it.each([
      ['from another origin', { origin: 'https://evil.example' }],
      ['marked cross-site', { 'sec-fetch-site': 'cross-site' }],
      ['marked same-site (a sibling subdomain)', { 'sec-fetch-site': 'same-site' }],
    ])('refuses a post %s with the CSRF 403, even with a valid token', async (_label, headers) => {
      const id = await created(s.service);
      const { token, cookie } = csrfFor(s.security, id);
      const error = await refusal(() => s.access.openPost(id, 'api-key', post(id, { cookie, ...headers }), { _csrf: token }));
      expect(error).toBeInstanceOf(ElicitationCsrfException);
    });

    it('refuses a post without the token, with a token of another elicitation, or without the cookie', async () => {
      const id = await created(s.service);
      const otherId = await created(s.service);
      const mine = csrfFor(s.security, id);
      const theirs = csrfFor(s.security, otherId);
      const bodies: Array<[Record<string, string>, FormBody]> = [
        [{ cookie: mine.cookie }, {}],
        [{ cookie: mine.cookie }, undefined],
        [{ cookie: theirs.cookie }, { _csrf: theirs.token }],
        [{}, { _csrf: mine.token }],
      ];
      for (const [headers, body] of bodies) {
        expect(await refusal(() => s.access.openPost(id, 'api-key', post(id, headers), body))).toBeInstanceOf(ElicitationCsrfException);
      }
    });

    it('checks the size before the token: a Content-Length over maxBodyBytes (or not a number) is 413', async () => {
      const id = await created(s.service);
      for (const length of ['101', '1e9', 'abc']) {
        const error = await refusal(() => s.access.openPost(id, 'api-key', post(id, { 'content-length': length }), {}));
        expect(error).toBeInstanceOf(PayloadTooLargeException);
        expect(textOf(error)).toBe(PAGE_MESSAGES.errors.tooMuchData);
      }
      // At the limit the size passes, and the next check (the token) refuses.
      expect(await refusal(() => s.access.openPost(id, 'api-key', post(id, { 'content-length': '100' }), {}))).toBeInstanceOf(
        ElicitationCsrfException,
      );
    });

    it('measures a body sent without a Content-Length as url-encoded text, or as JSON when it is not url-encodable', async () => {
      const id = await created(s.service);
      const { token, cookie } = csrfFor(s.security, id);
      const small = await s.access.openPost(id, 'api-key', post(id, { cookie }), { _csrf: token, apiKey: 'k' });
      expect(small.id).toBe(id);
      const big = await refusal(() => s.access.openPost(id, 'api-key', post(id, { cookie }), { _csrf: token, apiKey: 'k'.repeat(100) }));
      expect(big).toBeInstanceOf(PayloadTooLargeException);
      // `a[toString]=x`, as a qs parser gives it: URLSearchParams cannot take it (this was a 500).
      const nested = { _csrf: token, a: { toString: 'x'.repeat(200) } } as FormBody;
      expect(await refusal(() => s.access.openPost(id, 'api-key', post(id, { cookie }), nested))).toBeInstanceOf(PayloadTooLargeException);
    });

    it('refuses with 404 a post at another spelling of the path, or to the page of another action', async () => {
      const id = await created(s.service);
      const { token, cookie } = csrfFor(s.security, id);
      const at = (url: string) => request('POST', url, { 'x-user': 'alice', cookie });
      for (const url of [`/ELICIT/${id}/api-key`, `/elicit/${id}/api-key/`, `/elicit/${id}/api-key/extend`]) {
        expect(await refusal(() => s.access.openPost(id, 'api-key', at(url), { _csrf: token }))).toBeInstanceOf(
          ElicitationNotFoundException,
        );
      }
      // "Need more time?" posts to its own action path.
      expect((await s.access.openPost(id, 'api-key', at(`/elicit/${id}/api-key/extend`), { _csrf: token }, 'extend')).id).toBe(id);
      expect(await refusal(() => s.access.openPost(id, 'api-key', at(`/elicit/${id}/api-key`), { _csrf: token }, 'extend'))).toBeInstanceOf(
        ElicitationNotFoundException,
      );
    });

    it('refuses a valid post from another user with 403, and on a declined record with 409', async () => {
      const id = await created(s.service);
      const { token, cookie } = csrfFor(s.security, id);
      const asBob = request('POST', `/elicit/${id}/api-key`, { 'x-user': 'bob', cookie });
      expect(await refusal(() => s.access.openPost(id, 'api-key', asBob, { _csrf: token }))).toBeInstanceOf(ForbiddenException);
      await s.service.decline(id);
      expect(await refusal(() => s.access.openPost(id, 'api-key', post(id, { cookie }), { _csrf: token }))).toBeInstanceOf(
        ElicitationFinishedException,
      );
    });
  });

  describe('isPostablePath, openUpload, openCallback', () => {
    it('isPostablePath: an id of the right shape at the canonical path only', () => {
      const id = '0f0e0d0c-0b0a-4000-8000-000000000002';
      expect(s.access.isPostablePath(id, 'file', request('POST', `/elicit/${id}/file`))).toBe(true);
      expect(s.access.isPostablePath(id, 'file', request('POST', `/elicit/${id}/File`))).toBe(false);
      expect(s.access.isPostablePath(id, 'file', request('POST', `/elicit/${id}/api-key`))).toBe(false);
      expect(s.access.isPostablePath('x', 'file', request('POST', '/elicit/x/file'))).toBe(false);
    });

    it('openUpload: the CSRF check without the size (the upload reader enforces that while streaming)', async () => {
      const id = await created(s.service, 'file');
      const { token, cookie } = csrfFor(s.security, id);
      const upload = request('POST', `/elicit/${id}/file`, { 'x-user': 'alice', cookie, 'content-length': '5000000' });
      expect((await s.access.openUpload(id, upload, token)).kind).toBe('file');
      expect(await refusal(() => s.access.openUpload(id, upload, 'forged'))).toBeInstanceOf(ElicitationCsrfException);
      const elsewhere = request('POST', `/elicit/${id}/api-key`, { 'x-user': 'alice', cookie });
      expect(await refusal(() => s.access.openUpload(id, elsewhere, token))).toBeInstanceOf(ElicitationNotFoundException);
    });

    it('openCallback: an oauth record of the browser user, from an id the sealed state carried (no path, no token)', async () => {
      const id = await created(s.service, 'oauth');
      const callback = request('GET', '/elicit/oauth/callback?code=c&state=s', { 'x-user': 'alice' });
      expect((await s.access.openCallback(id, callback)).kind).toBe('oauth');
      expect(await refusal(() => s.access.openCallback(id, { ...callback, headers: { 'x-user': 'bob' } }))).toBeInstanceOf(
        ForbiddenException,
      );
      expect(await refusal(() => s.access.openCallback('not-an-id', callback))).toBeInstanceOf(ElicitationNotFoundException);
      const apiKey = await created(s.service);
      expect(await refusal(() => s.access.openCallback(apiKey, callback))).toBeInstanceOf(ElicitationNotFoundException);
    });
  });

  describe('notDone', () => {
    it('turns a refused transition into the page it deserves: 404, 410, or 409 naming the ending', async () => {
      const id = await created(s.service);
      const first = await s.service.cancel(id);
      expect(first.ok).toBe(true);
      const again = await s.service.cancel(id);
      if (again.ok || again.reason === 'not-found') throw new Error('a second cancel finds the record finished');
      const finished = s.access.notDone(again);
      expect(finished).toBeInstanceOf(ElicitationFinishedException);
      expect(textOf(finished)).toBe(PAGE_MESSAGES.errors.finished('cancelled'));
      expect(s.access.notDone({ ok: false, reason: 'not-found' })).toBeInstanceOf(ElicitationNotFoundException);
      expect(s.access.notDone({ ok: false, reason: 'expired', record: again.record })).toBeInstanceOf(ElicitationExpiredException);
      // A record the sweep already moved to expired, found finished.
      const swept = { ...again, status: 'expired' as const, record: { ...again.record, status: 'expired' as const } };
      expect(s.access.notDone(swept)).toBeInstanceOf(ElicitationExpiredException);
    });
  });
});

describe('ElicitationPageAccess without resolvePageUser', () => {
  it('lets any browser open the page: the record is not checked against a user', async () => {
    const open = await setUp({ resolvePageUser: undefined });
    try {
      const id = await created(open.service, 'api-key', 'alice');
      const record = await open.access.open(id, 'api-key', request('GET', `/elicit/${id}/api-key`), undefined as never);
      expect(record?.userId).toBe('alice');
    } finally {
      await open.moduleRef.close();
    }
  });
});
