/**
 * Notifications delivered from the store's outbox by demo instances in separate OS processes, on Redis and on
 * PostgreSQL, to a signed-webhook receiver on loopback (e2e/support/webhook-receiver.ts). Each instance posts to a
 * path of its own on the receiver, so a post says which instance sent it.
 * - Killed mid-delivery: B paused (SIGSTOP), questions created through A, whose posts the receiver holds; A killed
 *   (SIGKILL) while it holds their claims; B resumed, more questions created through B. B delivers every notice (A's
 *   claimed ones once their leases end): none lost, every signature valid, a duplicate only under its notice's
 *   idempotency key.
 * - Reminders on two live instances: each reminder (and each notice) arrives exactly once across both.
 * - A receiver that fails three times (HTTP 500): the notice is retried with backoff and delivered once.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { startDemoProcess, type DemoProcess } from '../../examples/demo/demo-process.js';
import { connectClient } from '../support/mcp-client.js';
import { sharedStores } from '../support/shared-stores.js';
import { startWebhookReceiver, type Delivery, type WebhookReceiver } from '../support/webhook-receiver.js';

const RUN = randomUUID().slice(0, 8);
const SECRET = randomBytes(32).toString('hex');
/**
 * The instances' outbox timings: a look every 200 ms, claims held 8 s, 7 s per send (long enough that A, its posts
 * held, is still waiting on its first ones when it is killed, even on a loaded machine), retries from 200 ms.
 */
