import {
  ForbiddenException,
  HttpStatus,
  Injectable,
  NotFoundException,
  PayloadTooLargeException,
  UnauthorizedException,
} from '@nestjs/common';
import { InjectPageOptions, type ElicitationPageOptions } from '../options/page-options.js';
import { parseElicitationId, type ElicitationId } from '../core/elicitation-id.js';
import type { ElicitationKind, ElicitationRecord, TransitionResult } from '../core/elicitation.types.js';
import { ElicitationRecords } from '../lifecycle/elicitation-records.js';
import { pageRoute } from '../lifecycle/page-urls.js';
import { ElicitationCsrfException } from './exceptions/elicitation-csrf.exception.js';
import { ElicitationExpiredException } from './exceptions/elicitation-expired.exception.js';
import { ElicitationFinishedException } from './exceptions/elicitation-finished.exception.js';
import { ElicitationNotFoundException } from './exceptions/elicitation-not-found.exception.js';
import { raw, type NodeRequestPart, type PageRequest, type PageResponse } from './page-http.js';
import { observePageOpened, observePageRecord, observeRefusal, routeElicitationId } from './elicitation-route-observer.js';
import { pageError } from './exceptions/page-text.js';
import { PageSecurity } from './page-security.js';
import { hintNoPageUser, hintOtherPageUser } from './development-hints.js';

/** A page post's parsed urlencoded body (Express and Fastify give an object, or nothing without a body). */
export type FormBody = Record<string, unknown> | undefined;

/**
 * Size of a parsed form body as url-encoded text (for bodies sent without a Content-Length). A body that
 * `URLSearchParams` cannot take (a JSON array, or a nested value without a usable `toString`, such as the
 * form field `a[toString]=x`) is measured as JSON instead of throwing (which answered 500).
 */
function parsedBodyBytes(body: FormBody): number {
  if (!body || typeof body !== 'object') return 0;
  try {
    // URLSearchParams turns each value to a string itself (and throws on one it cannot): the loose input is the point.
    return Buffer.byteLength(new URLSearchParams(body as Record<string, string>).toString());
  } catch {
    return Buffer.byteLength(JSON.stringify(body) ?? '');
  }
}

/**
 * Who may see or answer a page: every check a page makes before it renders or changes anything, in one
 * place and in this order, so that the id's shape is checked before anything else and the store is touched
 * only when the cheaper checks passed:
 * 1. the id's shape (404, before any store access): checked once per request (`routeElicitationId`, by the routes'
 *    guard), then passed on as an `ElicitationId`, which the lifecycle's internal port takes as it is;
 * 2. the path's spelling: a page is served at its canonical path only (`PageSecurity.pagePath`, the CSRF
 *    cookie's scope, which browsers match case-sensitively), while Express matches routes case-insensitively and
 *    ignores a trailing slash. Another spelling of the module's own segments is a 308 to the canonical path on a
 *    GET and a 404 on a post (no page was ever rendered there), before any store access;
 * 3. a post only: its size (413, `limits.maxBodyBytes`, by Content-Length or the parsed body), then its
 *    origin and CSRF token (403, `ElicitationCsrfException`; a token under a key id this instance lacks is 403 too,
 *    unless a live instance announced it: 503, `ElicitationKeyError`; only such a token has the live rings read
 *    again, at most once per few seconds);
 * 4. the record exists and is of this page's kind (404);
 * 5. the browser user (`resolvePageUser`): none is 401, or on a GET a 303 to `loginUrl`; another user is 403;
 * 6. not expired (410), still pending (409).
 */
@Injectable()
export class ElicitationPageAccess {
  constructor(
    private readonly records: ElicitationRecords,
    private readonly security: PageSecurity,
    @InjectPageOptions() private readonly options: ElicitationPageOptions,
  ) {}

