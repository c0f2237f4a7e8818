/**
 * "Need more time?" (#16, Time) over real HTTP with the demo app: the page's form posts to
 * `/elicit/:id/<page>/extend` with the page's CSRF token; granted, a 303 back to the page, which shows the new
 * expiry, as does the status route; refused a second time, without a token, from another site, for another user,
 * on the wrong page. A tool waiting in `requestUrl` (2025-11-25) keeps waiting past the old expiry and completes
 * when the page is submitted after it; on two instances sharing a Redis the other one's status and its waiting tool
 * follow the extension (the `extended` event).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { Redis } from 'ioredis';
import request from 'supertest';
import { startDemoApp, type DemoApp } from '../../examples/demo/demo-app.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { ElicitationRecords } from '../../src/lifecycle/elicitation-records.js';
import type { ElicitationEvent } from '../../src/core/elicitation.types.js';
import { ElicitationEvents } from '../../src/events/elicitation-events.js';
import { PAGE_MESSAGES } from '../../src/messages/default-messages.js';
import { deletePrefix, describeRedis, REDIS_URL } from '../../test/support/redis.js';
import { connectClient, textOf, type TestClient } from '../support/mcp-client.js';
import { csrfFor, postForm, submitForm } from '../support/page-form.js';

/** The elicitations' lifetime: long enough to set a test up on a slow machine, short enough to wait out. */
const TTL_MS = 5_000;

/** Resolves `check()` once it is truthy, polling; fails after `ms`. */
async function until<T>(check: () => T | Promise<T>, ms = 15_000, what = 'condition'): Promise<NonNullable<T>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const alice = { Cookie: 'demo_user=alice' };

/** The status route's view of an elicitation on `url`. */
async function statusOf(url: string, id: string): Promise<{ status: string; expiresAt: string }> {
  const res = await request(url).get(`/elicit/${id}/status`).expect(200);
  return res.body as { status: string; expiresAt: string };
}

