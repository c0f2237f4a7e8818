/**
 * `PageSecurity`: the headers of a page and of every other answer (read off real Express answers, which carry
 * X-Powered-By until it is removed), the CSRF cookie and its token, the origin check of a post, the sign-in redirect
 * and the pages' canonical path.
 */
import { describe, expect, it } from '@jest/globals';
import { CSRF_COOKIE, PageSecurity } from '../../src/http/page-security.js';
import type { PageRequest } from '../../src/http/page-http.js';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';
import { resolveElicitationOptions } from '../../src/options/elicitation-options.validation.js';
import { pageOptionsOf } from '../../src/options/page-options.js';
import { CsrfTokens } from '../../src/security/csrf.js';
import { exchange } from './http-exchange.support.js';

const KEY = Buffer.alloc(32, 5);
const ID = '0f0e0d0c-0b0a-4000-8000-00000000000a';

function securityOf(extra: Partial<ElicitationModuleOptions> = {}, prefix = 'elicit'): PageSecurity {
  const { options } = resolveElicitationOptions({ baseUrl: 'https://mcp.example.com', encryptionKey: KEY, ...extra }, prefix, {
    NODE_ENV: 'development',
  });
  return new PageSecurity(pageOptionsOf(options), new CsrfTokens(KEY));
}

/** The directives of a CSP header, by name. */
function directives(csp: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (csp ?? '').split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) out[name] = values.join(' ');
  }
  return out;
}

/** What `issueCsrf` sets, with the token it returns. */
function issued(security: PageSecurity, expiresAt: number, req?: PageRequest): { token: string; cookie: string } {
  let cookie = '';
  const token = security.issueCsrf(ID, expiresAt, { header: (_name: string, value: string) => (cookie = value) }, req);
  return { token, cookie };
}

const nonceOf = (cookie: string): string => cookie.slice(`${CSRF_COOKIE}=`.length).split(';')[0];

describe('PageSecurity headers', () => {
  it('a page: a CSP whose style and script carry this answer nonce, framing and referrers off, HTML, no-store, no X-Powered-By', async () => {
    const security = securityOf();
    const answer = await exchange({}, (_context, _req, res) => security.applyHeaders(res));
    const nonce = answer.result!;
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(directives(answer.headers.get('content-security-policy'))).toEqual({
      'default-src': "'none'",
      'style-src': `'nonce-${nonce}'`,
      'script-src': `'nonce-${nonce}'`,
      'img-src': "'self' https: data:",
      'form-action': "'self'",
      'frame-ancestors': "'none'",
      'base-uri': "'none'",
    });
    expect(answer.headers.get('x-frame-options')).toBe('DENY');
    expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('strict-transport-security')).toBe('max-age=15552000; includeSubDomains');
    expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('x-powered-by')).toBeNull();
  });

  it('a fresh nonce per page', () => {
    const security = securityOf();
    const nonces = new Set<string>();
    for (let i = 0; i < 5; i++) {
      let header = '';
      nonces.add(
        security.applyHeaders({ header: (name: string, value: string) => name === 'Content-Security-Policy' && (header = value) } as never),
      );
      expect(header).toContain(`'nonce-${[...nonces].at(-1)}'`);
    }
    expect(nonces.size).toBe(5);
  });

  it('a page whose form leads to another origin (the oauth page) allows that origin in form-action only', async () => {
    const answer = await exchange({}, (_context, _req, res) => securityOf().applyHeaders(res, 'https://github.com'));
    const csp = directives(answer.headers.get('content-security-policy'));
    expect(csp['form-action']).toBe("'self' https://github.com");
    expect(csp['default-src']).toBe("'none'");
    expect(csp['img-src']).toBe("'self' https: data:");
  });

  it('an answer that is not a page (JSON, a redirect): a CSP that allows nothing, no-store, no nonce, no Content-Type of its own', async () => {
    const answer = await exchange({}, (_context, _req, res) => securityOf().applyBaseHeaders(res));
    expect(directives(answer.headers.get('content-security-policy'))).toEqual({
      'default-src': "'none'",
      'frame-ancestors': "'none'",
      'base-uri': "'none'",
    });
    expect(answer.headers.get('x-frame-options')).toBe('DENY');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('x-powered-by')).toBeNull();
    expect(answer.headers.get('content-type')).toBeNull();
  });

  it('no Strict-Transport-Security when the pages are served over http', async () => {
    const security = securityOf({ baseUrl: 'http://localhost:3000' });
    const page = await exchange({}, (_context, _req, res) => security.applyHeaders(res));
    const base = await exchange({}, (_context, _req, res) => security.applyBaseHeaders(res));
    expect(page.headers.get('strict-transport-security')).toBeNull();
    expect(base.headers.get('strict-transport-security')).toBeNull();
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
  });
});

