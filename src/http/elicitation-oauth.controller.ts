import { Body, Get, HttpException, HttpStatus, Param, Post, Query, Req, Res } from '@nestjs/common';
import { InjectPageOptions, type ElicitationPageOptions } from '../options/page-options.js';
import { idOf } from '../core/elicitation-id.js';
import { ElicitationRecords } from '../lifecycle/elicitation-records.js';
import type { ElicitationRecord } from '../core/elicitation.types.js';
import { OAuthCallbackError } from '../errors/oauth-callback.error.js';
import { withPageText, type PageText } from './exceptions/page-text.js';
import { PAGE_MESSAGES } from '../messages/default-messages.js';
import { OAuthFlow } from '../oauth/oauth-flow.js';
import { OAuthGrants } from '../oauth/oauth-grants.js';
import { PageRoutes } from './elicitation-routes.decorator.js';
import { InRouteContext } from './elicitation-route-observer.js';
import { ElicitationPageAccess, type FormBody } from './page-access.js';
import { PageResponder } from './page-responder.js';
import { raw, type NodeRequestPart, type PageRequest, type PageResponse } from './page-http.js';
import { PageSecurity } from './page-security.js';

/**
 * Connecting an account (`kind: 'oauth'`): the page `/:id/oauth` (the provider and the scopes, Continue / Cancel;
 * the same identity, expiry and CSRF checks as every page), whose Continue is answered with a redirect to the
 * provider, and the one callback `/oauth/callback` every provider sends the browser back to. Mounted under the
 * `routePrefix` with the pages, behind the same guards and filter.
 */
@PageRoutes()
export class ElicitationOAuthController {
  constructor(
    private readonly records: ElicitationRecords,
    private readonly access: ElicitationPageAccess,
    private readonly answers: PageResponder,
    private readonly security: PageSecurity,
    private readonly flow: OAuthFlow,
    private readonly grants: OAuthGrants,
    @InjectPageOptions() private readonly options: ElicitationPageOptions,
  ) {}

  /**
   * The provider's answer: the `state` opened (400 not ours or changed, 410 expired), the elicitation checked as a
   * page is (its browser user included), the state spent (400 when used before), then `error=access_denied`
   * declines, another error is a 502 page, and a code is exchanged (502 refused, 503 unreachable: nothing stored,
   * the elicitation still pending) and completes the elicitation with the grant.
   */
  @Get('oauth/callback')
  @InRouteContext()
  async callback(
    @Query() query: Record<string, unknown>,
    @Req() req: PageRequest,
    @Res({ passthrough: true }) res: PageResponse,
  ): Promise<string> {
    const state = this.refusing(undefined, () => this.flow.openState(query.state));
    const record = await this.access.openCallback(state.elicitationId, req);
    const provider = this.flow.displayName(record);
    const { messages } = this.answers.localeOf(req);
    if (state.user !== this.stateUser(record)) throw refusal(new OAuthCallbackError('state-user', HttpStatus.BAD_REQUEST), provider);
    await this.refusingAsync(provider, () => this.flow.spend(state));
    if (query.error !== undefined) {
      if (query.error === 'access_denied') {
        return this.answers.done(req, res, record, await this.records.decline(idOf(record)), messages.done.declined);
      }
      const code = typeof query.error === 'string' && /^[\x20-\x7E]{1,64}$/.test(query.error) ? query.error : undefined;
      throw refusal(new OAuthCallbackError('provider-error', HttpStatus.BAD_GATEWAY, code), provider);
    }
    const grant = await this.refusingAsync(provider, () => this.flow.exchange(record, state, this.callbackUrl(req)));
    const done = await this.grants.connect(idOf(record), grant);
    return this.answers.done(req, res, record, done, messages.done.accountConnected(provider));
  }

