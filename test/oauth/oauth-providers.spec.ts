/**
 * OAuthProviders against a real OpenID provider: the demo's development `oidc-provider` (examples/demo/demo-oidc.ts)
 * served on free loopback ports by this file, which counts the discovery requests it answers and can answer them
 * (or its token endpoint) 503. Discovery at first use, kept for later flows, a failed discovery tried again, the
 * URL policy's DNS check at first use, plain OAuth 2 providers without a request, `settings` of an unknown name,
 * and how the real `openid-client` errors of a refused and of an unreachable token request are classified.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDemoOidc, DEMO_OIDC_PATH, type DemoOidc } from '../../examples/demo/demo-oidc.js';
import { ElicitationInputError } from '../../src/errors/elicitation-input.error.js';
import { describeFailure, oauthErrorCode, providerUnreachable } from '../../src/oauth/oauth-failures.js';
import type { OAuthProviderOptions } from '../../src/options/oauth-options.js';
import { OAuthProviderError } from '../../src/errors/oauth-provider.error.js';
import { OAuthProviders, type OAuthProvider } from '../../src/oauth/oauth-providers.js';
import { errorOf } from '../support/error-of.js';
import { compileElicitation } from '../support/testing-module.js';

const REDIRECT_URI = 'https://mcp.example.com/elicit/oauth/callback';

/** The development provider on its own server: its `oauth.providers` entry and what the server saw. */
interface ServedOidc {
  issuer: string;
  port: number;
  provider: OAuthProviderOptions;
  /** Discovery documents requested (`…/.well-known/openid-configuration`), answered or not. */
  discoveryRequests: number;
  /** While true, discovery answers 503. */
  discoveryDown: boolean;
  /** While true, `POST …/token` answers 503 with a plain-text body. */
  tokenDown: boolean;
  close(): Promise<void>;
}

