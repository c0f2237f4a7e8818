/**
 * The OAuth token vault end to end: two demo app instances (in this process) on one real Redis (same key ring,
 * same prefix), one real `oidc-provider` on its own loopback port shared by both (short access tokens: 2 s,
 * while the module refreshes 60 s before expiry, so every later `ElicitationOAuth.getToken` refreshes), accounts connected
 * in a real Chromium through the module's `oauth` page and the provider's own login and consent pages, and the
 * testing kit's MCP clients calling the demo's `connect-account` tool on both protocol eras.
 *
 * What the provider did is read from the provider itself: its token endpoint's grant counts, and the tokens it
 * saved, consumed and destroyed (its model events; opaque token values are their `jti`).
 *
 * Needs Redis at REDIS_URL and Chromium at /usr/bin/chromium: without either the tests fail, never skip.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { startDemoApp, type DemoApp } from '../../examples/demo/demo-app.js';
import { freePort } from '../../examples/demo/http-server.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { ElicitationOAuth } from '../../src/oauth/elicitation-oauth.js';
import { ElicitationOAuthError, type OAuthToken } from '../../src/index.js';
import { createElicitationTestClient, type ElicitationTestClient, type TestToolResult } from '../../src/testing/index.js';
import { deletePrefix, REDIS_URL, redisAvailable } from '../../test/support/redis.js';
import { waitUntil } from '../../test/support/redis-server.js';
import { textOf } from '../support/mcp-client.js';
import { launchOAuthConnectBrowser, type ConnectedPage, type OAuthConnectBrowser } from '../support/oauth-connect.js';
import { startTestOidcProvider, type TestOidcProvider } from '../support/oidc-test-provider.js';

const RUN = randomUUID().slice(0, 8);
const PREFIX = `e2e-oauth-${RUN}`;
const ENCRYPTION_KEY = randomBytes(32).toString('base64');
/** The provider's access token lifetime: far below the module's default `refreshBeforeMs` (60 s). */
const ACCESS_TOKEN_TTL_S = 2;
const PROVIDER = 'demo';
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
type Era = '2025-11-25' | '2026-07-28';