describe('PageSecurity CSRF', () => {
  it('the cookie: HttpOnly, SameSite=Strict, Secure over https, scoped to the elicitation under the base path, until its expiry', () => {
    const security = securityOf({ baseUrl: 'https://mcp.example.com/app/' });
    const { cookie } = issued(security, Date.now() + 90_500);
    expect(cookie).toMatch(
      new RegExp(`^${CSRF_COOKIE}=[A-Za-z0-9_-]{22}; Path=/app/elicit/${ID}; Max-Age=(91|90); HttpOnly; SameSite=Strict; Secure$`),
    );
    expect(issued(securityOf({ baseUrl: 'http://localhost:3000' }), Date.now() + 10_000).cookie).not.toContain('Secure');
  });

  it('an elicitation already past its expiry still gets a cookie of one second, never a negative Max-Age', () => {
    expect(issued(securityOf(), Date.now() - 60_000).cookie).toContain('; Max-Age=1;');
  });

  it("keeps the nonce the browser holds (every tab's form stays valid), and mints one for a browser without", () => {
    const security = securityOf();
    const first = issued(security, Date.now() + 60_000);
    const nonce = nonceOf(first.cookie);
    const cookieHeader = `theme=dark; ${CSRF_COOKIE}=${nonce}; other=1`;
    const again = issued(security, Date.now() + 60_000, { headers: { cookie: cookieHeader } });
    expect(nonceOf(again.cookie)).toBe(nonce);
    expect(again.token).toBe(first.token);
    expect(nonceOf(issued(security, Date.now() + 60_000, { headers: {} }).cookie)).not.toBe(nonce);
  });

  it('verifyPost: the token with its cookie from this origin; the cookie read among others, by its exact name', () => {
    const security = securityOf();
    const { token, cookie } = issued(security, Date.now() + 60_000);
    const nonce = nonceOf(cookie);
    const post = (headers: Record<string, string>): PageRequest => ({ method: 'POST', url: `/elicit/${ID}/api-key`, headers });
    expect(security.verifyPost(ID, post({ cookie: `${CSRF_COOKIE}=${nonce}` }), token)).toBe(true);
    // A browser holding the cookie for two paths sends both: any of them may be ours.
    expect(security.verifyPost(ID, post({ cookie: `${CSRF_COOKIE}=planted-by-a-sibling; a=b;${CSRF_COOKIE}= ${nonce}` }), token)).toBe(
      true,
    );
    expect(security.verifyPost(ID, post({ cookie: `x${CSRF_COOKIE}=${nonce}` }), token)).toBe(false);
    expect(security.verifyPost(ID, post({ cookie: `${CSRF_COOKIE}=${nonce}`, origin: 'https://mcp.example.com:8443' }), token)).toBe(false);
    expect(security.verifyPost(ID, post({ cookie: `${CSRF_COOKIE}=${nonce}`, origin: 'http://mcp.example.com' }), token)).toBe(false);
    expect(security.verifyPost(ID, post({ cookie: `${CSRF_COOKIE}=${nonce}`, 'sec-fetch-site': 'none' }), token)).toBe(true);
    expect(security.verifyPost('0f0e0d0c-0b0a-4000-8000-00000000000b', post({ cookie: `${CSRF_COOKIE}=${nonce}` }), token)).toBe(false);
  });

  it('verifyPost on a Fastify-shaped request reads the Node request under raw', () => {
    const security = securityOf();
    const { token, cookie } = issued(security, Date.now() + 60_000);
    const node = { method: 'POST', url: `/elicit/${ID}/api-key`, headers: { cookie: cookie.split(';')[0] } };
    expect(security.verifyPost(ID, { headers: {}, raw: node }, token)).toBe(true);
  });
});

describe('PageSecurity paths', () => {
  it('pagePath: the base path, the route prefix, the id and the page', () => {
    expect(securityOf().pagePath(ID)).toBe(`/elicit/${ID}`);
    expect(securityOf({ baseUrl: 'https://mcp.example.com/api/' }, 'ask').pagePath(ID, 'confirm')).toBe(`/api/ask/${ID}/confirm`);
  });

  it('loginRedirect: none without loginUrl; a relative loginUrl stays relative, an absolute one absolute, its query kept', () => {
    expect(securityOf().loginRedirect(ID, 'api-key')).toBeUndefined();
    const returnTo = encodeURIComponent(`/app/elicit/${ID}/api-key`);
    const base = { baseUrl: 'https://mcp.example.com/app' };
    expect(securityOf({ ...base, loginUrl: '/auth/login' }).loginRedirect(ID, 'api-key')).toBe(`/auth/login?returnTo=${returnTo}`);
    expect(securityOf({ ...base, loginUrl: '/auth/login?via=sso' }).loginRedirect(ID, 'api-key')).toBe(
      `/auth/login?via=sso&returnTo=${returnTo}`,
    );
    expect(securityOf({ ...base, loginUrl: 'https://id.example.com/login' }).loginRedirect(ID, 'api-key')).toBe(
      `https://id.example.com/login?returnTo=${returnTo}`,
    );
  });
});
