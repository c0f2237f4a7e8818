import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { Injectable } from '@nestjs/common';
import helmet from 'helmet';
import { InjectPageOptions, type ElicitationPageOptions } from '../options/page-options.js';
import { CsrfTokens } from '../security/csrf.js';
import { randomPool } from '../security/random-pool.js';
import { basePathOf, inboxPath, pageRoute, passkeysPath } from '../lifecycle/page-urls.js';
import { raw, type NodeRequestPart, type NodeResponsePart, type PageRequest, type PageResponse } from './page-http.js';

/** Stands for the per-response nonce in the CSP computed once at start-up. */
const NONCE_PLACEHOLDER = 'ELICITATION-NONCE';

/** Name of the CSRF nonce cookie (scoped to one elicitation's path). */
export const CSRF_COOKIE = 'elicit_csrf';

/** A response that only records what helmet sets and removes (header names as helmet writes them). */
class HeaderRecorder extends ServerResponse {
  readonly set: Array<[string, string]> = [];
  readonly removed: string[] = [];

  override setHeader(name: string, value: number | string | readonly string[]): this {
    this.set.push([name, String(value)]);
    return this;
  }

  override removeHeader(name: string): void {
    this.removed.push(name);
  }
}

/**
 * What helmet sets and removes with the module's policy and these CSP directives. Helmet runs once, against a
 * recorder: its headers do not depend on the request, and applying the recorded set costs a fraction of
 * running the middleware chain on every page (see bench/http.bench.ts).
 */
function recordHelmet(directives: Record<string, string[]>, secure: boolean): HeaderRecorder {
  const headers = helmet({
    contentSecurityPolicy: { useDefaults: false, directives },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: secure ? { maxAge: 15552000 } : false,
    crossOriginEmbedderPolicy: false,
  });
  const request = new IncomingMessage(new Socket());
  const recorder = new HeaderRecorder(request);
  headers(request, recorder, () => undefined);
  return recorder;
}

/**
 * Security of the module's pages: headers (through helmet, applied to our responses only), CSRF tokens with
 * their cookie (one nonce per browser and elicitation, kept across renders), the pages' canonical path, and the
 * same-origin check of form posts.
 */
@Injectable()
export class PageSecurity {
  private readonly origin: string;
  private readonly basePath: string;
  private readonly secure: boolean;
  /** The page headers helmet chose, computed once, each value cut where each response's nonce goes (the CSP's). */
  private readonly fixedHeaders: Array<[string, string[]]> = [];
  /** The same for a page whose script reads from this origin (the inbox's): its CSP adds `connect-src 'self'`. */
  private readonly connectingHeaders: Array<[string, string[]]> = [];
  /** Headers helmet removes (e.g. X-Powered-By). */
  private readonly removedHeaders: string[] = [];
  /** The headers of an answer that is not a page (JSON, a redirect): helmet's, with a CSP that allows nothing. */
  private readonly baseHeaders: Array<[string, string]> = [];