const POLL_MS = 200;
const LEASE_MS = 8_000;
const SEND_TIMEOUT_MS = 7_000;
/** The kill pair's `outbox.createdDelayMs` (its look every second). */
const CREATED_DELAY_MS = 1_500;
const OUTBOX_ENV = {
  ELICITATION_WEBHOOK_SECRET: SECRET,
  ELICITATION_OUTBOX_POLL_MS: String(POLL_MS),
  ELICITATION_OUTBOX_LEASE_MS: String(LEASE_MS),
  ELICITATION_OUTBOX_SEND_TIMEOUT_MS: String(SEND_TIMEOUT_MS),
  ELICITATION_OUTBOX_RETRY_MS: '200',
};
/** The reminder pair's question lifetime and reminders (6 s and 3 s before expiry). */
const TTL_MS = 10_000;
const REMINDERS_MS = [6_000, 3_000];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `check` holds (polled every 50 ms), or fails after `ms` with `what()`. */
async function until(check: () => boolean, ms: number, what: () => string): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what()}`);
    await sleep(50);
  }
}

/**
 * Questions asked on `instance` (the demo's connect-service, through MCP), one per user and service: every client
 * connected first, then every call at once, so that the questions are created within milliseconds of each other.
 */
async function askAll(instance: DemoProcess, asks: Array<[user: string, service: string]>): Promise<Array<{ id: string; user: string }>> {
  const clients = await Promise.all(asks.map(([user]) => connectClient(instance.mcpUrl, { user })));
  try {
    const errors = await Promise.all(
      asks.map(([, service], i) =>
        clients[i].client.callTool({ name: 'connect-service', arguments: { service } }).then(
          () => undefined,
          (e: unknown) => e,
        ),
      ),
    );
    return errors.map((error, i) => {
      expect(error).toBeInstanceOf(UrlElicitationRequiredError);
      return { id: (error as UrlElicitationRequiredError).elicitations[0].elicitationId, user: asks[i][0] };
    });
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  }
}

/** What every post must be: signed, keyed by its notice's id, about a question of `asked`, for its user's contact. */
function expectWellFormed(deliveries: Delivery[], asked: Array<{ id: string; user: string }>): void {
  const users = new Map(asked.map((q) => [q.id, q.user]));
  for (const d of deliveries) {
    expect(d.valid).toBe(true);
    expect(d.key).toBe(d.body.id);
    expect(d.body.type).toBe(`elicitation.${d.body.data.event}`);
    const user = users.get(d.body.data.elicitationId);
    expect(user).toBeDefined();
    expect(d.body.data).toMatchObject({ userId: user, contact: { email: `${user}@example.com` } });
    if (d.body.data.event !== 'expired') expect(d.body.data.url).toContain(`/elicit/${d.body.data.elicitationId}/`);
  }
}

/** The posts of each notice (by idempotency key), and the keys each (elicitation, event, lead) got. */
function byNotice(deliveries: Delivery[]): { posts: Map<string, Delivery[]>; keys: Map<string, Set<string>> } {
  const posts = new Map<string, Delivery[]>();
  const keys = new Map<string, Set<string>>();
  for (const d of deliveries) {
    posts.set(d.key!, [...(posts.get(d.key!) ?? []), d]);
    const what = `${d.body.data.elicitationId} ${d.body.data.event} ${d.body.data.beforeExpiryMs ?? ''}`;
    keys.set(what, (keys.get(what) ?? new Set()).add(d.key!));
  }
  return { posts, keys };
}

const KILL = sharedStores('notify-kill', RUN);
const LIVE = sharedStores('notify-live', RUN);

describe.each(Object.keys(KILL) as Array<keyof typeof KILL>)('notifications from the outbox of two instances sharing one %s', (name) => {
  KILL[name].describe(`on ${name}`, () => {
    let receiver: WebhookReceiver;
    const processes: DemoProcess[] = [];
    /** Two instances with `env` (a store's, over OUTBOX_ENV), each posting to `<receiver>/<its name>`, one encryption key. */
    const startPair = async (env: Record<string, string>, names: [string, string]) => {
      const key = randomBytes(32).toString('base64');
      const start = (path: string) =>
        startDemoProcess({
          ...OUTBOX_ENV,
          ...env,
          ELICITATION_ENCRYPTION_KEY: key,
          ELICITATION_WEBHOOK_URL: `${receiver.url}/${path}`,
        }).then((p) => (processes.push(p), p));
      return Promise.all(names.map(start)) as Promise<[DemoProcess, DemoProcess]>;
    };

    beforeAll(async () => {
      receiver = await startWebhookReceiver(SECRET);
    });

    afterAll(async () => {
      for (const p of processes) p.child.kill('SIGCONT');
      await Promise.all(processes.map((p) => p.stop()));
      await receiver?.close();
      await Promise.all([KILL[name].cleanUp(), LIVE[name].cleanUp()]);
    }, 30_000);

    describe('one instance killed mid-delivery', () => {
      let a: DemoProcess;
      let b: DemoProcess;
      beforeAll(async () => {
        // Each question's `created` notice due 1.5 s after it, a look each second: those asked together (within
        // some 100 ms of each other) are mostly claimed in one batch.
        const env = {
          ...KILL[name].env,
          ELICITATION_OUTBOX_CREATED_DELAY_MS: String(CREATED_DELAY_MS),
          ELICITATION_OUTBOX_POLL_MS: '1000',
        };
        [a, b] = await startPair(env, ['a', 'b']);
      }, 60_000);

      it('the other delivers every notice once the dead one’s leases end: none lost, duplicates only under the same key', async () => {
        const K = 6;
        // A's posts are held, never answered (A is mid-delivery until it dies); B's are answered at once.
        receiver.answer = (d) => (d.path === '/a' ? { status: 200, holdMs: 60_000 } : { status: 200 });
        // B paused, so that only A claims the notices of the questions asked through it.
        b.child.kill('SIGSTOP');
        const throughA = await askAll(
          a,
          Array.from({ length: K }, (_, i) => [`kill-a${i}`, `svc-a${i}`]),
        );
        // A claims in batches and sends a batch's notices before it claims again: it is killed once it has held a
        // batch for a second (all K when their notices fell due together, as the delay makes likely).
        const heldByA = () => receiver.deliveries.filter((d) => d.path === '/a').length;
        let quietSince = { count: 0, at: Date.now() };
        await until(
          () => {
            if (heldByA() !== quietSince.count) quietSince = { count: heldByA(), at: Date.now() };
            return heldByA() === K || (heldByA() > 0 && Date.now() - quietSince.at >= 1_000);
          },
          CREATED_DELAY_MS + 10_000,
          () => `A posted ${heldByA()} of ${K}:\n${a.output().slice(-2_000)}`,
        );
        const firstPost = receiver.deliveries[0].at;
        await a.stop('SIGKILL');
        const killedAfter = Date.now() - firstPost;
        expect(killedAfter).toBeLessThan(SEND_TIMEOUT_MS);
        const postedByA = receiver.deliveries.filter((d) => d.path === '/a');
        b.child.kill('SIGCONT');
        const throughB = await askAll(b, [
          ['kill-b0', 'svc-b0'],
          ['kill-b1', 'svc-b1'],
        ]);
        const asked = [...throughA, ...throughB];

        const deliveredFor = (id: string) => receiver.deliveries.some((d) => d.body.data.elicitationId === id && d.status === 200);
        await until(
          () => asked.every((q) => deliveredFor(q.id)),
          LEASE_MS + 15_000,
          () => `delivered ${asked.filter((q) => deliveredFor(q.id)).length} of ${asked.length}:\n${b.output().slice(-2_000)}`,
        );
        // B settled them: nothing more arrives.
        await sleep(1_500);

        const all = receiver.deliveries;
        expectWellFormed(all, asked);
        expect(all.every((d) => d.body.type === 'elicitation.created')).toBe(true);
        const { posts, keys } = byNotice(all);
        // One key per notice, whoever sent it; every notice delivered (answered 200) by B, exactly once.
        expect([...keys.values()].every((set) => set.size === 1)).toBe(true);
        expect(keys.size).toBe(asked.length);
        for (const [key, sent] of posts) {
          expect(key).toMatch(/^ntc_[A-Za-z0-9_-]+$/);
          const fromB = sent.filter((d) => d.path === '/b');
          expect(fromB.map((d) => d.status)).toEqual([200]);
          // B took a claim of A's over only once its lease ended (A's first post followed its claim).
          const fromA = sent.find((d) => d.path === '/a');
          if (fromA) expect(fromB[0].at - fromA.at).toBeGreaterThanOrEqual(LEASE_MS - 1_000);
        }
        // A held claims when it died (posted, never answered, never settled), each for a question asked through it,
        // once: it was killed well within its send timeout.
        const aIds = postedByA.map((d) => d.body.data.elicitationId);
        expect(aIds.length).toBeGreaterThan(0);
        expect(new Set(aIds).size).toBe(aIds.length);
        expect(aIds.every((id) => throughA.some((q) => q.id === id))).toBe(true);
        expect(postedByA.every((d) => d.status === undefined)).toBe(true);
        // The duplicates: exactly A's posts, each under its notice's key.
        expect(all.length - posts.size).toBe(postedByA.length);
        console.info(
          `${name}: ${asked.length} notices, ${all.length} posts (${postedByA.length} by A, killed ${killedAfter} ms after ` +
            `its first post, ${all.length - postedByA.length} by B), ${all.length - posts.size} duplicates, each under its notice's key`,
        );
      }, 60_000);
    });

    describe('reminders and retries on two live instances', () => {
      let c: DemoProcess;
      let d: DemoProcess;
      beforeAll(async () => {
        const env = { ...LIVE[name].env, ELICITATION_TTL_MS: String(TTL_MS), ELICITATION_REMINDER_MS: REMINDERS_MS.join(',') };
        [c, d] = await startPair(env, ['c', 'd']);
      }, 60_000);

      it('delivers a notice whose receiver failed three times (HTTP 500) once, after retries with backoff', async () => {
        receiver.deliveries.length = 0;
        receiver.answer = (delivery, seen) =>
          delivery.body.data.message.includes('flaky') && delivery.body.data.event === 'created' && seen < 3
            ? { status: 500 }
            : { status: 200 };
        const [asked] = await askAll(c, [['retry-user', 'flaky']]);
        const created = () => receiver.deliveries.filter((x) => x.body.data.elicitationId === asked.id && x.body.data.event === 'created');
        await until(
          () => created().some((x) => x.status === 200),
          15_000,
          () =>
            `posts so far: ${created()
              .map((x) => `${x.path} ${x.status}`)
              .join(', ')}`,
        );
        await sleep(1_500);
        const posts = created();
        expectWellFormed(posts, [asked]);
        expect(posts.map((x) => x.status)).toEqual([500, 500, 500, 200]);
        expect(new Set(posts.map((x) => x.key)).size).toBe(1);
        // Backoff: each retry waited longer than the look interval (the first 200 ms ± 20 %, then doubled).
        for (let i = 1; i < posts.length; i++) expect(posts[i].at - posts[i - 1].at).toBeGreaterThanOrEqual(150);
      }, 30_000);

      it('sends each reminder, and every other notice, exactly once across both instances', async () => {
        receiver.answer = () => ({ status: 200 });
        const asked = (
          await Promise.all([
            askAll(c, [
              ['remind-c0', 'svc-c0'],
              ['remind-c1', 'svc-c1'],
            ]),
            askAll(d, [
              ['remind-d0', 'svc-d0'],
              ['remind-d1', 'svc-d1'],
            ]),
          ])
        ).flat();
        const ids = new Set(asked.map((q) => q.id));
        const mine = () => receiver.deliveries.filter((x) => ids.has(x.body.data.elicitationId));
        // Per question: created, two reminders, expired (the expired one a second after the expiry).
        const expected = asked.length * (2 + REMINDERS_MS.length);
        await until(
          () => mine().filter((x) => x.status === 200).length >= expected,
          TTL_MS + 15_000,
          () => {
            const got = (id: string) =>
              mine()
                .filter((x) => x.body.data.elicitationId === id)
                .map((x) => `${x.body.data.event}${x.body.data.beforeExpiryMs ? ` ${x.body.data.beforeExpiryMs}` : ''} ${x.status}`);
            const each = asked.map((q) => `${q.user}: ${got(q.id).join(', ')}`).join('\n');
            return `${mine().length} of ${expected} posts:\n${each}\n${c.output().slice(-1_500)}\n${d.output().slice(-1_500)}`;
          },
        );
        await sleep(1_500);

        const all = mine();
        expectWellFormed(all, asked);
        expect(all.every((x) => x.status === 200)).toBe(true);
        const { posts, keys } = byNotice(all);
        expect(posts.size).toBe(expected);
        expect([...posts.values()].every((sent) => sent.length === 1)).toBe(true);
        expect([...keys.values()].every((set) => set.size === 1)).toBe(true);
        for (const q of asked) {
          const got = all.filter((x) => x.body.data.elicitationId === q.id);
          expect(got.map((x) => `${x.body.data.event} ${x.body.data.beforeExpiryMs ?? ''}`.trim()).sort()).toEqual(
            ['created', 'expired', ...REMINDERS_MS.map((ms) => `reminder ${ms}`)].sort(),
          );
          for (const x of got.filter((y) => y.body.data.event === 'reminder')) {
            // Not before it was due: `beforeExpiryMs` ahead of the expiry.
            expect(x.at).toBeGreaterThanOrEqual(Date.parse(x.body.data.expiresAt) - x.body.data.beforeExpiryMs! - 50);
            expect(x.body.data.escalated).toBeUndefined();
          }
          const expired = got.find((y) => y.body.data.event === 'expired')!;
          expect(expired.body.data.url).toBeUndefined();
          expect(expired.at).toBeGreaterThanOrEqual(Date.parse(expired.body.data.expiresAt));
        }
        console.info(
          `${name}: ${all.length} posts for ${asked.length} questions, ${posts.size} notices, none twice ` +
            `(${all.filter((x) => x.path === '/c').length} from C, ${all.filter((x) => x.path === '/d').length} from D)`,
        );
      }, 45_000);
    });
  });
});
