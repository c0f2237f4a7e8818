import { ElicitationConfigError } from '../errors/elicitation-config.error.js';

/**
 * One OAuth 2 / OpenID Connect provider the `oauth` pages can connect an account at. Either `issuer` (OpenID
 * Connect discovery: the endpoints and the ID token's keys come from `<issuer>/.well-known/openid-configuration`)
 * or the plain OAuth 2 endpoints (`authorizationEndpoint` and `tokenEndpoint`, for providers such as GitHub).
 * Every endpoint passes the module's `externalUrlPolicy` (https; plain http to a loopback host only with
 * `allowHttpLoopback`, for development and tests).
 */
export interface OAuthProviderOptions {
  /** The OpenID Connect issuer, e.g. `https://accounts.google.com`. Excludes the endpoint fields. */
  issuer?: string;
  /** Plain OAuth 2: where the browser is sent to grant access. Required without `issuer`. */
  authorizationEndpoint?: string;
  /** Plain OAuth 2: where codes and refresh tokens are exchanged. Required without `issuer`. */
  tokenEndpoint?: string;
  /**
   * Plain OAuth 2: where the account behind a token is read (its `sub`, else `id`, else `login` becomes the
   * grant's `subject`). Without it a plain OAuth 2 grant has no subject.
   */
  userinfoEndpoint?: string;
  /** Plain OAuth 2: the RFC 7009 revocation endpoint `revokeOAuth` calls. With `issuer`, discovery names it. */
  revocationEndpoint?: string;
  /** The client id registered at the provider. */
  clientId: string;
  /** The client secret (sent as `client_secret_post`); omit for a public client (PKCE only). */
  clientSecret?: string;
  /** The scopes every grant asks for (an ask may add more with `scopes`), e.g. `['openid', 'profile']`. */
  scopes: string[];
  /** Extra parameters of the authorization request, e.g. `{ prompt: 'consent', access_type: 'offline' }`. */
  authorizationParams?: Record<string, string>;
  /** The provider's name as the page shows it. @default the provider's key in `providers` */
  displayName?: string;
}

/**
 * The `oauth` option: the providers `kind: 'oauth'` elicitations connect accounts at, and how long a connected
 * account's tokens are kept. Register `${baseUrl}/${routePrefix}/oauth/callback` as the redirect URI at each.
 */
export interface ElicitationOAuthOptions {
  /** The providers by name (letters, digits, `-` and `_`; the name an ask and `getOAuthToken` use). */
  providers: Record<string, OAuthProviderOptions>;
  /**
   * How long a connected account's tokens are kept after the grant or its last refresh, in milliseconds; an
   * unused grant is forgotten after it.
   * @default 2592000000 (30 days)
   */
  retentionMs?: number;
  /**
   * `getOAuthToken` refreshes an access token this many milliseconds before it expires.
   * @default 60000 (1 minute)
   */
  refreshBeforeMs?: number;
}

/** What a tool gets of a connected account: never the refresh token. */
export interface OAuthToken extends Record<string, unknown> {
  /** The access token, to call the provider's API with. Never put it in a tool result, a log or a URL. */
  accessToken: string;
  /** When the access token expires, epoch milliseconds (`undefined`: the provider did not say). */
  expiresAt?: number;
  /** The scopes the provider granted. */
  scopes: string[];
  /** The account at the provider: the ID token's `sub` (OpenID Connect), else the user info's `sub`, `id` or `login`. */
  subject?: string;
}

/** One provider after validation. */
export interface ResolvedOAuthProvider {
  name: string;
  displayName: string;
  issuer?: string;
  authorizationEndpoint?: string;
  tokenEndpoint?: string;
  userinfoEndpoint?: string;
  revocationEndpoint?: string;
  clientId: string;
  clientSecret?: string;
  scopes: readonly string[];
  authorizationParams: Readonly<Record<string, string>>;
}

/** The `oauth` option after validation and defaults. */
export interface ResolvedOAuthOptions {
  providers: ReadonlyMap<string, ResolvedOAuthProvider>;
  retentionMs: number;
  refreshBeforeMs: number;
}

/** Default of `oauth.retentionMs`: 30 days. */
export const DEFAULT_OAUTH_RETENTION_MS = 30 * 24 * 60 * 60_000;
/** Default of `oauth.refreshBeforeMs`: 1 minute. */
export const DEFAULT_OAUTH_REFRESH_BEFORE_MS = 60_000;
/** Longest `oauth.retentionMs`: one year. */
const MAX_OAUTH_RETENTION_MS = 365 * 24 * 60 * 60_000;

/** A provider's name: what asks, the vault and the grant's `type` (`oauth:<name>`) carry. */
export const OAUTH_PROVIDER_NAME = /^[A-Za-z0-9_-]{1,40}$/;
/** A scope token (RFC 6749 §3.3: printable ASCII but space, `"` and `\`). */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]{1,200}$/;
/** The endpoint fields of a plain OAuth 2 provider. */
const ENDPOINT_FIELDS = ['authorizationEndpoint', 'tokenEndpoint', 'userinfoEndpoint', 'revocationEndpoint'] as const;
/** Authorization parameters the flow sets itself. */
const RESERVED_PARAMS = new Set([
  'client_id',
  'redirect_uri',
  'response_type',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
]);

/** The type of the grants of `provider` (what `findByUserAndType` and the vault look them up by). */
export function oauthGrantType(provider: string): string {
  return `oauth:${provider}`;
}