  /** @param csrf the pages' CSRF tokens, provided by the module from the key ring (which this class never holds). */
  constructor(
    @InjectPageOptions() private readonly options: ElicitationPageOptions,
    private readonly csrf: CsrfTokens,
  ) {
    const base = new URL(options.baseUrl);
    this.origin = base.origin;
    this.basePath = basePathOf(options.baseUrl);
    this.secure = base.protocol === 'https:';
    const directives = {
      defaultSrc: ["'none'"],
      styleSrc: [`'nonce-${NONCE_PLACEHOLDER}'`],
      // The page's scripts (the countdown, the focus on an error summary; the inbox's) carry the same nonce.
      scriptSrc: [`'nonce-${NONCE_PLACEHOLDER}'`],
      imgSrc: ["'self'", 'https:', 'data:'],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
    };
    const cutAtNonce = ([name, value]: [string, string]): [string, string[]] => [name, value.split(NONCE_PLACEHOLDER)];
    const page = recordHelmet(directives, this.secure);
    this.fixedHeaders.push(...page.set.map(cutAtNonce));
    this.connectingHeaders.push(...recordHelmet({ ...directives, connectSrc: ["'self'"] }, this.secure).set.map(cutAtNonce));
    this.removedHeaders.push(...page.removed);
    this.baseHeaders.push(...recordHelmet({ defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"] }, this.secure).set);
  }

  /**
   * Sets every page header; returns the nonce the page's inline style and script must carry. `formTarget`: one more origin
   * the page's form may lead to (the `oauth` page's post is answered with a redirect to the provider, and
   * browsers hold redirects after a post to `form-action` too). `connect`: the page's script reads from this origin
   * (the inbox polls its own JSON): `connect-src 'self'`, and nothing more, joins the CSP.
   */
  applyHeaders(res: PageResponse, formTarget?: string, connect = false): string {
    const nonce = randomPool.take(16).toString('base64url');
    for (const [name, pieces] of connect ? this.connectingHeaders : this.fixedHeaders) {
      const value = pieces.length === 1 ? pieces[0] : pieces.join(nonce);
      res.header(name, formTarget === undefined ? value : value.replace("form-action 'self'", `form-action 'self' ${formTarget}`));
    }
    const nodeRes = raw<NodeResponsePart>(res);
    for (const name of this.removedHeaders) nodeRes.removeHeader?.(name);
    res.header('Content-Type', 'text/html; charset=utf-8');
    res.header('Cache-Control', 'no-store');
    return nonce;
  }

  /**
   * Sets the security headers of an answer of the module's routes that is not a page (the status route's JSON and
   * its errors, a redirect): helmet's with a CSP that allows nothing, and `no-store`; removes what helmet removes
   * (X-Powered-By). A page, error pages included, gets `applyHeaders` instead (each header is set once).
   */
  applyBaseHeaders(res: PageResponse): void {
    for (const [name, value] of this.baseHeaders) res.header(name, value);
    const nodeRes = raw<NodeResponsePart>(res);
    for (const name of this.removedHeaders) nodeRes.removeHeader?.(name);
    res.header('Cache-Control', 'no-store');
  }

  /**
   * The CSRF token for this render, with its nonce cookie scoped to this elicitation's pages. The nonce is the
   * one the browser already holds for the page (`req`'s cookie), so that another tab's form stays valid; a
   * browser without one gets a fresh nonce. The cookie is set on every render (same value when kept), so its
   * lifetime always runs to the elicitation's expiry.
   */
  issueCsrf(elicitationId: string, expiresAt: number, res: Pick<PageResponse, 'header'>, req?: PageRequest): string {
    return this.issueCsrfFor(elicitationId, this.pagePath(elicitationId), expiresAt, res, req);
  }

  /**
   * `issueCsrf` for a page that is no elicitation's (the passkey page): the token bound to `scope`, its nonce cookie to
   * `path`, living until `expiresAt`. `verifyPost(scope, …)` checks its post.
   */
  issueCsrfFor(scope: string, path: string, expiresAt: number, res: Pick<PageResponse, 'header'>, req?: PageRequest): string {
    const held = req ? readCookies(raw<NodeRequestPart>(req).headers.cookie, CSRF_COOKIE) : [];
    const { nonce, token } = this.csrf.issue(scope, held);
    const maxAge = Math.max(Math.ceil((expiresAt - Date.now()) / 1000), 1);
    res.header(
      'Set-Cookie',
      `${CSRF_COOKIE}=${nonce}; Path=${path}; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${this.secure ? '; Secure' : ''}`,
    );
    return token;
  }

  /**
   * True when a form post may be trusted: not cross-site by `Sec-Fetch-Site` or `Origin` (a `null` Origin,
   * which browsers send under `Referrer-Policy: no-referrer`, is left to the token), and carrying the token
   * issued for this elicitation with a nonce in its cookie (any of the cookie's values, see `CsrfTokens.verify`).
   * Throws `ElicitationKeyError` for a token issued under a key this instance's `encryptionKey` ring lacks and a live
   * instance announced (`lookUpCsrfKey` first); a key id nobody announced is a forged post's, false.
   */
  verifyPost(elicitationId: string, req: PageRequest, token: unknown): boolean {
    const headers = raw<NodeRequestPart>(req).headers;
    const site = headers['sec-fetch-site'];
    if (site === 'cross-site' || site === 'same-site') return false;
    const origin = headers.origin;
    if (origin !== undefined && origin !== 'null' && origin !== this.origin) return false;
    return this.csrf.verify(elicitationId, readCookies(headers.cookie, CSRF_COOKIE), token);
  }

  /**
   * Before `verifyPost`: a token under a key id neither this instance nor a live one it knows of holds has the live
   * instances' rings read again (rate-limited), so that a token of an instance started since counts as its own.
   */
  lookUpCsrfKey(token: unknown): Promise<void> {
    return this.csrf.lookUpKeyOf(token);
  }

  /** Where to send an unidentified browser: `loginUrl` with `returnTo` = this page's own path. */
  loginRedirect(elicitationId: string, page: string): string | undefined {
    return this.loginRedirectTo(this.pagePath(elicitationId, page));
  }

  /** Where to send an unidentified browser from the inbox: `loginUrl` with `returnTo` = the inbox's path. */
  inboxLoginRedirect(): string | undefined {
    return this.loginRedirectTo(inboxPath(this.options));
  }

  /** Where to send an unidentified browser from the passkey page: `loginUrl` with `returnTo` = that page's path. */
  passkeysLoginRedirect(): string | undefined {
    return this.loginRedirectTo(passkeysPath(this.options));
  }

  /** `loginUrl` with `returnTo` = `path` (a path the module built, never one from the request), or none without it. */
  private loginRedirectTo(path: string): string | undefined {
    if (!this.options.loginUrl) return undefined;
    const login = new URL(this.options.loginUrl, this.origin);
    login.searchParams.set('returnTo', path);
    return /^https?:\/\//.test(this.options.loginUrl) ? login.href : `${login.pathname}${login.search}`;
  }

  /**
   * The canonical path of an elicitation's pages as the browser sees it, `<baseUrl path>/<routePrefix>/<id>`
   * (the CSRF cookie's scope), or of one of them with `page`. Browsers match a cookie's path case-sensitively,
   * so a page is served only at this spelling (`ElicitationPageAccess` redirects any other).
   */
  pagePath(elicitationId: string, page?: string): string {
    return `${this.basePath}${pageRoute(this.options.routePrefix, elicitationId, page)}`;
  }
}

/** Every value of one cookie in a Cookie header, in the order sent (a browser sends one per path it holds). */
function readCookies(header: string | undefined, name: string): string[] {
  const values: string[] = [];
  if (!header) return values;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) values.push(part.slice(eq + 1).trim());
  }
  return values;
}
