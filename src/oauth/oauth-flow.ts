import { Inject, Injectable } from '@nestjs/common';
import { InjectOAuthFeatureOptions, type ElicitationOAuthFeatureOptions } from '../options/oauth-feature-options.js';
import type { ElicitationRecord } from '../core/elicitation.types.js';
import { OAuthCallbackError } from '../errors/oauth-callback.error.js';
import { ELICITATION_OBSERVED_STORE } from '../observability/observed-store.js';
import type { ElicitationCounterStore } from '../stores/elicitation-store.js';
import { oauthErrorCode, providerUnreachable } from './oauth-failures.js';
import { OAuthGrants, type OAuthGrant } from './oauth-grants.js';
import { OAuthProviders, type OAuthProvider } from './oauth-providers.js';
import { OAUTH_STATE_TTL_MS, OAuthStateCodec, type OAuthState, type OAuthStateProblem } from './oauth-state.js';

/** What an `oauth` record's metadata holds (set at creation): the provider and every scope asked for. */
export interface OAuthAsk {
  provider: string;
  scopes: string[];
}

/**
 * The browser side of connecting an account: the authorization request (PKCE S256, a sealed single-use `state`,
 * an OpenID Connect `nonce`) and the callback (the state opened and spent, the code exchanged through
 * `openid-client`, the ID token validated for OpenID Connect, the subject read), giving the grant to keep.
 */
@Injectable()
export class OAuthFlow {
  /** @param states the codec of the sealed `state`, built by the module from the `encryptionKey` ring. */
  constructor(
    @InjectOAuthFeatureOptions() private readonly options: ElicitationOAuthFeatureOptions,
    @Inject(ELICITATION_OBSERVED_STORE) private readonly store: ElicitationCounterStore,
    private readonly providers: OAuthProviders,
    private readonly states: OAuthStateCodec,
  ) {}

  /** The one redirect URI of every provider: `${baseUrl}/${routePrefix}/oauth/callback`. */
  get redirectUri(): string {
    return `${this.options.baseUrl}/${this.options.routePrefix}/oauth/callback`;
  }

  /** The provider and scopes an `oauth` record asks for. */
  static askOf(record: Pick<ElicitationRecord, 'metadata'>): OAuthAsk {
    const { provider, scopes } = record.metadata as { provider?: unknown; scopes?: unknown };
    return { provider: String(provider), scopes: Array.isArray(scopes) ? scopes.map(String) : [] };
  }

  /** The provider's display name (the page shows it). */
  displayName(record: Pick<ElicitationRecord, 'metadata'>): string {
    return this.providers.settings(OAuthFlow.askOf(record).provider).displayName;
  }

  /**
   * Where Continue sends the browser: the provider's authorization endpoint with this flow's parameters. `user`
   * is the browser user the page checked ('' without `resolvePageUser`), bound into the state.
   */
  async authorizationUrl(record: ElicitationRecord, user: string): Promise<string> {
    const ask = OAuthFlow.askOf(record);
    const provider = await this.ready(ask.provider);
    const { client, config, settings, oidc } = provider;
    const verifier = client.randomPKCECodeVerifier();
    const now = Date.now();
    const state: OAuthState = {
      id: OAuthStateCodec.newId(),
      elicitationId: record.id,
      user,
      issuedAt: now,
      expiresAt: Math.min(record.expiresAt, now + OAUTH_STATE_TTL_MS),
      verifier,
      nonce: oidc ? client.randomNonce() : undefined,
    };
    const parameters: Record<string, string> = {
      ...settings.authorizationParams,
      redirect_uri: this.redirectUri,
      response_type: 'code',
      scope: ask.scopes.join(' '),
      state: this.states.seal(state),
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    };
    if (state.nonce !== undefined) parameters.nonce = state.nonce;
    return client.buildAuthorizationUrl(config, parameters).href;
  }

  /** The origin Continue leads to (the page's `form-action` must allow it). */
  async authorizationOrigin(record: ElicitationRecord): Promise<string> {
    const { config } = await this.ready(OAuthFlow.askOf(record).provider);
    return new URL(config.serverMetadata().authorization_endpoint!).origin;
  }

  /** The sealed state a callback presents, opened (refused: `OAuthCallbackError`, 400 or 410). Not spent yet. */
  openState(value: unknown): OAuthState {
    const state: OAuthState | OAuthStateProblem = this.states.open(value, Date.now());
    if (state === 'malformed') throw new OAuthCallbackError('state-malformed', 400);
    if (state === 'expired') throw new OAuthCallbackError('state-expired', 410);
    return state;
  }

  /**
   * Spends the state (single use across instances: a counter in the store); a state presented before is refused
   * (400). Called once the browser user was checked, before anything else is done with the callback.
   */
  async spend(state: OAuthState): Promise<void> {
    const lifetime = Math.max(state.expiresAt - state.issuedAt, 1);
    const { count } = await this.store.hit(`oauth-state:${state.id}`, lifetime, state.expiresAt);
    if (count > 1) throw new OAuthCallbackError('state-used', 400);
  }

  /**
   * Exchanges the callback's code (PKCE verifier and nonce from the state; the ID token validated for OpenID
   * Connect) and reads the account's subject. `callbackUrl` is the URL the provider sent the browser to.
   */
  async exchange(record: ElicitationRecord, state: OAuthState, callbackUrl: URL): Promise<OAuthGrant> {
    const ask = OAuthFlow.askOf(record);
    const { client, config, oidc } = await this.ready(ask.provider);
    const now = Date.now();
    let grant: OAuthGrant;
    try {
      const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: state.verifier,
        expectedState: callbackUrl.searchParams.get('state') ?? undefined,
        expectedNonce: state.nonce,
        idTokenExpected: oidc,
      });
      grant = OAuthGrants.grantOf(ask.provider, tokens, now, ask.scopes);
      const sub = tokens.claims()?.sub;
      grant.subject = typeof sub === 'string' ? sub : await this.userinfoSubject(client, config, tokens.access_token);
    } catch (error) {
      if (error instanceof OAuthCallbackError) throw error;
      throw exchangeFailure(error);
    }
    return grant;
  }

  private async ready(name: string): Promise<OAuthProvider> {
    try {
      return await this.providers.provider(name);
    } catch {
      throw new OAuthCallbackError('provider-unavailable', 503);
    }
  }

  /** Plain OAuth 2: the account behind the token from the user info endpoint (`sub`, else `id`, else `login`). */
  private async userinfoSubject(
    client: OAuthProvider['client'],
    config: OAuthProvider['config'],
    accessToken: string,
  ): Promise<string | undefined> {
    const endpoint = config.serverMetadata().userinfo_endpoint;
    if (endpoint === undefined) return undefined;
    const response = await client.fetchProtectedResource(config, accessToken, new URL(endpoint), 'GET');
    if (!response.ok) throw new OAuthCallbackError('provider-unavailable', 503);
    const info = (await response.json()) as Record<string, unknown>;
    const subject = info.sub ?? info.id ?? info.login;
    return typeof subject === 'string' || typeof subject === 'number' ? String(subject) : undefined;
  }
}

/** A failed exchange as the callback page answers it: the provider could not be reached (503) or refused (502). */
function exchangeFailure(error: unknown): OAuthCallbackError {
  if (providerUnreachable(error)) return new OAuthCallbackError('provider-unavailable', 503);
  return new OAuthCallbackError('exchange-refused', 502, oauthErrorCode(error));
}