describe('"Need more time?" over HTTP (demo app, memory store)', () => {
  let demo: DemoApp;
  let service: ElicitationService;
  let records: ElicitationRecords;
  const events: ElicitationEvent[] = [];
  const clients: TestClient[] = [];

  beforeAll(async () => {
    demo = await startDemoApp({ port: 0, logger: false, ttlMs: TTL_MS });
    service = demo.app.get(ElicitationService);
    records = demo.app.get(ElicitationRecords);
    demo.app.get(ElicitationEvents).subscribe((e) => events.push(e));
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await demo.app.close();
  });

  /** A pending confirm elicitation of alice's and its page path. */
  async function pending(userId = 'alice') {
    const created = await service.createUrlElicitation({ kind: 'confirm', message: 'Deploy shop?', userId });
    return { id: created.elicitationId, page: new URL(created.url).pathname, expiresAt: created.expiresAt.getTime() };
  }

  it('extends once from the page: 303 back to the page, which and the status route show the new expiry; a second time is refused', async () => {
    const { id, page, expiresAt } = await pending();
    const pair = await csrfFor(demo.url, page, alice);
    const res = await postForm(demo.url, `${page}/extend`, {}, pair, alice);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(page);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text).toBe('');

    const record = (await records.read(id))!;
    const created = record.createdAt;
    // The default extendMs is the elicitation's own lifetime, which is also the cap (twice the lifetime).
    expect(record.expiresAt).toBe(expiresAt + TTL_MS);
    expect(record.expiresAt).toBe(created + 2 * TTL_MS);
    const iso = new Date(record.expiresAt).toISOString();
    expect(await statusOf(demo.url, id)).toMatchObject({ status: 'pending', expiresAt: iso });
    const again = await request(demo.url).get(page).set(alice).expect(200);
    expect(again.text).toContain(`datetime="${iso}"`);
    expect(events.filter((e) => e.type === 'extended' && e.elicitationId === id)).toEqual([
      expect.objectContaining({ expiresAt: record.expiresAt, userId: 'alice', kind: 'confirm' }),
    ]);

    const second = await postForm(demo.url, `${page}/extend`, {}, await csrfFor(demo.url, page, alice), alice);
    expect(second.status).toBe(409);
    expect(second.headers['content-type']).toMatch(/^text\/html/);
    expect(second.text).toContain(PAGE_MESSAGES.time.alreadyExtended);
    expect(second.text).toContain(`<h1 dir="auto">${PAGE_MESSAGES.headings.noMoreTime}</h1>`);
    expect((await statusOf(demo.url, id)).expiresAt).toBe(iso);
  });

  it('refuses a post without the page token, from another site, for another user and on another page, changing nothing', async () => {
    const { id, page } = await pending();
    const before = (await statusOf(demo.url, id)).expiresAt;
    const pair = await csrfFor(demo.url, page, alice);

    const forged = await request(demo.url).post(`${page}/extend`).set(alice).type('form').send({});
    expect(forged.status).toBe(403);
    const flipped = pair.token.slice(0, -1) + (pair.token.endsWith('A') ? 'B' : 'A');
    const wrongToken = await postForm(demo.url, `${page}/extend`, {}, { ...pair, token: flipped }, alice);
    expect(wrongToken.status).toBe(403);
    const crossSite = await postForm(demo.url, `${page}/extend`, {}, pair, { ...alice, 'Sec-Fetch-Site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    // Bob holds alice's form (token and cookie) but is signed in as himself.
    const bob = await postForm(demo.url, `${page}/extend`, {}, pair, { Cookie: 'demo_user=bob' });
    expect(bob.status).toBe(403);
    const nobody = await postForm(demo.url, `${page}/extend`, {}, pair);
    expect(nobody.status).toBe(401);
    // The record's own page only: another kind's path, a page of no kind, the external kind.
    for (const other of ['api-key', 'status', 'external']) {
      const wrong = await postForm(demo.url, page.replace(/confirm$/, `${other}/extend`), {}, pair, alice);
      expect([other, wrong.status]).toEqual([other, 404]);
    }
    expect((await statusOf(demo.url, id)).expiresAt).toBe(before);
    expect(events.filter((e) => e.type === 'extended' && e.elicitationId === id)).toEqual([]);

    // The same token, properly posted, still works: nothing above spent it.
    expect((await postForm(demo.url, `${page}/extend`, {}, pair, alice)).status).toBe(303);
  });

  it('refuses a finished request (409) and an expired one (410) with the pages’ usual answers', async () => {
    const done = await pending();
    const pair = await csrfFor(demo.url, done.page, alice);
    await service.decline(done.id);
    const finished = await postForm(demo.url, `${done.page}/extend`, {}, pair, alice);
    expect(finished.status).toBe(409);

    const short = await service.createUrlElicitation({ kind: 'confirm', message: 'Quick?', userId: 'alice', ttlMs: 1_000 });
    const shortPage = new URL(short.url).pathname;
    const shortPair = await csrfFor(demo.url, shortPage, alice);
    await until(() => Date.now() > short.expiresAt.getTime() + 50, 5_000, 'the short elicitation expires');
    const expired = await postForm(demo.url, `${shortPage}/extend`, {}, shortPair, alice);
    expect(expired.status).toBe(410);
    expect((await statusOf(demo.url, short.elicitationId)).status).toBe('expired');
  });

  it('a tool waiting in requestUrl (2025-11-25) keeps waiting past the old expiry and completes when the page is submitted after it', async () => {
    let url: string | undefined;
    const client = await connectClient(demo.mcpUrl, {
      user: 'alice',
      onElicit: (params: ElicitRequest['params']) => {
        if (params.mode === 'url') url = params.url;
        return Promise.resolve({ action: 'accept' });
      },
    });
    clients.push(client);
    const call = client.client.callTool({ name: 'approve-deploy', arguments: { app: 'shop' } }, undefined, { timeout: 30_000 });
    let answered = false;
    void call.then(() => (answered = true)).catch(() => undefined);
    const page = new URL(await until(() => url, 10_000, 'the URL elicitation')).pathname;
    const id = page.split('/')[2];
    const oldExpiry = Date.parse((await statusOf(demo.url, id)).expiresAt);

    expect((await postForm(demo.url, `${page}/extend`, {}, await csrfFor(demo.url, page, alice), alice)).status).toBe(303);
    await until(() => Date.now() > oldExpiry + 300, TTL_MS + 2_000, 'the old expiry passes');
    expect(answered).toBe(false);
    expect((await statusOf(demo.url, id)).status).toBe('pending');

    const submitted = await submitForm(demo.url, page, { action: 'confirm' }, alice);
    expect(submitted.status).toBe(200);
    expect(textOf(await call)).toBe('Deployed shop');
    expect(Date.now()).toBeGreaterThan(oldExpiry);
  }, 30_000);
});

describeRedis('"Need more time?" on two instances sharing one Redis', () => {
  const PREFIX = `e2e-extend-${randomUUID().slice(0, 8)}`;
  const ENCRYPTION_KEY = randomBytes(32).toString('base64');
  let a: DemoApp;
  let b: DemoApp;
  const seenByA: ElicitationEvent[] = [];
  const clients: TestClient[] = [];

  beforeAll(async () => {
    const start = () =>
      startDemoApp({
        port: 0,
        logger: false,
        ttlMs: TTL_MS,
        store: 'redis',
        redisUrl: REDIS_URL,
        redisPrefix: PREFIX,
        encryptionKey: ENCRYPTION_KEY,
      });
    a = await start();
    b = await start();
    a.app.get(ElicitationEvents).subscribe((e) => seenByA.push(e));
  }, 30_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await a?.app.close();
    await b?.app.close();
    const redis = new Redis(REDIS_URL);
    await deletePrefix(redis, PREFIX);
    await redis.quit();
  }, 30_000);

  it('extended on B: A sees the extended event and the new expiry, and the tool waiting on A follows it', async () => {
    let url: string | undefined;
    const client = await connectClient(a.mcpUrl, {
      user: 'alice',
      onElicit: (params: ElicitRequest['params']) => {
        if (params.mode === 'url') url = params.url;
        return Promise.resolve({ action: 'accept' });
      },
    });
    clients.push(client);
    const call = client.client.callTool({ name: 'approve-deploy', arguments: { app: 'api' } }, undefined, { timeout: 30_000 });
    let answered = false;
    void call.then(() => (answered = true)).catch(() => undefined);
    const page = new URL(await until(() => url, 10_000, 'the URL elicitation')).pathname;
    const id = page.split('/')[2];
    const oldExpiry = Date.parse((await statusOf(a.url, id)).expiresAt);

    // The page rendered and posted on B (the instances share the key ring, so either's token works on either).
    expect((await postForm(b.url, `${page}/extend`, {}, await csrfFor(b.url, page, alice), alice)).status).toBe(303);
    const extended = await until(
      () => seenByA.find((e) => e.type === 'extended' && e.elicitationId === id),
      5_000,
      "A hears B's extended event",
    );
    expect(extended.expiresAt).toBe(oldExpiry + TTL_MS);
    const iso = new Date(oldExpiry + TTL_MS).toISOString();
    for (const instance of [a, b]) expect(await statusOf(instance.url, id)).toMatchObject({ status: 'pending', expiresAt: iso });
    // A second extension, asked on A this time, is refused: once per elicitation across instances.
    expect((await postForm(a.url, `${page}/extend`, {}, await csrfFor(a.url, page, alice), alice)).status).toBe(409);

    await until(() => Date.now() > oldExpiry + 300, TTL_MS + 2_000, 'the old expiry passes');
    expect(answered).toBe(false);
    expect(seenByA.filter((e) => e.elicitationId === id && e.type === 'expired')).toEqual([]);

    expect((await submitForm(b.url, page, { action: 'confirm' }, alice)).status).toBe(200);
    expect(textOf(await call)).toBe('Deployed api');
  }, 40_000);
});