  /** The page: which provider, which scopes, Continue / Cancel. */
  @Get(':id/oauth')
  @InRouteContext()
  async oauthPage(@Param('id') id: string, @Req() req: PageRequest, @Res({ passthrough: true }) res: PageResponse): Promise<string> {
    const record = await this.access.open(id, 'oauth', req, res);
    if (!record) return '';
    return this.page(req, res, 200, record);
  }

  /** Continue: a 303 to the provider's authorization endpoint (PKCE, sealed state, nonce); Cancel: declined. */
  @Post(':id/oauth')
  @InRouteContext()
  async submitOAuth(
    @Param('id') id: string,
    @Body() body: FormBody,
    @Req() req: PageRequest,
    @Res({ passthrough: true }) res: PageResponse,
  ): Promise<string> {
    const record = await this.access.openPost(id, 'oauth', req, body);
    const { messages } = this.answers.localeOf(req);
    const action = body?.action;
    if (action === 'cancel') return this.answers.done(req, res, record, await this.records.decline(idOf(record)), messages.done.declined);
    if (action !== 'continue') return this.page(req, res, 400, record, messages.oauth.chooseAction);
    const provider = this.flow.displayName(record);
    const location = await this.refusingAsync(provider, () => this.flow.authorizationUrl(record, this.stateUser(record)));
    return this.answers.redirect(res, HttpStatus.SEE_OTHER, location);
  }

  private async page(
    req: PageRequest,
    res: PageResponse,
    status: number,
    record: ElicitationRecord,
    error: string | null = null,
  ): Promise<string> {
    const provider = this.flow.displayName(record);
    const target = await this.refusingAsync(provider, () => this.flow.authorizationOrigin(record));
    const csrf = this.security.issueCsrf(record.id, record.expiresAt, res, req);
    const ask = OAuthFlow.askOf(record);
    const { messages } = this.answers.localeOf(req);
    return this.answers.page(
      req,
      res,
      status,
      'oauth',
      {
        heading: messages.oauth.heading(provider),
        message: record.message,
        intro: messages.oauth.intro(provider),
        scopesLabel: messages.oauth.scopesLabel,
        scopes: ask.scopes,
        note: messages.oauth.note,
        continueLabel: messages.oauth.continueLabel(provider),
        error,
        csrf,
        labels: messages.labels,
      },
      { record, formTarget: target },
    );
  }

  /** The browser user a state is bound to: the record's user once the page checked it, '' when pages are not checked. */
  private stateUser(record: ElicitationRecord): string {
    return this.options.resolvePageUser ? record.userId : '';
  }

  /** The callback URL as the provider sent the browser to it: the registered redirect URI with the request's query. */
  private callbackUrl(req: PageRequest): URL {
    const target = raw<NodeRequestPart>(req).url ?? '';
    const query = target.indexOf('?');
    const url = new URL(this.flow.redirectUri);
    url.search = query < 0 ? '' : target.slice(query);
    return url;
  }

  private refusing<T>(provider: string | undefined, step: () => T): T {
    try {
      return step();
    } catch (error) {
      throw refusal(error, provider);
    }
  }

  private async refusingAsync<T>(provider: string, step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      throw refusal(error, provider);
    }
  }
}

/** The page of a refused callback step (`OAuthCallbackError`), in the page's language; anything else as it is. */
function refusal(error: unknown, provider = 'The provider'): unknown {
  if (!(error instanceof OAuthCallbackError)) return error;
  const { code } = error;
  const texts: Record<OAuthCallbackError['reason'], PageText> = {
    'state-malformed': (m) => m.oauth.stateInvalid,
    'state-user': (m) => m.oauth.stateInvalid,
    'state-expired': (m) => m.oauth.stateExpired,
    'state-used': (m) => m.oauth.stateUsed,
    'provider-error': (m) => m.oauth.providerError(provider, code),
    'exchange-refused': (m) => m.oauth.exchangeRefused(provider),
    'provider-unavailable': (m) => m.oauth.providerUnavailable(provider),
  };
  const text = texts[error.reason];
  return withPageText(new HttpException(text(PAGE_MESSAGES), error.status), text);
}
