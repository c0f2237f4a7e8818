import { Body, Get, HttpStatus, Logger, NotFoundException, Post, Query, Req, Res } from '@nestjs/common';
import { parseElicitationId } from '../core/elicitation-id.js';
import { ElicitationPasskeys, type PasskeyListing } from '../lifecycle/elicitation-passkeys.js';
import { basePathOf, passkeysPath } from '../lifecycle/page-urls.js';
import type { PageLocale } from '../messages/locales.js';
import { InjectPageOptions, type ElicitationPageOptions } from '../options/page-options.js';
import { InjectPasskeyOptions, type ResolvedPasskeyOptions } from '../options/passkey-options.js';
import { InRouteContext } from './elicitation-route-observer.js';
import { PageRoutes } from './elicitation-routes.decorator.js';
import { ElicitationCsrfException } from './exceptions/elicitation-csrf.exception.js';
import { pageError } from './exceptions/page-text.js';
import { ElicitationPageAccess, type FormBody } from './page-access.js';
import type { PageContexts } from './page-contexts.js';
import type { PageRequest, PageResponse } from './page-http.js';
import { PageResponder } from './page-responder.js';
import { PageSecurity } from './page-security.js';

/** How long the passkey page's forms stay valid (their CSRF cookie's lifetime), in milliseconds. */
const PAGE_LIFETIME_MS = 60 * 60_000;

/** What the page says above its list, besides the list itself. */
interface PageNote {
  status?: number;
  notice?: string | null;
  error?: string | null;
}

/**
 * The passkey page, `GET /<routePrefix>/passkeys`: the signed-in user's passkeys (each removable) and the form that
 * adds one (`passkey.js` runs the browser's ceremony; `POST` checks it). Identity-bound as the inbox is (the browser
 * user from `resolvePageUser`; none is a sign-in redirect or 401; without it, 404), each post CSRF-checked with a token
 * bound to the user. `passkeys.canRegister` may refuse an addition or send the browser to a login step first. A page
 * that sent the user here (`returnTo`, a confirm page of this module) is where they go once their passkey is added.
 */
@PageRoutes()
export class ElicitationPasskeysController {
  private readonly logger = new Logger('ElicitationPasskeys');
  private readonly home: string;
  /** The start of every path `returnTo` may hold: this module's pages. */
  private readonly pagesBase: string;

  constructor(
    private readonly passkeys: ElicitationPasskeys,
    private readonly access: ElicitationPageAccess,
    private readonly answers: PageResponder,
    private readonly security: PageSecurity,
    @InjectPageOptions() private readonly options: ElicitationPageOptions,
    @InjectPasskeyOptions() private readonly passkeyOptions: ResolvedPasskeyOptions,
  ) {
    this.home = passkeysPath(options);
    this.pagesBase = `${basePathOf(options.baseUrl)}/${options.routePrefix}/`;
  }

  @Get('passkeys')
  @InRouteContext()
  async page(
    @Query('returnTo') returnTo: unknown,
    @Req() req: PageRequest,
    @Res({ passthrough: true }) res: PageResponse,
  ): Promise<string> {
    this.assertUsable();
    const user = await this.access.passkeysUser(req, res);
    if (user === undefined) return '';
    const back = this.returnPath(returnTo);
    const gate = await this.gate(user, req);
    if (typeof gate === 'string') return this.answers.redirect(res, HttpStatus.SEE_OTHER, this.withReturnTo(gate, back));
    return this.render(req, res, user, back, gate, {});
  }