/** A token the provider saved (`access_token.saved` / `refresh_token.saved`): its value and account. */
interface SavedToken {
  jti: string;
  accountId?: string;
  /** When the event came (epoch ms). */
  savedAt: number;
}
/** The loose shape of the provider's token models in its events. */
type TokenModel = { jti: string; accountId?: string };

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** What `p` rejected with (undefined when it resolved). */
const rejectionOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('OAuth token vault: real provider, two instances on one Redis, Chromium', () => {
  let provider: TestOidcProvider;
  let a: DemoApp;
  let b: DemoApp;
  let serviceA: ElicitationService;
  let serviceB: ElicitationService;
  let oauthA: ElicitationOAuth;
  let oauthB: ElicitationOAuth;
  let browser: OAuthConnectBrowser;
  const apps: DemoApp[] = [];
  const clients: ElicitationTestClient[] = [];
  const saved = { access: [] as SavedToken[], refresh: [] as SavedToken[] };
  const destroyedRefresh: string[] = [];

  beforeAll(async () => {
    // Fail, never skip, without the real parts.
    if (!redisAvailable) throw new Error(`no Redis answers at ${REDIS_URL}: start one (redis-server) or set REDIS_URL`);
    browser = await launchOAuthConnectBrowser();

    // The apps' ports first: the provider must list each instance's callback as a redirect URI.
    const portA = await freePort();
    let portB = await freePort();
    while (portB === portA) portB = await freePort();
    const origins = [portA, portB].map((port) => `http://127.0.0.1:${port}`);
    provider = await startTestOidcProvider({
      redirectUris: origins.map((origin) => `${origin}/elicit/oauth/callback`),
      accessTokenTtlS: ACCESS_TOKEN_TTL_S,
    });
    const record = (list: SavedToken[]) => (token: TokenModel) =>
      list.push({ jti: token.jti, accountId: token.accountId, savedAt: Date.now() });
    const events = provider.oidc as unknown as { on(event: string, listener: (token: TokenModel) => void): void };
    events.on('access_token.saved', record(saved.access));
    events.on('refresh_token.saved', record(saved.refresh));
    events.on('refresh_token.destroyed', (token) => destroyedRefresh.push(token.jti));

    for (const port of [portA, portB]) {
      apps.push(
        await startDemoApp({
          store: 'redis',
          redisUrl: REDIS_URL,
          redisPrefix: PREFIX,
          encryptionKey: ENCRYPTION_KEY,
          port,
          oidc: { provider: provider.provider },
          logger: ['error'],
        }),
      );
    }
    [a, b] = apps;
    expect([a.url, b.url]).toEqual(origins);
    serviceA = a.app.get(ElicitationService);
    serviceB = b.app.get(ElicitationService);
    oauthA = a.app.get(ElicitationOAuth);
    oauthB = b.app.get(ElicitationOAuth);
  }, 30_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await browser?.close().catch(() => undefined);
    // Everything started is stopped even when one of them fails to stop (the first failure is reported after).
    const stopped = await Promise.allSettled(apps.map((app) => app.app.close()));
    await provider?.close();
    if (redisAvailable) {
      const redis = new Redis(REDIS_URL);
      try {
        await deletePrefix(redis, PREFIX);
      } finally {
        await redis.quit();
      }
    }
    const failed = stopped.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
  }, 30_000);

  /** The latest token of `kind` the provider saved for the account `login`. */
  const latest = (kind: 'access' | 'refresh', login: string): SavedToken => {
    const found = saved[kind].filter((t) => t.accountId === login).at(-1);
    if (!found) throw new Error(`the provider saved no ${kind} token for ${login}`);
    return found;
  };
  const refreshGrants = () => provider.grants.refresh_token ?? 0;
  const codeGrants = () => provider.grants.authorization_code ?? 0;
  const invalidGrants = () => provider.grantErrors.invalid_grant ?? 0;
  const refreshTokenAtProvider = (value: string) => provider.oidc.RefreshToken.find(value);
  const connectedText = (login: string) => `Connected account ${login} with scopes openid profile`;

  const newClient = async (app: DemoApp, user: string, era: Era) => {
    const client = await createElicitationTestClient({ url: app.mcpUrl, era, user });
    clients.push(client);
    return client;
  };

  /** A 2025-11-25 call of `connect-account` that must ask (-32042): the oauth page URL it was sent. */
  const askedPage = async (client: ElicitationTestClient, app: DemoApp): Promise<string> => {
    const before = client.urls.length;
    await expect(client.callTool('connect-account', {})).rejects.toMatchObject({ code: -32042 });
    expect(client.urls.length).toBe(before + 1);
    const url = client.lastUrl()!;
    expect(url).toMatch(new RegExp(`^${escape(app.url)}/elicit/${UUID}/oauth$`));
    return url;
  };

  /**
   * Connects `user`'s account (provider login `login`) as a person would: `connect-account` is called on `mcpOn`
   * (2025-11-25: it asks with -32042, then is called again; 2026-07-28: the call waits while the page is done),
   * the page is opened on `pageOn` (the same path on that instance's origin), and the provider sends the browser
   * back to `pageOn`'s callback. The call completes with the connected account.
   */
  const connect = async (options: {
    user: string;
    login: string;
    era?: Era;
    mcpOn?: DemoApp;
    pageOn?: DemoApp;
  }): Promise<{ client: ElicitationTestClient; pageUrl: string; page: ConnectedPage; result: TestToolResult }> => {
    const { user, login, era = '2025-11-25', mcpOn = a, pageOn = a } = options;
    const client = await newClient(mcpOn, user, era);
    let waiting: Promise<TestToolResult> | undefined;
    let pageUrl: string;
    if (era === '2025-11-25') {
      pageUrl = await askedPage(client, mcpOn);
    } else {
      waiting = client.callTool('connect-account', {}, { timeoutMs: 30_000 });
      waiting.catch(() => undefined);
      pageUrl = await client.waitForUrl(10_000);
      expect(pageUrl).toMatch(new RegExp(`^${escape(mcpOn.url)}/elicit/${UUID}/oauth$`));
    }
    const page = await browser.connect(`${pageOn.url}${new URL(pageUrl).pathname}`, user, login);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Your Demo OIDC account is connected.');
    // The provider sent the browser back to the instance the page was opened on.
    expect(new URL(page.callbackUrl).origin).toBe(pageOn.url);
    expect(new URL(page.callbackUrl).pathname).toBe('/elicit/oauth/callback');
    const result = waiting ? await waiting : await client.callTool('connect-account', {});
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe(connectedText(login));
    // No token reaches the client.
    const wire = JSON.stringify(result);
    for (const token of [latest('access', login), latest('refresh', login)]) expect(wire).not.toContain(token.jti);
    return { client, pageUrl, page, result };
  };

  it('refreshes a due access token: a new access token, one refresh grant, the refresh token rotated; the tool reuses the grant', async () => {
    const user = `refresh-${RUN}`;
    const login = `acct-${user}`;
    const refused = invalidGrants();
    const { client } = await connect({ user, login });
    const pages = client.urls.length;
    const codes = codeGrants();

    for (const oauth of [oauthA, oauthB]) {
      const refreshes = refreshGrants();
      const accessBefore = latest('access', login).jti;
      const refreshBefore = latest('refresh', login).jti;
      const started = Date.now();
      const token = await oauth.getToken(user, PROVIDER);

      expect(token).toMatchObject({ subject: login, scopes: ['openid', 'profile'] });
      expect(Object.keys(token!).sort()).toEqual(['accessToken', 'expiresAt', 'scopes', 'subject']);
      expect(token!.accessToken).not.toBe(accessBefore);
      // The one the provider issued just now, and valid there.
      expect(token!.accessToken).toBe(latest('access', login).jti);
      expect(await provider.oidc.AccessToken.find(token!.accessToken)).toMatchObject({ accountId: login });
      expect(token!.expiresAt).toBeGreaterThanOrEqual(started + (ACCESS_TOKEN_TTL_S - 1) * 1000);
      expect(token!.expiresAt).toBeLessThanOrEqual(Date.now() + ACCESS_TOKEN_TTL_S * 1000 + 1000);
      expect(refreshGrants()).toBe(refreshes + 1);
      // Rotated: the old refresh token spent at the provider, a new one issued and valid.
      const refreshAfter = latest('refresh', login).jti;
      expect(refreshAfter).not.toBe(refreshBefore);
      expect((await refreshTokenAtProvider(refreshBefore))?.consumed).toBeTruthy();
      expect((await refreshTokenAtProvider(refreshAfter))?.isValid).toBe(true);
    }

    // The tool takes the kept grant again (refreshed, as it is due): no new page, no new authorization.
    const refreshes = refreshGrants();
    const again = await client.callTool('connect-account', {});
    expect(textOf(again)).toBe(connectedText(login));
    expect(client.urls.length).toBe(pages);
    expect(codeGrants()).toBe(codes);
    expect(refreshGrants()).toBe(refreshes + 1);
    expect(invalidGrants()).toBe(refused);
  }, 45_000);

  it('forgets a grant whose refresh token the provider revoked: undefined, invalid_grant counted, the tool asks again', async () => {
    const user = `revoked-${RUN}`;
    const login = `acct-${user}`;
    const { pageUrl: firstPage } = await connect({ user, login, era: '2026-07-28' });

    const refreshToken = await refreshTokenAtProvider(latest('refresh', login).jti);
    expect(refreshToken?.isValid).toBe(true);
    await refreshToken!.destroy();

    const refused = invalidGrants();
    const refreshes = refreshGrants();
    expect(await oauthA.getToken(user, PROVIDER)).toBeUndefined();
    expect(invalidGrants()).toBe(refused + 1);
    expect(refreshGrants()).toBe(refreshes);
    // Forgotten in the shared store: the other instance has nothing to refresh either.
    expect(await oauthB.getToken(user, PROVIDER)).toBeUndefined();
    expect(invalidGrants()).toBe(refused + 1);

    // The tool asks again: a new oauth page.
    const client = await newClient(b, user, '2025-11-25');
    const newPage = await askedPage(client, b);
    expect(new URL(newPage).pathname).not.toBe(new URL(firstPage).pathname);
  }, 45_000);

  it('a refresh refused while A and B both ask: both get undefined at once (the waiter does not wait out its deadline)', async () => {
    const user = `refusedrace-${RUN}`;
    const login = `acct-${user}`;
    await connect({ user, login });
    await (await refreshTokenAtProvider(latest('refresh', login).jti))!.destroy();
    const refused = invalidGrants();
    const started = Date.now();
    const results = await Promise.all([oauthA.getToken(user, PROVIDER), oauthB.getToken(user, PROVIDER)]);
    const elapsed = Date.now() - started;
    expect(results).toEqual([undefined, undefined]);
    // One refresh tried (and refused), not one per instance.
    expect(invalidGrants()).toBe(refused + 1);
    // The waiting instance saw the grant forgotten on its next look, far sooner than its 20-second takeover deadline.
    expect(elapsed).toBeLessThan(10_000);
  }, 45_000);

  it('ElicitationOAuth.revoke revokes at the provider and forgets: true, the refresh token gone there, undefined after; false the second time', async () => {
    const user = `revoke-${RUN}`;
    const login = `acct-${user}`;
    await connect({ user, login });
    const refreshToken = latest('refresh', login).jti;
    const accessToken = latest('access', login).jti;
    expect((await refreshTokenAtProvider(refreshToken))?.isValid).toBe(true);

    expect(await oauthA.revoke(user, PROVIDER)).toBe(true);
    // The provider's revocation endpoint got the refresh token: destroyed there, with its grant's access token.
    expect(destroyedRefresh).toContain(refreshToken);
    expect(await refreshTokenAtProvider(refreshToken)).toBeUndefined();
    expect(await provider.oidc.AccessToken.find(accessToken)).toBeUndefined();

    const refreshes = refreshGrants();
    const refused = invalidGrants();
    expect(await oauthB.getToken(user, PROVIDER)).toBeUndefined();
    expect(await oauthA.getToken(user, PROVIDER)).toBeUndefined();
    // Nothing was left to refresh: the provider was not asked.
    expect(refreshGrants()).toBe(refreshes);
    expect(invalidGrants()).toBe(refused);
    expect(await oauthB.revoke(user, PROVIDER)).toBe(false);
    expect(await oauthA.revoke(user, PROVIDER)).toBe(false);
  }, 45_000);

  it('keeps the grant when the token endpoint is down at refresh: ElicitationOAuthError without a token, then works once it is back', async () => {
    const user = `down-${RUN}`;
    const login = `acct-${user}`;
    await connect({ user, login });
    const refreshToken = latest('refresh', login).jti;
    const accessToken = latest('access', login).jti;
    const refreshes = refreshGrants();
    const refused = invalidGrants();

    provider.tokenEndpointDown = true;
    try {
      for (const oauth of [oauthA, oauthB, oauthA]) {
        const error = await rejectionOf(oauth.getToken(user, PROVIDER));
        expect(error).toBeInstanceOf(ElicitationOAuthError);
        const { message, provider: name } = error as ElicitationOAuthError;
        expect(name).toBe(PROVIDER);
        expect(message).toMatch(/could not refresh/);
        for (const secret of [refreshToken, accessToken, ENCRYPTION_KEY]) expect(message).not.toContain(secret);
        expect(JSON.stringify(error)).not.toContain(refreshToken);
      }
    } finally {
      provider.tokenEndpointDown = false;
    }
    expect(refreshGrants()).toBe(refreshes);
    expect((await refreshTokenAtProvider(refreshToken))?.isValid).toBe(true);

    // Back up: the kept grant (its refresh token unspent) refreshes.
    const token = await oauthB.getToken(user, PROVIDER);
    expect(token).toMatchObject({ subject: login, scopes: ['openid', 'profile'] });
    expect(token!.accessToken).not.toBe(accessToken);
    expect(token!.accessToken).toBe(latest('access', login).jti);
    expect(refreshGrants()).toBe(refreshes + 1);
    expect(invalidGrants()).toBe(refused);
    expect((await refreshTokenAtProvider(refreshToken))?.consumed).toBeTruthy();
  }, 45_000);

  it.each<Era>(['2025-11-25', '2026-07-28'])(
    '%s: the tool is called on A, the page is opened and the provider calls back on B, and the call on A completes',
    async (era) => {
      const user = `cross-${era.slice(0, 4)}-${RUN}`;
      const login = `acct-${user}`;
      const codes = codeGrants();
      const { client, pageUrl } = await connect({ user, login, era, mcpOn: a, pageOn: b });
      expect(codeGrants()).toBe(codes + 1);
      const id = new RegExp(`/elicit/(${UUID})/oauth$`).exec(pageUrl)![1];
      // On 2025-11-25, A's session heard of the completion on B (through Redis).
      if (era === '2025-11-25') await client.completion(id, 5_000);
      for (const service of [serviceA, serviceB]) expect(await service.getStatus(id)).toMatchObject({ status: 'completed' });
      // Both instances see the grant.
      expect(await oauthA.getToken(user, PROVIDER)).toMatchObject({ subject: login });
      expect(await oauthB.getToken(user, PROVIDER)).toMatchObject({ subject: login });
    },
    45_000,
  );

  /** Connects `user` and waits until the access token the provider issued last for `login` has expired. */
  const connectAndExpire = async (user: string, login: string) => {
    await connect({ user, login });
    const expires = latest('access', login).savedAt + ACCESS_TOKEN_TTL_S * 1000 + 100;
    await waitUntil('the access token to expire', (ACCESS_TOKEN_TTL_S + 3) * 1000, () => Promise.resolve(Date.now() > expires));
  };

  it('refreshes once when A and B refresh an expired access token at the same time: one rotation, the same new token', async () => {
    const user = `race-${RUN}`;
    const login = `acct-${user}`;
    const refusedBefore = invalidGrants();
    await connectAndExpire(user, login);

    let previous = latest('access', login).jti;
    for (let round = 0; round < 3; round++) {
      const refreshes = refreshGrants();
      const refused = invalidGrants();
      const refreshBefore = latest('refresh', login).jti;
      const tokens = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? oauthA : oauthB).getToken(user, PROVIDER)));
      // Every caller, on either instance, gets the one new token: the old grant stays readable during the refresh.
      const got = tokens.filter((t): t is OAuthToken => t !== undefined);
      expect(got).toHaveLength(8);
      expect(got.every((t) => t.subject === login)).toBe(true);
      const values = new Set(got.map((t) => t.accessToken));
      expect(values.size).toBe(1);
      const [value] = values;
      expect(value).not.toBe(previous);
      expect(value).toBe(latest('access', login).jti);
      // The rotating refresh token was spent exactly once: one refresh grant, no reuse refused by the provider.
      expect(refreshGrants()).toBe(refreshes + 1);
      expect(invalidGrants()).toBe(refused);
      expect((await refreshTokenAtProvider(refreshBefore))?.consumed).toBeTruthy();
      expect((await refreshTokenAtProvider(latest('refresh', login).jti))?.isValid).toBe(true);
      previous = value;
    }
    // The grant is still kept after the races: both instances find it.
    expect(await oauthA.getToken(user, PROVIDER)).toMatchObject({ subject: login });
    expect(await oauthB.getToken(user, PROVIDER)).toMatchObject({ subject: login });
    expect(invalidGrants()).toBe(refusedBefore);
  }, 45_000);

  it('a caller that comes while another refreshes, on the same instance or the other, waits and gets the refreshed token', async () => {
    const user = `window-${RUN}`;
    const login = `acct-${user}`;
    await connect({ user, login });
    const refreshes = refreshGrants();

    // While A's refresh is at the provider's token endpoint (its refresh token being spent), A and B are asked too.
    const during: Array<Promise<OAuthToken | undefined>> = [];
    const events = provider.oidc as unknown as {
      on(event: string, listener: (token: TokenModel) => void): void;
      off(event: string, listener: (token: TokenModel) => void): void;
    };
    const alsoAsk = (token: TokenModel) => {
      if (token.accountId !== login || during.length > 0) return;
      during.push(oauthA.getToken(user, PROVIDER), oauthB.getToken(user, PROVIDER));
    };
    events.on('refresh_token.consumed', alsoAsk);
    let first: OAuthToken | undefined;
    try {
      first = await oauthA.getToken(user, PROVIDER);
    } finally {
      events.off('refresh_token.consumed', alsoAsk);
    }
    const [onA, onB] = await Promise.all(during);
    expect(first?.subject).toBe(login);
    expect(refreshGrants()).toBe(refreshes + 1);
    // Both wait for the refresh in flight and get its token (the user is connected throughout).
    expect([onA?.accessToken, onB?.accessToken]).toEqual([first!.accessToken, first!.accessToken]);
  }, 45_000);

  it('with the token endpoint down, the caller that lost the refresh race fails with ElicitationOAuthError too (never the expired token)', async () => {
    const user = `downrace-${RUN}`;
    const login = `acct-${user}`;
    await connectAndExpire(user, login);
    const expired = latest('access', login).jti;

    provider.tokenEndpointDown = true;
    let results: Array<PromiseSettledResult<OAuthToken | undefined>>;
    try {
      results = await Promise.allSettled([oauthA.getToken(user, PROVIDER), oauthB.getToken(user, PROVIDER)]);
    } finally {
      provider.tokenEndpointDown = false;
    }
    // Neither hands out the expired token; both fail as the provider could not be reached.
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value?.accessToken === expired : 'rejected'))).toEqual([
      'rejected',
      'rejected',
    ]);
    for (const r of results) expect(r.status === 'rejected' && r.reason instanceof ElicitationOAuthError).toBe(true);
  }, 45_000);
});
