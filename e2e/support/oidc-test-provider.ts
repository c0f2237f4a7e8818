/**
 * A real OpenID provider for the OAuth tests: the demo's development `oidc-provider` (examples/demo/demo-oidc.ts,
 * stock development login and consent), served by a Node server of its own on a free loopback port, so that
 * several app instances share it. It counts what its token endpoint did (from the provider's own events) and can
 * be told to answer its token endpoint 503, as a provider that is down would.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDemoOidc, DEMO_OIDC_PATH, type DemoOidc } from '../../examples/demo/demo-oidc.js';
import type { OAuthProviderOptions } from '../../src/index.js';

/** The running provider. */
export interface TestOidcProvider {
  /** The `oauth.providers` entry for apps (issuer, client id and secret, scopes). */
  provider: OAuthProviderOptions;
  issuer: string;
  /** The `oidc-provider` instance. */
  oidc: DemoOidc['oidc'];
  /** Token endpoint grants that succeeded, by grant type (`authorization_code`, `refresh_token`). */
  readonly grants: Record<string, number>;
  /** Token endpoint requests that failed, by OAuth error code (`invalid_grant`, ...). */
  readonly grantErrors: Record<string, number>;
  /** While true, `POST …/token` answers 503 (the provider is down); everything else works. */
  tokenEndpointDown: boolean;
  close(): Promise<void>;
}

/**
 * Starts the provider for apps whose callbacks are `redirectUris` (`<origin>/elicit/oauth/callback` of each
 * instance). `accessTokenTtlS` short makes access tokens expire within a test (refreshes).
 */
export async function startTestOidcProvider(options: { redirectUris: string[]; accessTokenTtlS?: number }): Promise<TestOidcProvider> {
  // The provider is built once the port is known (its issuer names it); requests before that get 404.
  const state: { down: boolean; handler?: DemoOidc['handler'] } = { down: false };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    const handler = state.handler;
    if (!handler || !url.startsWith(DEMO_OIDC_PATH)) {
      res.statusCode = 404;
      res.end();
      return;
    }
    if (state.down && req.method === 'POST' && url.startsWith(`${DEMO_OIDC_PATH}/token`)) {
      req.resume();
      res.statusCode = 503;
      res.setHeader('Content-Type', 'text/plain');
      res.end('down for maintenance');
      return;
    }
    // Served under its issuer's path: the provider reads its mount path from originalUrl, as behind Express.
    Object.assign(req, { originalUrl: url, url: url.slice(DEMO_OIDC_PATH.length) || '/' });
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}${DEMO_OIDC_PATH}`;
  const demo = await createDemoOidc({ issuer, redirectUris: options.redirectUris, accessTokenTtlS: options.accessTokenTtlS });
  state.handler = demo.handler;
  const grants: Record<string, number> = {};
  const grantErrors: Record<string, number> = {};
  demo.oidc.on('grant.success', (ctx: { oidc: { params?: { grant_type?: unknown } } }) => {
    const type = String(ctx.oidc.params?.grant_type);
    grants[type] = (grants[type] ?? 0) + 1;
  });
  demo.oidc.on('grant.error', (_ctx: unknown, error: { error?: unknown }) => {
    const code = String(error.error);
    grantErrors[code] = (grantErrors[code] ?? 0) + 1;
  });
  return {
    provider: demo.provider,
    issuer,
    oidc: demo.oidc,
    grants,
    grantErrors,
    get tokenEndpointDown() {
      return state.down;
    },
    set tokenEndpointDown(down: boolean) {
      state.down = down;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