  /**
   * The pending record behind a page GET. Resolves `undefined` when it answered with a redirect instead (a 308
   * to the page's canonical path, or a 303 to the sign-in page; the route then sends an empty body).
   */
  async open(id: string, kind: ElicitationKind, req: PageRequest, res: PageResponse): Promise<ElicitationRecord | undefined> {
    const checked = routeElicitationId(req, id);
    if (checked === undefined) throw new ElicitationNotFoundException();
    if (!this.atCanonicalPath(checked, kind, req)) {
      this.redirect(res, HttpStatus.PERMANENT_REDIRECT, this.security.pagePath(checked, kind));
      return undefined;
    }
    const record = await this.load(checked, kind, req, res);
    if (record) observePageOpened(req);
    return record;
  }

  /**
   * The pending record behind a page post, after the post's own checks (path, size, origin, CSRF token). `action`:
   * a post to one of the page's actions, `/<routePrefix>/<id>/<page>/<action>` ("Need more time?": `extend`).
   */
  async openPost(id: string, kind: ElicitationKind, req: PageRequest, body: FormBody, action?: 'extend'): Promise<ElicitationRecord> {
    const page = action === undefined ? kind : `${kind}/${action}`;
    const checked = routeElicitationId(req, id);
    if (checked === undefined || !this.atCanonicalPath(checked, page, req)) throw new ElicitationNotFoundException();
    const max = this.options.limits.maxBodyBytes;
    // The parser read exactly Content-Length bytes when there is one; only a body sent without one is measured.
    const length = raw<NodeRequestPart>(req).headers['content-length'];
    const bytes = length === undefined ? parsedBodyBytes(body) : Number(length);
    if (!(bytes <= max)) throw pageError(PayloadTooLargeException, (m) => m.errors.tooMuchData);
    await this.security.lookUpCsrfKey(body?._csrf);
    if (!this.security.verifyPost(checked, req, body?._csrf)) throw new ElicitationCsrfException();
    return this.load(checked, kind, req);
  }

  /**
   * Whether a post to a page can be read at all: an id of the right shape at the page's canonical path (checked
   * before a file page reads its body).
   */
  isPostablePath(id: string, kind: ElicitationKind, req: PageRequest): boolean {
    const checked = routeElicitationId(req, id);
    return checked !== undefined && this.atCanonicalPath(checked, kind, req);
  }

  /**
   * The pending record behind a file page's multipart post, once its `_csrf` field arrived: `openPost`'s checks but
   * the size, which the upload's reader enforces itself while streaming (the whole upload is over `maxBodyBytes`).
   */
  async openUpload(id: string, req: PageRequest, csrf: unknown): Promise<ElicitationRecord> {
    const checked = routeElicitationId(req, id);
    if (checked === undefined || !this.atCanonicalPath(checked, 'file', req)) throw new ElicitationNotFoundException();
    await this.security.lookUpCsrfKey(csrf);
    if (!this.security.verifyPost(checked, req, csrf)) throw new ElicitationCsrfException();
    return this.load(checked, 'file', req);
  }

  /**
   * The pending `oauth` record a provider's callback completes: checks 4 to 6 (the record and its kind, the
   * browser user, expiry, still pending). The path is fixed and the post checks do not apply: the callback is a
   * GET from the provider, and its sealed single-use `state` stands in for the CSRF token.
   */
  openCallback(id: string, req: PageRequest): Promise<ElicitationRecord> {
    // The id comes from the sealed state, not the path: checked here, once.
    const checked = parseElicitationId(id);
    if (checked === undefined) throw new ElicitationNotFoundException();
    return this.load(checked, 'oauth', req);
  }

  /**
   * The browser user the inbox lists the open questions of (`resolvePageUser`, as for the pages): without one, 401, or
   * on a page (not JSON) a 303 to `loginUrl` with the inbox as `returnTo` (then `undefined`: the route sends an empty
   * body). Without `resolvePageUser` there is no inbox (404): no user can be told from another.
   */
  async inboxUser(req: PageRequest, res: PageResponse, json: boolean): Promise<string | undefined> {
    return this.signedInUser(req, res, json ? undefined : this.security.inboxLoginRedirect());
  }

