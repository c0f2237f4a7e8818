import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { Configuration, ServerMetadata } from 'openid-client';
import { InjectOAuthFeatureOptions, type ElicitationOAuthFeatureOptions } from '../options/oauth-feature-options.js';
import { ElicitationConfigError } from '../errors/elicitation-config.error.js';
import { ElicitationInputError } from '../errors/elicitation-input.error.js';
import { OAuthProviderError } from '../errors/oauth-provider.error.js';
import { assertSafeExternalUrl, type ExternalUrlPolicy } from '../security/url-policy.js';
import { loadOpenIdClient, type OpenIdClient } from './openid-client.loader.js';
import type { ResolvedOAuthProvider } from '../options/oauth-options.js';

/** How long one request to a provider may take. */
const PROVIDER_TIMEOUT_S = 10;
/** The endpoint fields a provider (or its discovery document) may name. */
const ENDPOINTS = ['authorizationEndpoint', 'tokenEndpoint', 'userinfoEndpoint', 'revocationEndpoint'] as const;
/** The discovery document's name of each. */
const METADATA_FIELDS = {
  authorizationEndpoint: 'authorization_endpoint',
  tokenEndpoint: 'token_endpoint',
  userinfoEndpoint: 'userinfo_endpoint',
  revocationEndpoint: 'revocation_endpoint',
} as const;

/** A provider ready for the flow: its settings and its `openid-client` configuration. */
export interface OAuthProvider {
  settings: ResolvedOAuthProvider;
  /** OpenID Connect (an `issuer`, ID tokens validated) rather than plain OAuth 2. */
  oidc: boolean;
  config: Configuration;
  client: OpenIdClient;
}

/**
 * The configured `oauth.providers`: checked against the external URL policy at start-up (every check but the
 * DNS lookup, which happens at first use, so that an app starts while a provider's name does not resolve), and
 * each turned into an `openid-client` configuration at first use (OpenID Connect discovery when `issuer` is given),
 * kept for later flows; a failed discovery is tried again next time.
 */
@Injectable()
export class OAuthProviders implements OnModuleInit {
  private readonly ready = new Map<string, Promise<OAuthProvider>>();

  constructor(@InjectOAuthFeatureOptions() private readonly options: ElicitationOAuthFeatureOptions) {}

  /** Whether any provider is configured. */
  get enabled(): boolean {
    return this.options.oauth !== undefined;
  }

  /** Fails start-up on an endpoint the URL policy refuses (naming the field), or without `openid-client`. */
  async onModuleInit(): Promise<void> {
    const oauth = this.options.oauth;
    if (!oauth) return;
    const offline: ExternalUrlPolicy = { ...this.options.externalUrlPolicy, resolveHost: offlineResolve };
    for (const provider of oauth.providers.values()) {
      for (const field of ['issuer', ...ENDPOINTS] as const) {
        const url = provider[field];
        if (url !== undefined) await this.checkUrl(`oauth.providers.${provider.name}.${field}`, url, offline, ElicitationConfigError);
      }
    }
    await loadOpenIdClient();
  }

  /** A provider's settings; an `ElicitationInputError` naming `provider` for an unknown one. */
  settings(name: unknown): ResolvedOAuthProvider {
    const provider = typeof name === 'string' ? this.options.oauth?.providers.get(name) : undefined;
    if (!provider) {
      const known = [...(this.options.oauth?.providers.keys() ?? [])];
      throw new ElicitationInputError(
        'provider',
        known.length ? `must be one of the oauth.providers (${known.join(', ')})` : 'needs the module option oauth.providers',
      );
    }
    return provider;
  }

  /** The provider ready for a flow (discovered once; a failure is not kept). */
  provider(name: string): Promise<OAuthProvider> {
    let ready = this.ready.get(name);
    if (!ready) {
      ready = this.build(this.settings(name));
      this.ready.set(name, ready);
      ready.catch(() => this.ready.delete(name));
    }
    return ready;
  }

  private async build(settings: ResolvedOAuthProvider): Promise<OAuthProvider> {
    const client = await loadOpenIdClient();
    const policy = this.options.externalUrlPolicy;
    const auth = settings.clientSecret === undefined ? client.None() : client.ClientSecretPost(settings.clientSecret);
    const insecure = (url: string) => new URL(url).protocol === 'http:';
    let config: Configuration;
    if (settings.issuer !== undefined) {
      await this.checkUrl(`oauth.providers.${settings.name}.issuer`, settings.issuer, policy, OAuthProviderError);
      config = await client.discovery(new URL(settings.issuer), settings.clientId, undefined, auth, {
        execute: insecure(settings.issuer) ? [client.allowInsecureRequests] : [],
        timeout: PROVIDER_TIMEOUT_S,
      });
      // The discovery document names the endpoints: they pass the same policy as configured ones.
      const metadata = config.serverMetadata();
      for (const field of ENDPOINTS) {
        const url = metadata[METADATA_FIELDS[field]];
        if (typeof url === 'string')
          await this.checkUrl(`the ${METADATA_FIELDS[field]} of ${settings.name}`, url, policy, OAuthProviderError);
      }
      if (settings.revocationEndpoint !== undefined) {
        config = new client.Configuration(
          { ...(metadata as ServerMetadata), revocation_endpoint: settings.revocationEndpoint },
          settings.clientId,
          undefined,
          auth,
        );
      }
    } else {
      for (const field of ENDPOINTS) {
        const url = settings[field];
        if (url !== undefined) await this.checkUrl(`oauth.providers.${settings.name}.${field}`, url, policy, OAuthProviderError);
      }
      config = new client.Configuration(
        {
          // Plain OAuth 2 has no issuer; the authorization endpoint's origin stands in (never compared: no ID token).
          issuer: new URL(settings.authorizationEndpoint!).origin,
          authorization_endpoint: settings.authorizationEndpoint,
          token_endpoint: settings.tokenEndpoint,
          userinfo_endpoint: settings.userinfoEndpoint,
          revocation_endpoint: settings.revocationEndpoint,
        },
        settings.clientId,
        undefined,
        auth,
      );
    }
    config.timeout = PROVIDER_TIMEOUT_S;
    if (
      [settings.issuer, ...ENDPOINTS.map((f) => config.serverMetadata()[METADATA_FIELDS[f]])].some(
        (u) => typeof u === 'string' && insecure(u),
      )
    ) {
      // Only loopback hosts get here over plain http (`allowHttpLoopback`, development and tests).
      client.allowInsecureRequests(config);
    }
    return { settings, oidc: settings.issuer !== undefined, config, client };
  }

  private async checkUrl(
    field: string,
    url: string,
    policy: ExternalUrlPolicy,
    Failure: new (field: string, problem: string, got?: { value: unknown }) => Error,
  ): Promise<void> {
    try {
      await assertSafeExternalUrl(url, policy);
    } catch (error) {
      // The URL as a config error shows it: its query (which may hold a secret) left out.
      const value = url.replace(/\?[\s\S]*$/, '?<redacted>');
      throw new Failure(field, `is refused by the externalUrlPolicy: ${(error as Error).message}`, { value });
    }
  }
}

/** The start-up check's resolver: loopback names as loopback, every other name as some public address. */
function offlineResolve(hostname: string): Promise<string[]> {
  const name = hostname.toLowerCase().replace(/\.+$/, '');
  return Promise.resolve(name === 'localhost' || name.endsWith('.localhost') ? ['127.0.0.1'] : ['8.8.8.8']);
}