  @Post('passkeys')
  @InRouteContext()
  async submit(@Body() body: FormBody, @Req() req: PageRequest, @Res({ passthrough: true }) res: PageResponse): Promise<string> {
    this.assertUsable();
    const user = await this.access.passkeysUser(req, res);
    if (user === undefined) return '';
    await this.security.lookUpCsrfKey(body?._csrf);
    if (!this.security.verifyPost(csrfScope(user), req, body?._csrf)) throw new ElicitationCsrfException();
    const { messages } = this.answers.localeOf(req);
    const back = this.returnPath(body?.returnTo);
    const texts = messages.passkeys;
    if (body?.action === 'remove') {
      const removed = typeof body.id === 'string' && (await this.passkeys.remove(user, body.id));
      return this.render(req, res, user, back, await this.gate(user, req), removed ? { notice: texts.removedNotice } : { status: 404 });
    }
    const gate = await this.gate(user, req);
    if (gate !== true) return this.render(req, res, user, back, gate, { status: HttpStatus.FORBIDDEN });
    const added = await this.passkeys.register(user, body?.passkey, body?.name);
    if (!added.ok) {
      if (added.detail) this.logger.warn(`A passkey of ${user} was not registered: ${added.detail}`);
      const status = added.reason === 'malformed' ? HttpStatus.BAD_REQUEST : HttpStatus.FORBIDDEN;
      return this.render(req, res, user, back, gate, { status, error: texts.refused[added.reason] });
    }
    if (back) return this.answers.redirect(res, HttpStatus.SEE_OTHER, back);
    return this.render(req, res, user, back, gate, { notice: texts.addedNotice });
  }

  /** The page: the user's passkeys and, when they may add one, the form with a fresh registration's options. */
  private async render(
    req: PageRequest,
    res: PageResponse,
    user: string,
    returnTo: string | null,
    gate: boolean | string,
    note: PageNote,
  ): Promise<string> {
    const locale = this.answers.localeOf(req);
    const texts = locale.messages.passkeys;
    const [list, options] = await Promise.all([
      this.passkeys.list(user),
      gate === true ? this.passkeys.registrationOptions(user) : Promise.resolve(null),
    ]);
    const context: PageContexts['passkeys'] = {
      heading: texts.heading,
      texts,
      action: this.home,
      csrf: this.security.issueCsrfFor(csrfScope(user), this.home, Date.now() + PAGE_LIFETIME_MS, res, req),
      passkeys: list.map((p) => this.listed(p, locale)),
      options: options && JSON.stringify(options),
      blocked: gate === true ? null : texts.notAllowed,
      notice: note.notice ?? null,
      error: note.error ?? null,
      returnTo,
    };
    return this.answers.page(req, res, note.status ?? (note.error ? HttpStatus.BAD_REQUEST : HttpStatus.OK), 'passkeys', context);
  }

  private listed(passkey: PasskeyListing, locale: PageLocale): PageContexts['passkeys']['passkeys'][number] {
    const { texts, at } = { texts: locale.messages.passkeys, at: (ms: number) => this.answers.times.absolute(ms, locale.locale) };
    return {
      id: passkey.id,
      name: passkey.name,
      added: texts.added(at(passkey.createdAt)),
      used: passkey.lastUsedAt === undefined ? null : texts.lastUsed(at(passkey.lastUsedAt)),
    };
  }

  /** Whether the user may add a passkey now: `passkeys.canRegister`'s word (a URL: their login step first), else yes. */
  private async gate(user: string, req: PageRequest): Promise<boolean | string> {
    const canRegister = this.passkeyOptions.canRegister;
    if (!canRegister) return true;
    const answer = await canRegister(user, req);
    return typeof answer === 'string' && answer !== '' ? answer : answer === true;
  }

  /** `returnTo` when it is the path of a confirm page of this module (nothing else: no open redirect), else null. */
  private returnPath(value: unknown): string | null {
    if (typeof value !== 'string' || !value.startsWith(this.pagesBase)) return null;
    const [id, page, ...rest] = value.slice(this.pagesBase.length).split('/');
    return page === 'confirm' && rest.length === 0 && parseElicitationId(id) !== undefined ? value : null;
  }

  /** The app's login step, told to send the browser back to this page (and from it on to `returnTo`). */
  private withReturnTo(login: string, returnTo: string | null): string {
    const here = returnTo ? `${this.home}?returnTo=${encodeURIComponent(returnTo)}` : this.home;
    const absolute = /^https?:\/\//.test(login);
    const url = new URL(login, new URL(this.options.baseUrl).origin);
    url.searchParams.set('returnTo', here);
    return absolute ? url.href : `${url.pathname}${url.search}`;
  }

  /** Without a page user or a store with passkeys there is no passkey page. */
  private assertUsable(): void {
    if (!this.passkeys.usable) throw pageError(NotFoundException, (m) => m.errors.noSuchPage);
  }
}

/** The passkey page's CSRF tokens are bound to the user whose page it is. */
function csrfScope(user: string): string {
  return `passkeys\u0000${user}`;
}