  /**
   * The browser user of the passkey page, as the inbox's: none is 401, or on a GET a 303 to `loginUrl` with the passkey
   * page as `returnTo`; without `resolvePageUser`, 404.
   */
  async passkeysUser(req: PageRequest, res: PageResponse): Promise<string | undefined> {
    const get = raw<NodeRequestPart>(req).method === 'GET';
    return this.signedInUser(req, res, get ? this.security.passkeysLoginRedirect() : undefined);
  }

  /** The signed-in browser user; without one, a 303 to `login` (then `undefined`) or 401; without `resolvePageUser`, 404. */
  private async signedInUser(req: PageRequest, res: PageResponse, login: string | undefined): Promise<string | undefined> {
    const resolve = this.options.resolvePageUser;
    if (!resolve) throw pageError(NotFoundException, (m) => m.errors.noSuchPage);
    const user = await resolve(req);
    if (typeof user === 'string' && user !== '') return user;
    if (!login) {
      hintNoPageUser(user);
      throw pageError(UnauthorizedException, (m) => m.errors.signIn);
    }
    observeRefusal(req, 'identity');
    this.redirect(res, HttpStatus.SEE_OTHER, login);
    return undefined;
  }

  /** The page for a change a page asked for that did not happen: 404, 410, or 409 naming how the record ended. */
  notDone(result: Exclude<TransitionResult, { ok: true }>): Error {
    if (result.reason === 'not-found') return new ElicitationNotFoundException();
    if (result.reason === 'expired' || result.record.status === 'expired') return new ElicitationExpiredException();
    return new ElicitationFinishedException(result.record.status);
  }

  /** Checks 3 to 5 on an id of the right shape. Given the response (a GET), it may answer the sign-in redirect. */
  private load(id: ElicitationId, kind: ElicitationKind, req: PageRequest, res: PageResponse): Promise<ElicitationRecord | undefined>;
  private load(id: ElicitationId, kind: ElicitationKind, req: PageRequest): Promise<ElicitationRecord>;
  private async load(
    id: ElicitationId,
    kind: ElicitationKind,
    req: PageRequest,
    res?: PageResponse,
  ): Promise<ElicitationRecord | undefined> {
    const record = await this.records.get(id);
    if (!record || record.kind !== kind) throw new ElicitationNotFoundException();
    observePageRecord(req, record);
    const resolve = this.options.resolvePageUser;
    if (resolve) {
      const user = await resolve(req);
      if (user === undefined || user === null || user === '') {
        const login = res && raw<NodeRequestPart>(req).method === 'GET' ? this.security.loginRedirect(record.id, record.kind) : undefined;
        if (!res || !login) {
          hintNoPageUser(user);
          throw pageError(UnauthorizedException, (m) => m.errors.signIn);
        }
        observeRefusal(req, 'identity');
        this.redirect(res, HttpStatus.SEE_OTHER, login);
        return undefined;
      }
      if (user !== record.userId) {
        hintOtherPageUser();
        throw pageError(ForbiddenException, (m) => m.errors.otherAccount);
      }
    }
    if (record.status === 'expired') throw new ElicitationExpiredException();
    if (record.status !== 'pending') throw new ElicitationFinishedException(record.status);
    return record;
  }

  /**
   * True when the request path ends with the page's own segments spelled as the module mounts them,
   * `/<routePrefix>/<id>/<page>` (the id already checked, so this is a plain comparison). Only the tail is
   * compared: what comes before is the host's (a global prefix, a proxy that strips one).
   */
  private atCanonicalPath(id: string, page: string, req: PageRequest): boolean {
    const url = raw<NodeRequestPart>(req).url;
    // Node always gives the request target; without one there is nothing to redirect from.
    if (url === undefined) return true;
    const query = url.indexOf('?');
    return (query < 0 ? url : url.slice(0, query)).endsWith(pageRoute(this.options.routePrefix, id, page));
  }

  /**
   * Answers a redirect to a location built by the module (never from the request), with the security headers of an
   * answer without a page (`applyBaseHeaders`: no-store among them).
   */
  private redirect(res: PageResponse, status: number, location: string): void {
    this.security.applyBaseHeaders(res);
    res.status(status);
    res.header('Location', location);
  }
}
