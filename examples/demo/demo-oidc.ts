/**
 * DEMO-ONLY authorization server: `oidc-provider` (panva), in process at `/demo/oidc`, with its stock development
 * login and consent pages (any user name, no password) and one registered client, so that `connect-account` can
 * connect an account without a third party. Never mount it in a deployed app: it trusts anyone who types a name.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OAuthProviderOptions } from '../../src/index.js';

/** The mount path of the development provider. */
export const DEMO_OIDC_PATH = '/demo/oidc';
/** The demo's client at it. */
export const DEMO_OIDC_CLIENT_ID = 'nestjs-mcp-elicitation-demo';
/** The scopes the demo asks for. */
export const DEMO_OIDC_SCOPES = ['openid', 'profile'];

/** Settings of the development provider. */
export interface DemoOidcOptions {
  /** The issuer, e.g. `http://127.0.0.1:3000/demo/oidc`: where the provider is reached (it serves under its path). */
  issuer: string;
  /** The demo client's redirect URIs: each app's `<origin>/<routePrefix>/oauth/callback`. */
  redirectUris: string[];
  /** Lifetime of an access token, in seconds (tests shorten it to see refreshes). @default 3600 */
  accessTokenTtlS?: number;
  /** The client secret. @default random per process */
  clientSecret?: string;
}

/** The provider: its `oauth.providers` entry, the handler to mount at the issuer's path, the `oidc-provider` itself. */
export interface DemoOidc {
  provider: OAuthProviderOptions;
  /** The `oidc-provider` instance (its events tell what it issued: `grant.success`, `refresh_token.consumed`, ...). */
  oidc: InstanceType<typeof import('oidc-provider').default>;
  /** A Node request handler (Koa's `callback()`), mounted under `DEMO_OIDC_PATH`. */
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  issuer: string;
}

/**
 * Builds the development provider: refresh tokens issued to the demo client (no `offline_access` needed) and
 * rotated on every use, revocation on, PKCE S256 required, the development interactions (login: any name; consent).
 */
export async function createDemoOidc(options: DemoOidcOptions): Promise<DemoOidc> {
  // Loaded only when the demo mounts it: the package is a development dependency.
  const { default: Provider } = await import('oidc-provider');
  const issuer = options.issuer.replace(/\/+$/, '');
  const clientSecret = options.clientSecret ?? randomBytes(24).toString('base64url');
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const oidc = new Provider(issuer, {
    clients: [
      {
        client_id: DEMO_OIDC_CLIENT_ID,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
        id_token_signed_response_alg: 'ES256',
      },
    ],
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'demo', use: 'sig', alg: 'ES256' }] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    features: { devInteractions: { enabled: true }, revocation: { enabled: true } },
    pkce: { required: () => true },
    ttl: { AccessToken: options.accessTokenTtlS ?? 3600 },
    issueRefreshToken: (_ctx, client) => Promise.resolve(client.grantTypeAllowed('refresh_token')),
    rotateRefreshToken: true,
    claims: { openid: ['sub'], profile: ['name'] },
    findAccount: (_ctx, sub) => Promise.resolve({ accountId: sub, claims: () => Promise.resolve({ sub, name: sub }) }),
  });
  // Behind the app's own server: the app sees the public origin (no proxy headers to trust).
  const callback = oidc.callback();
  const handler: DemoOidc['handler'] = (req, res) => void callback(req, res);
  return {
    issuer,
    oidc,
    handler,
    provider: { issuer, clientId: DEMO_OIDC_CLIENT_ID, clientSecret, scopes: DEMO_OIDC_SCOPES, displayName: 'Demo OIDC' },
  };
}
