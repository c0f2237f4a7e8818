/**
 * The `oauth` module option: every problem names its field (`oauth.providers.<name>.<field>`), the defaults, the
 * same through `resolveElicitationOptions` (the module's path), and the start-up URL-policy check of
 * `ElicitationModule` (OAuthProviders.onModuleInit) on a real Nest testing module.
 */
import { describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { ElicitationModule } from '../../src/module/elicitation.module.js';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';
import { resolveElicitationOptions } from '../../src/options/elicitation-options.validation.js';
import { ElicitationConfigError } from '../../src/errors/elicitation-config.error.js';
import {
  DEFAULT_OAUTH_REFRESH_BEFORE_MS,
  DEFAULT_OAUTH_RETENTION_MS,
  isScopeList,
  oauthGrantType,
  resolveOAuthOptions,
  type ElicitationOAuthOptions,
  type OAuthProviderOptions,
} from '../../src/options/oauth-options.js';
import { OAuthProviders } from '../../src/oauth/oauth-providers.js';
import { errorOf } from '../support/error-of.js';

const KEY = Buffer.alloc(32, 7);
/** A development environment, whatever NODE_ENV the test run has. */
const DEV: NodeJS.ProcessEnv = { NODE_ENV: 'development' };
const DAY_MS = 24 * 60 * 60_000;

/** A plain OAuth 2 provider (GitHub-like) that passes every check. */
const github: OAuthProviderOptions = {
  authorizationEndpoint: 'https://github.com/login/oauth/authorize',
  tokenEndpoint: 'https://github.com/login/oauth/access_token',
  clientId: 'gh-client',
  clientSecret: 'gh-secret',
  scopes: ['read:user'],
};
/** An OpenID Connect provider that passes every check. */
const google: OAuthProviderOptions = { issuer: 'https://accounts.google.com', clientId: 'g-client', scopes: ['openid', 'email'] };

/** `oauth` with one provider `github`, patched (a field set to `undefined` is removed). */
function withGithub(patch: Record<string, unknown>): ElicitationOAuthOptions {
  const provider: Record<string, unknown> = { ...github, ...patch };
  for (const [k, v] of Object.entries(patch)) if (v === undefined) delete provider[k];
  return { providers: { github: provider as unknown as OAuthProviderOptions } };
}

function configError(fn: () => unknown): ElicitationConfigError {
  const error = errorOf(fn);
  expect(error).toBeInstanceOf(ElicitationConfigError);
  return error as ElicitationConfigError;
}

/** Asserts `raw` is refused naming `option`, by resolveOAuthOptions and by resolveElicitationOptions alike. */
function expectRefused(raw: unknown, option: string, message?: RegExp): ElicitationConfigError {
  const direct = configError(() => resolveOAuthOptions(raw as ElicitationOAuthOptions));
  expect(direct.option).toBe(option);
  expect(direct.message).toContain(`ElicitationModule option "${option}"`);
  if (message) expect(direct.message).toMatch(message);
  const viaModule = configError(() =>
    resolveElicitationOptions(
      { baseUrl: 'https://mcp.example.com', encryptionKey: KEY, oauth: raw as ElicitationOAuthOptions },
      'elicit',
      DEV,
    ),
  );
  expect(viaModule.option).toBe(option);
  expect(viaModule.message).toBe(direct.message);
  return direct;
}

describe('resolveOAuthOptions: every problem names its field', () => {
  it.each<[string, Record<string, unknown>, string, RegExp?]>([
    ['clientId missing', { clientId: undefined }, 'clientId', /non-empty string/],
    ['clientId empty', { clientId: '  ' }, 'clientId'],
    ['clientId not a string', { clientId: 42 }, 'clientId'],
    ['clientId too long', { clientId: 'c'.repeat(2049) }, 'clientId'],
    ['clientSecret empty', { clientSecret: '' }, 'clientSecret', /when given/],
    ['displayName not a string', { displayName: 7 }, 'displayName'],
    ['scopes missing', { scopes: undefined }, 'scopes', /array of scope names/],
    ['scopes a string', { scopes: 'read:user repo' }, 'scopes'],
    ['a scope with a space', { scopes: ['read:user', 'repo gist'] }, 'scopes', /no spaces/],
    ['a scope with a quote', { scopes: ['a"b'] }, 'scopes'],
    ['a scope with a backslash', { scopes: ['a\\b'] }, 'scopes'],
    ['an empty scope', { scopes: [''] }, 'scopes'],
    ['a scope not a string', { scopes: [1] }, 'scopes'],
    [
      'issuer together with tokenEndpoint',
      { issuer: 'https://idp.example.com', authorizationEndpoint: undefined },
      'tokenEndpoint',
      /discovery/,
    ],
    ['issuer together with authorizationEndpoint', { issuer: 'https://idp.example.com' }, 'authorizationEndpoint', /discovery/],
    [
      'issuer together with userinfoEndpoint',
      {
        issuer: 'https://idp.example.com',
        authorizationEndpoint: undefined,
        tokenEndpoint: undefined,
        userinfoEndpoint: 'https://idp.example.com/me',
      },
      'userinfoEndpoint',
    ],
    [
      'neither issuer nor endpoints',
      { authorizationEndpoint: undefined, tokenEndpoint: undefined },
      'authorizationEndpoint',
      /required without "issuer"/,
    ],
    ['no tokenEndpoint without issuer', { tokenEndpoint: undefined }, 'tokenEndpoint', /required without "issuer"/],
    ['a non-http endpoint', { authorizationEndpoint: 'ftp://github.com/authorize' }, 'authorizationEndpoint', /https:\/\//],
    ['a javascript: endpoint', { tokenEndpoint: 'javascript:alert(1)' }, 'tokenEndpoint'],
    ['a relative endpoint', { tokenEndpoint: '/login/oauth/access_token' }, 'tokenEndpoint', /absolute/],
    ['an endpoint not a string', { tokenEndpoint: 42 }, 'tokenEndpoint'],
    ['an endpoint with credentials', { tokenEndpoint: 'https://user:pass@github.com/token' }, 'tokenEndpoint', /credentials/],
    ['an endpoint with a user name only', { userinfoEndpoint: 'https://user@api.github.com/user' }, 'userinfoEndpoint', /credentials/],
    ['an endpoint with a fragment', { revocationEndpoint: 'https://github.com/revoke#x' }, 'revocationEndpoint', /fragment/],
    ['a non-http issuer', { issuer: 'ldap://idp.example.com', authorizationEndpoint: undefined, tokenEndpoint: undefined }, 'issuer'],
    ['authorizationParams not an object', { authorizationParams: 'prompt=consent' }, 'authorizationParams', /object of string values/],
    ['authorizationParams an array', { authorizationParams: ['prompt'] }, 'authorizationParams'],
    ['an authorization parameter not a string', { authorizationParams: { max_age: 3600 } }, 'authorizationParams'],
  ])('%s', (...row) => {
    // A rest parameter: rows without a message would otherwise get Jest's `done` callback in its place.
    const [, patch, field, message] = row;
    expectRefused(withGithub(patch), `oauth.providers.github.${field}`, message);
  });

  it.each(['client_id', 'redirect_uri', 'response_type', 'scope', 'state', 'nonce', 'code_challenge', 'code_challenge_method'])(
    'the reserved authorization parameter %s, named with its key',
    (key) => {
      expectRefused(
        withGithub({ authorizationParams: { prompt: 'consent', [key]: 'x' } }),
        `oauth.providers.github.authorizationParams.${key}`,
        /set by the flow itself/,
      );
    },
  );

  it.each([
    ['a space', 'git hub'],
    ['a dot', 'github.com'],
    ['a colon', 'oauth:github'],
    ['a slash', 'a/b'],
    ['an empty name', ''],
    ['41 characters', 'p'.repeat(41)],
  ])('a provider name with %s', (_case, name) => {
    expectRefused({ providers: { [name]: github } }, `oauth.providers.${name}`, /letters, digits/);
  });

  it('accepts a provider name of letters, digits, "-" and "_" up to 40 characters', () => {
    const name = `Git_Hub-2${'x'.repeat(31)}`;
    expect(name).toHaveLength(40);
    expect(resolveOAuthOptions({ providers: { [name]: github } })?.providers.get(name)?.name).toBe(name);
  });

  it.each([
    ['null', null],
    ['a string', 'https://github.com'],
    ['an array', [github]],
  ])('a provider that is %s', (_case, provider) => {
    expectRefused({ providers: { github: provider } }, 'oauth.providers.github', /must be an object/);
  });

  it('names the bad provider among good ones', () => {
    expectRefused({ providers: { google, github: { ...github, clientId: undefined } } }, 'oauth.providers.github.clientId');
  });

  it.each([
    ['empty', { providers: {} }],
    ['missing', {}],
    ['an array', { providers: [github] }],
    ['null', { providers: null }],
  ])('providers %s', (_case, raw) => {
    expectRefused(raw, 'oauth.providers', /at least one provider/);
  });

  it.each([
    ['null', null],
    ['a string', 'github'],
    ['an array', [{ providers: { github } }]],
  ])('oauth that is %s', (_case, raw) => {
    expectRefused(raw, 'oauth', /must be an object/);
  });

  it.each([0, -1, 1.5, DAY_MS * 365 + 1, Number.NaN, Infinity])('retentionMs %p is out of bounds', (retentionMs) => {
    expectRefused({ providers: { github }, retentionMs }, 'oauth.retentionMs', /whole number of milliseconds from 1 to 31536000000/);
  });

  it('retentionMs as a string is refused', () => {
    expectRefused({ providers: { github }, retentionMs: '30d' }, 'oauth.retentionMs');
  });

  it.each([-1, 0.5, DAY_MS + 1, Number.NaN])('refreshBeforeMs %p is out of bounds', (refreshBeforeMs) => {
    expectRefused({ providers: { github }, refreshBeforeMs }, 'oauth.refreshBeforeMs', /from 0 to 86400000/);
  });

  it('accepts the bounds of retentionMs and refreshBeforeMs', () => {
    expect(resolveOAuthOptions({ providers: { github }, retentionMs: 1, refreshBeforeMs: 0 })).toMatchObject({
      retentionMs: 1,
      refreshBeforeMs: 0,
    });
    expect(resolveOAuthOptions({ providers: { github }, retentionMs: 365 * DAY_MS, refreshBeforeMs: DAY_MS })).toMatchObject({
      retentionMs: 365 * DAY_MS,
      refreshBeforeMs: DAY_MS,
    });
  });
});

describe('resolveOAuthOptions: what passes, and the defaults', () => {
  it('is undefined without the option', () => {
    expect(resolveOAuthOptions(undefined)).toBeUndefined();
    const { options } = resolveElicitationOptions({ baseUrl: 'https://mcp.example.com', encryptionKey: KEY }, 'elicit', DEV);
    expect(options.oauth).toBeUndefined();
  });

  it('fills in retentionMs (30 days), refreshBeforeMs (60 s), displayName (the key) and empty authorizationParams', () => {
    expect(DEFAULT_OAUTH_RETENTION_MS).toBe(30 * DAY_MS);
    expect(DEFAULT_OAUTH_REFRESH_BEFORE_MS).toBe(60_000);
    const resolved = resolveOAuthOptions({ providers: { github, google } })!;
    expect(resolved.retentionMs).toBe(2_592_000_000);
    expect(resolved.refreshBeforeMs).toBe(60_000);
    expect([...resolved.providers.keys()]).toEqual(['github', 'google']);
    expect(resolved.providers.get('github')).toEqual({
      name: 'github',
      displayName: 'github',
      authorizationEndpoint: 'https://github.com/login/oauth/authorize',
      tokenEndpoint: 'https://github.com/login/oauth/access_token',
      clientId: 'gh-client',
      clientSecret: 'gh-secret',
      issuer: undefined,
      scopes: ['read:user'],
      authorizationParams: {},
    });
    expect(resolved.providers.get('google')).toMatchObject({
      name: 'google',
      displayName: 'google',
      issuer: 'https://accounts.google.com',
    });
    expect(resolved.providers.get('google')?.clientSecret).toBeUndefined();
  });

  it('keeps a given displayName, retentionMs and refreshBeforeMs', () => {
    const resolved = resolveOAuthOptions({
      providers: { github: { ...github, displayName: 'GitHub' } },
      retentionMs: 7 * DAY_MS,
      refreshBeforeMs: 5_000,
    })!;
    expect(resolved.providers.get('github')?.displayName).toBe('GitHub');
    expect(resolved.retentionMs).toBe(7 * DAY_MS);
    expect(resolved.refreshBeforeMs).toBe(5_000);
  });

  it('deduplicates the scopes (first occurrence kept) and freezes them and the authorization parameters', () => {
    const scopes = ['openid', 'profile', 'openid', 'email', 'profile'];
    const params = { prompt: 'consent', access_type: 'offline' };
    const provider = resolveOAuthOptions({ providers: { google: { ...google, scopes, authorizationParams: params } } })!.providers.get(
      'google',
    )!;
    expect(provider.scopes).toEqual(['openid', 'profile', 'email']);
    expect(provider.authorizationParams).toEqual(params);
    expect(Object.isFrozen(provider.scopes)).toBe(true);
    expect(Object.isFrozen(provider.authorizationParams)).toBe(true);
    // Copies: the caller's objects changing later changes nothing.
    scopes.push('admin');
    params.prompt = 'none';
    expect(provider.scopes).toEqual(['openid', 'profile', 'email']);
    expect(provider.authorizationParams.prompt).toBe('consent');
  });

  it('accepts an empty scope list and scope tokens with RFC 6749 punctuation', () => {
    expect(resolveOAuthOptions({ providers: { github: { ...github, scopes: [] } } })!.providers.get('github')!.scopes).toEqual([]);
    const odd = ['read:user', 'https://www.googleapis.com/auth/drive.readonly', 'a!#$%&()*+,-./;<=>?@[]^_`{|}~'];
    expect(resolveOAuthOptions({ providers: { github: { ...github, scopes: odd } } })!.providers.get('github')!.scopes).toEqual(odd);
  });

  it('accepts revocationEndpoint alongside issuer (discovery may not name one)', () => {
    const provider = resolveOAuthOptions({
      providers: { google: { ...google, revocationEndpoint: 'https://oauth2.googleapis.com/revoke' } },
    })!.providers.get('google')!;
    expect(provider.revocationEndpoint).toBe('https://oauth2.googleapis.com/revoke');
  });

  it('normalises the URLs: an origin loses its trailing slash, a path keeps it', () => {
    const provider = resolveOAuthOptions({
      providers: {
        a: { ...google, issuer: 'https://IDP.Example.com/' },
        b: { ...google, issuer: 'https://idp.example.com/realms/main/' },
        c: { ...github, userinfoEndpoint: 'http://127.0.0.1:8080/user' },
      },
    })!.providers;
    expect(provider.get('a')!.issuer).toBe('https://idp.example.com');
    expect(provider.get('b')!.issuer).toBe('https://idp.example.com/realms/main/');
    // Plain http is a shape the option accepts; the URL policy decides at start-up (below).
    expect(provider.get('c')!.userinfoEndpoint).toBe('http://127.0.0.1:8080/user');
  });

  it('puts the resolved providers in the module options', () => {
    const { options } = resolveElicitationOptions(
      { baseUrl: 'https://mcp.example.com', encryptionKey: KEY, oauth: { providers: { github }, refreshBeforeMs: 1_000 } },
      'elicit',
      DEV,
    );
    expect(options.oauth?.providers.get('github')?.clientId).toBe('gh-client');
    expect(options.oauth?.retentionMs).toBe(DEFAULT_OAUTH_RETENTION_MS);
    expect(options.oauth?.refreshBeforeMs).toBe(1_000);
  });

  it('oauthGrantType and isScopeList', () => {
    expect(oauthGrantType('github')).toBe('oauth:github');
    expect(isScopeList([])).toBe(true);
    expect(isScopeList(['repo', 'read:user'])).toBe(true);
    expect(isScopeList(Array.from({ length: 50 }, (_, i) => `s${i}`))).toBe(true);
    expect(isScopeList(Array.from({ length: 51 }, (_, i) => `s${i}`))).toBe(false);
    expect(isScopeList(['repo gist'])).toBe(false);
    expect(isScopeList(['s'.repeat(201)])).toBe(false);
    expect(isScopeList('repo')).toBe(false);
    expect(isScopeList([1])).toBe(false);
    expect(isScopeList(undefined)).toBe(false);
  });
});

/** Compiles `ElicitationModule.forRoot(options)` and runs `init()`: the error it throws, or none; always closed. */
async function startUp(
  options: Partial<ElicitationModuleOptions>,
): Promise<{ error?: unknown; phase?: 'compile' | 'init'; providers?: OAuthProviders }> {
  const noop = () => undefined;
  let moduleRef: TestingModule | undefined;
  let phase: 'compile' | 'init' = 'compile';
  try {
    // The options are resolved while the module compiles, the URL policy is checked by init().
    moduleRef = await Test.createTestingModule({
      imports: [
        ElicitationModule.forRoot({
          baseUrl: 'https://mcp.example.com',
          encryptionKey: KEY,
          resolvePageUser: () => 'alice',
          cleanupIntervalMs: 0,
          ...options,
        }),
      ],
    })
      .setLogger({ log: noop, error: noop, warn: noop, debug: noop, verbose: noop, fatal: noop })
      .compile();
    phase = 'init';
    await moduleRef.init();
    return { providers: moduleRef.get(OAuthProviders) };
  } catch (error) {
    return { error, phase };
  } finally {
    await moduleRef?.close().catch(() => undefined);
  }
}

async function expectStartRefused(
  options: Partial<ElicitationModuleOptions>,
  option: string,
  message: RegExp,
  phase: 'compile' | 'init' = 'init',
): Promise<void> {
  const { error, phase: failedIn } = await startUp(options);
  expect(failedIn).toBe(phase);
  expect(error).toBeInstanceOf(ElicitationConfigError);
  expect((error as ElicitationConfigError).option).toBe(option);
  expect((error as ElicitationConfigError).message).toMatch(message);
}

describe('ElicitationModule start-up: the provider URLs pass the externalUrlPolicy', () => {
  const loopback = (port: number): OAuthProviderOptions => ({
    authorizationEndpoint: `http://127.0.0.1:${port}/auth`,
    tokenEndpoint: `http://127.0.0.1:${port}/token`,
    clientId: 'c',
    scopes: ['read'],
  });

  it('refuses plain http off loopback, naming the field', async () => {
    await expectStartRefused(
      { oauth: { providers: { x: { ...loopback(1), authorizationEndpoint: 'http://example.com/auth' } } } },
      'oauth.providers.x.authorizationEndpoint',
      /externalUrlPolicy/,
    );
  });

  it('refuses plain http to loopback without allowHttpLoopback, naming the first such field', async () => {
    await expectStartRefused(
      { oauth: { providers: { x: loopback(4000) } } },
      'oauth.providers.x.authorizationEndpoint',
      /allowHttpLoopback/,
    );
  });

  it('starts with plain http to 127.0.0.1 and allowHttpLoopback', async () => {
    const { error, providers } = await startUp({
      oauth: { providers: { x: loopback(4000) } },
      externalUrlPolicy: { allowHttpLoopback: true },
    });
    expect(error).toBeUndefined();
    expect(providers?.enabled).toBe(true);
    expect(providers?.settings('x').tokenEndpoint).toBe('http://127.0.0.1:4000/token');
  });

  it('refuses an https endpoint at a private address, even with allowHttpLoopback', async () => {
    await expectStartRefused(
      {
        oauth: { providers: { x: { ...loopback(4000), tokenEndpoint: 'https://10.0.0.1/oauth/token' } } },
        externalUrlPolicy: { allowHttpLoopback: true },
      },
      'oauth.providers.x.tokenEndpoint',
      /externalUrlPolicy/,
    );
  });

  it('refuses a private issuer and names the provider it belongs to', async () => {
    await expectStartRefused(
      { oauth: { providers: { ok: { ...google }, intranet: { issuer: 'https://192.168.1.20/realms/main', clientId: 'c', scopes: [] } } } },
      'oauth.providers.intranet.issuer',
      /externalUrlPolicy/,
    );
  });

  it('refuses an optional endpoint too (userinfoEndpoint at a link-local address)', async () => {
    await expectStartRefused(
      { oauth: { providers: { gh: { ...github, userinfoEndpoint: 'https://169.254.169.254/latest/meta-data' } } } },
      'oauth.providers.gh.userinfoEndpoint',
      /externalUrlPolicy/,
    );
  });

  it('refuses a host outside allowedHosts', async () => {
    await expectStartRefused(
      { oauth: { providers: { gh: github } }, externalUrlPolicy: { allowedHosts: ['accounts.google.com'] } },
      'oauth.providers.gh.authorizationEndpoint',
      /externalUrlPolicy/,
    );
  });

  it('starts with public https providers without looking their names up (a name that does not resolve yet)', async () => {
    let lookups = 0;
    const { error } = await startUp({
      oauth: { providers: { google, later: { ...google, issuer: 'https://idp.not-yet-registered.invalid' } } },
      externalUrlPolicy: {
        resolveHost: () => {
          lookups += 1;
          return Promise.reject(new Error('no DNS at start-up'));
        },
      },
    });
    expect(error).toBeUndefined();
    expect(lookups).toBe(0);
  });

  it('fails on a bad option shape while compiling, before any URL check', async () => {
    await expectStartRefused(
      { oauth: { providers: { x: { ...github, scopes: ['a b'] } } } },
      'oauth.providers.x.scopes',
      /no spaces/,
      'compile',
    );
  });

  it('starts without oauth, and OAuthProviders is disabled', async () => {
    const { error, providers } = await startUp({});
    expect(error).toBeUndefined();
    expect(providers?.enabled).toBe(false);
  });
});