/** Checks the `oauth` option (each problem naming its field, e.g. `oauth.providers.github.clientId`). */
export function resolveOAuthOptions(raw: ElicitationOAuthOptions | undefined): ResolvedOAuthOptions | undefined {
  if (raw === undefined) return undefined;
  if (!isRecord(raw)) throw new ElicitationConfigError('oauth', 'must be an object { providers: { <name>: { ... } } }', { value: raw });
  if (!isRecord(raw.providers) || Object.keys(raw.providers).length === 0) {
    const problem = 'must name at least one provider, e.g. { github: { authorizationEndpoint, ... } }';
    throw new ElicitationConfigError('oauth.providers', problem, { value: raw.providers });
  }
  const providers = new Map<string, ResolvedOAuthProvider>();
  for (const [name, provider] of Object.entries(raw.providers)) providers.set(name, resolveProvider(name, provider));
  return {
    providers,
    retentionMs: wholeMs('oauth.retentionMs', raw.retentionMs, DEFAULT_OAUTH_RETENTION_MS, 1, MAX_OAUTH_RETENTION_MS),
    refreshBeforeMs: wholeMs('oauth.refreshBeforeMs', raw.refreshBeforeMs, DEFAULT_OAUTH_REFRESH_BEFORE_MS, 0, 24 * 60 * 60_000),
  };
}

function resolveProvider(name: string, raw: unknown): ResolvedOAuthProvider {
  const at = `oauth.providers.${name}`;
  if (!OAUTH_PROVIDER_NAME.test(name))
    throw new ElicitationConfigError(at, 'has a name other than letters, digits, "-" and "_" (at most 40)', { value: name });
  if (!isRecord(raw))
    throw new ElicitationConfigError(at, 'must be an object { issuer | authorizationEndpoint, tokenEndpoint, clientId, scopes }', {
      value: raw,
    });
  const p = raw as Partial<OAuthProviderOptions>;
  const text = (field: keyof OAuthProviderOptions, value: unknown, required: boolean): string | undefined => {
    if (value === undefined && !required) return undefined;
    if (typeof value !== 'string' || !value.trim() || value.length > 2048) {
      throw new ElicitationConfigError(`${at}.${field}`, `must be a non-empty string${required ? '' : ' when given'}`, {
        value,
        secret: field === 'clientSecret',
      });
    }
    return value;
  };
  const clientId = text('clientId', p.clientId, true)!;
  const clientSecret = text('clientSecret', p.clientSecret, false);
  const displayName = text('displayName', p.displayName, false) ?? name;
  const issuer = p.issuer === undefined ? undefined : endpoint(`${at}.issuer`, p.issuer);
  const endpoints: Partial<Record<(typeof ENDPOINT_FIELDS)[number], string>> = {};
  for (const field of ENDPOINT_FIELDS) {
    if (p[field] === undefined) continue;
    if (issuer !== undefined && field !== 'revocationEndpoint') {
      const problem = 'is for plain OAuth 2 providers: with "issuer" the endpoints come from discovery';
      throw new ElicitationConfigError(`${at}.${field}`, problem, { value: p[field] });
    }
    endpoints[field] = endpoint(`${at}.${field}`, p[field]);
  }
  if (issuer === undefined) {
    for (const field of ['authorizationEndpoint', 'tokenEndpoint'] as const) {
      if (endpoints[field] === undefined) {
        throw new ElicitationConfigError(`${at}.${field}`, 'is required without "issuer" (or give "issuer" for OpenID Connect discovery)');
      }
    }
  }
  if (!Array.isArray(p.scopes) || p.scopes.some((s) => typeof s !== 'string' || !SCOPE_TOKEN.test(s))) {
    throw new ElicitationConfigError(`${at}.scopes`, 'must be an array of scope names, e.g. ["openid", "profile"] (no spaces)', {
      value: p.scopes,
    });
  }
  const authorizationParams = p.authorizationParams ?? {};
  if (!isRecord(authorizationParams) || Object.values(authorizationParams).some((v) => typeof v !== 'string')) {
    throw new ElicitationConfigError(`${at}.authorizationParams`, 'must be an object of string values', { value: authorizationParams });
  }
  const reserved = Object.keys(authorizationParams).find((key) => RESERVED_PARAMS.has(key));
  if (reserved) {
    throw new ElicitationConfigError(`${at}.authorizationParams.${reserved}`, 'is set by the flow itself', {
      value: authorizationParams[reserved],
    });
  }
  return {
    name,
    displayName,
    issuer,
    ...endpoints,
    clientId,
    clientSecret,
    scopes: Object.freeze([...new Set(p.scopes)]),
    authorizationParams: Object.freeze({ ...authorizationParams }),
  };
}

/** An endpoint's shape: an absolute http(s) URL without credentials or fragment (the URL policy is checked later). */
function endpoint(field: string, value: unknown): string {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    throw new ElicitationConfigError(field, 'must be an absolute https:// URL', { value: shownUrl(value) });
  }
  if (typeof value !== 'string' || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password || url.hash) {
    throw new ElicitationConfigError(field, 'must be an absolute https:// URL without credentials or fragment', { value: shownUrl(value) });
  }
  return url.href.replace(/\/$/, url.pathname === '/' ? '' : '/');
}

/** The scopes of an ask (`scopes`), each a scope token. */
export function isScopeList(value: unknown): value is string[] {
  return Array.isArray(value) && value.length <= 50 && value.every((s) => typeof s === 'string' && SCOPE_TOKEN.test(s));
}

function wholeMs(field: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new ElicitationConfigError(field, `must be a whole number of milliseconds from ${min} to ${max}`, { value });
  }
  return value;
}

/** An endpoint as an error shows it: credentials and the fragment (which may hold secrets) replaced. */
function shownUrl(value: unknown): unknown {
  return typeof value === 'string' ? value.replace(/\/\/[^/?#@]*@/, '//<redacted>@').replace(/#[\s\S]*$/, '#<redacted>') : value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