/** Serves the demo provider on `127.0.0.1:port` (0: a free port), under its issuer's path (as e2e/support does). */
async function serveDemoOidc(port = 0): Promise<ServedOidc> {
  /** The provider's handler, mounted once it exists (its issuer needs the port). */
  const mounted: { handler?: DemoOidc['handler'] } = {};
  const served = { discoveryRequests: 0, discoveryDown: false, tokenDown: false };
  const server: Server = createServer((req, res) => {
    const url = req.url ?? '/';
    const handler = mounted.handler;
    if (!handler || !url.startsWith(DEMO_OIDC_PATH)) {
      res.statusCode = 404;
      res.end();
      return;
    }
    if (url.startsWith(`${DEMO_OIDC_PATH}/.well-known/openid-configuration`)) {
      served.discoveryRequests += 1;
      if (served.discoveryDown) {
        res.statusCode = 503;
        res.end('discovery down');
        return;
      }
    }
    if (served.tokenDown && req.method === 'POST' && url.startsWith(`${DEMO_OIDC_PATH}/token`)) {
      req.resume();
      res.statusCode = 503;
      res.setHeader('Content-Type', 'text/plain');
      res.end('down for maintenance, access_token=BODY-SECRET');
      return;
    }
    Object.assign(req, { originalUrl: url, url: url.slice(DEMO_OIDC_PATH.length) || '/' });
    handler(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const actual = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${actual}${DEMO_OIDC_PATH}`;
  const demo = await createDemoOidc({ issuer, redirectUris: [REDIRECT_URI] });
  mounted.handler = demo.handler;
  return Object.assign(served, {
    issuer,
    port: actual,
    provider: demo.provider,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** A loopback port with nothing listening (bound, then released). */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The `code`s along an error's `cause` chain. */
function causeCodes(error: unknown): unknown[] {
  const codes: unknown[] = [];
  for (let e = error as { code?: unknown; cause?: unknown } | undefined; e && codes.length < 10; e = e.cause as typeof e) {
    codes.push(e.code);
  }
  return codes;
}

/** What a promise rejects with (fails the test when it resolves). */
async function rejectionOf(promise: () => Promise<unknown>): Promise<unknown> {
  try {
    await promise();
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('OAuthProviders with a real OpenID provider', () => {
  let oidc: ServedOidc;
  let late: ServedOidc | undefined;
  let latePort: number;
  let ref: TestingModule;
  let providers: OAuthProviders;
  const lookups: string[] = [];

  beforeAll(async () => {
    oidc = await serveDemoOidc();
    latePort = await deadPort();
    const lateIssuer = `http://127.0.0.1:${latePort}${DEMO_OIDC_PATH}`;
    ref = await compileElicitation({
      oauth: {
        providers: {
          x: oidc.provider,
          twin: oidc.provider,
          flaky: oidc.provider,
          revoking: { ...oidc.provider, revocationEndpoint: `http://127.0.0.1:${oidc.port}/custom/revoke` },
          late: { ...oidc.provider, issuer: lateIssuer },
          gh: {
            authorizationEndpoint: 'http://127.0.0.1:9/login/oauth/authorize',
            tokenEndpoint: 'http://127.0.0.1:9/login/oauth/access_token',
            userinfoEndpoint: 'https://api.github.example/user',
            clientId: 'gh',
            scopes: ['read:user'],
          },
          intranet: { issuer: 'https://sso.intranet.example/realms/main', clientId: 'c', scopes: ['openid'] },
        },
      },
      externalUrlPolicy: {
        allowHttpLoopback: true,
        // The policy's DNS lookup, at first use only: the intranet name resolves to a private address.
        resolveHost: (hostname) => {
          lookups.push(hostname);
          return Promise.resolve(hostname === 'sso.intranet.example' ? ['10.1.2.3'] : ['93.184.216.34']);
        },
      },
    });
    providers = ref.get(OAuthProviders);
  });

  afterAll(async () => {
    await ref?.close();
    await oidc?.close();
    await late?.close();
  });

  it('discovers an issuer at first use: the endpoints are the provider’s own', async () => {
    expect(lookups).toEqual([]); // start-up looked nothing up
    expect(oidc.discoveryRequests).toBe(0); // nor discovered anything
    const x = await providers.provider('x');
    expect(oidc.discoveryRequests).toBe(1);
    const document = (await (await fetch(`${oidc.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    const metadata = x.config.serverMetadata();
    expect(metadata.issuer).toBe(oidc.issuer);
    expect(metadata.authorization_endpoint).toBe(document.authorization_endpoint);
    expect(metadata.authorization_endpoint).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${oidc.port}${DEMO_OIDC_PATH}/`));
    expect(metadata.token_endpoint).toBe(document.token_endpoint);
    expect(metadata.revocation_endpoint).toBe(document.revocation_endpoint);
    expect(x.config.clientMetadata().client_id).toBe(oidc.provider.clientId);
    expect(x.oidc).toBe(true);
    expect(x.settings).toBe(providers.settings('x'));
  });

  it('keeps a discovered provider: a second call is the same object, without another request', async () => {
    const first = await providers.provider('x');
    const before = oidc.discoveryRequests;
    expect(await providers.provider('x')).toBe(first);
    expect(oidc.discoveryRequests).toBe(before);
  });

  it('discovers once for concurrent first calls, and once per provider name', async () => {
    const before = oidc.discoveryRequests;
    const calls = [providers.provider('twin'), providers.provider('twin'), providers.provider('twin')];
    const [a, b, c] = await Promise.all(calls);
    expect(b).toBe(a);
    expect(c).toBe(a);
    expect(oidc.discoveryRequests).toBe(before + 1);
    expect(a).not.toBe(await providers.provider('x'));
  });

  it('rejects when nothing listens at the issuer, keeps no failure, and succeeds once the provider is up', async () => {
    const first = providers.provider('late');
    const error = await rejectionOf(() => first);
    // The connection was refused. (Outside Jest this is fetch's own TypeError, which providerUnreachable counts
    // as unreachable, see oauth-failures.spec.ts; under Jest's VM modules fetch's TypeError is of another realm,
    // so openid-client wraps it in a ClientError: only the cause chain is asserted here.)
    expect(causeCodes(error)).toContain('ECONNREFUSED');
    const second = providers.provider('late');
    expect(second).not.toBe(first);
    await rejectionOf(() => second);
    late = await serveDemoOidc(latePort);
    const ready: OAuthProvider = await providers.provider('late');
    expect(ready.config.serverMetadata().issuer).toBe(late.issuer);
    expect(ready.config.serverMetadata().authorization_endpoint).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${latePort}/`));
    expect(late.discoveryRequests).toBe(1);
    expect(await providers.provider('late')).toBe(ready);
  });

  it('tries a discovery that answered 503 again at the next call', async () => {
    oidc.discoveryDown = true;
    const before = oidc.discoveryRequests;
    try {
      const error = await rejectionOf(() => providers.provider('flaky'));
      expect(oidc.discoveryRequests).toBe(before + 1);
      expect(providerUnreachable(error)).toBe(true);
      expect(describeFailure(error)).not.toMatch(/discovery down/);
    } finally {
      oidc.discoveryDown = false;
    }
    const flaky = await providers.provider('flaky');
    expect(oidc.discoveryRequests).toBe(before + 2);
    expect(flaky.config.serverMetadata().issuer).toBe(oidc.issuer);
  });

  it('uses a configured revocationEndpoint over the discovered one', async () => {
    const revoking = await providers.provider('revoking');
    expect(revoking.config.serverMetadata().revocation_endpoint).toBe(`http://127.0.0.1:${oidc.port}/custom/revoke`);
    expect(revoking.config.serverMetadata().token_endpoint).toBe((await providers.provider('x')).config.serverMetadata().token_endpoint);
  });

  it('builds a plain OAuth 2 provider from its endpoints, without a request to it', async () => {
    const gh = await providers.provider('gh');
    const metadata = gh.config.serverMetadata();
    expect(gh.oidc).toBe(false);
    expect(metadata.issuer).toBe('http://127.0.0.1:9');
    expect(metadata.authorization_endpoint).toBe('http://127.0.0.1:9/login/oauth/authorize');
    expect(metadata.token_endpoint).toBe('http://127.0.0.1:9/login/oauth/access_token');
    expect(metadata.userinfo_endpoint).toBe('https://api.github.example/user');
    expect(metadata.revocation_endpoint).toBeUndefined();
    // The userinfo host passed the policy's DNS check at first use.
    expect(lookups).toContain('api.github.example');
  });

  it('refuses at first use an issuer whose name resolves to a private address, naming the field', async () => {
    const error = await rejectionOf(() => providers.provider('intranet'));
    expect(error).toBeInstanceOf(OAuthProviderError);
    expect((error as OAuthProviderError).field).toBe('oauth.providers.intranet.issuer');
    expect((error as Error).message).toMatch(/externalUrlPolicy/);
    expect(lookups).toContain('sso.intranet.example');
    // Not kept either: the next call checks again.
    const count = lookups.filter((h) => h === 'sso.intranet.example').length;
    await rejectionOf(() => providers.provider('intranet'));
    expect(lookups.filter((h) => h === 'sso.intranet.example').length).toBe(count + 1);
  });

  it('settings of an unknown provider: ElicitationInputError naming "provider" and the configured ones', async () => {
    for (const name of ['nope', '', 42, undefined, 'X']) {
      const error = errorOf(() => providers.settings(name));
      expect(error).toBeInstanceOf(ElicitationInputError);
      expect((error as ElicitationInputError).field).toBe('provider');
      expect(error.message).toMatch(/must be one of the oauth\.providers \(x, twin, flaky, revoking, late, gh, intranet\)/);
    }
    const viaProvider = await rejectionOf(async () => providers.provider('nope'));
    expect(viaProvider).toBeInstanceOf(ElicitationInputError);
    expect((viaProvider as ElicitationInputError).field).toBe('provider');
    expect(providers.settings('gh')).toMatchObject({ name: 'gh', clientId: 'gh', scopes: ['read:user'] });
    expect(providers.enabled).toBe(true);
  });

  it('classifies a refused refresh (invalid_grant) as the provider’s answer, told without the token', async () => {
    const x = await providers.provider('x');
    const error = await rejectionOf(() => x.client.refreshTokenGrant(x.config, 'not-a-refresh-token-SECRET'));
    expect(oauthErrorCode(error)).toBe('invalid_grant');
    expect(providerUnreachable(error)).toBe(false);
    expect(describeFailure(error)).toBe('invalid_grant, HTTP 400');
  });

  it('classifies a token endpoint answering 503 as unreachable, told without its body', async () => {
    const x = await providers.provider('x');
    oidc.tokenDown = true;
    try {
      const error = await rejectionOf(() => x.client.refreshTokenGrant(x.config, 'refresh-SECRET'));
      expect(providerUnreachable(error)).toBe(true);
      expect(oauthErrorCode(error)).toBeUndefined();
      const told = describeFailure(error);
      expect(told).not.toMatch(/SECRET|maintenance/);
      expect(told.length).toBeGreaterThan(0);
    } finally {
      oidc.tokenDown = false;
    }
  });
});

/**
 * A token request to a provider that never answers, with `openid-client`'s own timeout cut to 1 s (the module
 * uses 10 s): the error `openid-client` rejects with.
 */
async function timedOutRefresh(client: OAuthProvider['client']): Promise<unknown> {
  const silent = createServer(() => undefined); // accepts, never answers
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as AddressInfo;
  try {
    const config = new client.Configuration(
      { issuer: `http://127.0.0.1:${port}`, token_endpoint: `http://127.0.0.1:${port}/token` },
      'c',
      undefined,
      client.None(),
    );
    client.allowInsecureRequests(config);
    config.timeout = 1;
    return await rejectionOf(() => client.refreshTokenGrant(config, 'refresh-SECRET'));
  } finally {
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  }
}

describe('a provider that does not answer in time', () => {
  let client: OAuthProvider['client'];
  beforeAll(async () => {
    client = await import('openid-client');
  });

  it('openid-client rejects with its timeout error (a ClientError with code OAUTH_TIMEOUT, caused by a TimeoutError)', async () => {
    const started = Date.now();
    const error = (await timedOutRefresh(client)) as { name?: unknown; code?: unknown; cause?: { name?: unknown } };
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(error.name).toBe('ClientError');
    expect(error.code).toBe('OAUTH_TIMEOUT');
    expect(error.cause?.name).toBe('TimeoutError');
    expect(describeFailure(error)).not.toMatch(/SECRET/);
  });

  // openid-client 6 wraps a timeout in a ClientError (code OAUTH_TIMEOUT, the DOMException as its cause): a refresh
  // that times out keeps the grant, and a callback answers 503 rather than 502.
  it('counts that timeout as unreachable', async () => {
    expect(providerUnreachable(await timedOutRefresh(client))).toBe(true);
  });
});

describe('OAuthProviders without the oauth option', () => {
  it('is disabled, and settings says the option is needed', async () => {
    const ref = await compileElicitation();
    try {
      const providers = ref.get(OAuthProviders);
      expect(providers.enabled).toBe(false);
      const error = errorOf(() => providers.settings('github'));
      expect(error).toBeInstanceOf(ElicitationInputError);
      expect((error as ElicitationInputError).field).toBe('provider');
      expect(error.message).toMatch(/needs the module option oauth\.providers/);
    } finally {
      await ref.close();
    }
  });
});
