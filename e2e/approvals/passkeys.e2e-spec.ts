/**
 * Proof that a person decided (#45): the demo's `transfer-funds` needs one approval of bob or carol, signed with a
 * passkey bound to the recipient and the amount. Two demo instances on `localhost` (browsers make passkeys for a domain
 * name only) share Redis, then PostgreSQL; Chromium runs each person's ceremonies with a virtual authenticator (the
 * DevTools protocol's WebAuthn domain). carol, who has no passkey, is sent to add one and brought back; bob adds his on
 * instance A and approves on instance B; the task completes once. Refused, each with its page and nothing approved: a
 * replayed assertion, a signature over another amount's challenge, carol's credential in bob's browser, a post without
 * a signature. An auditor with only the store and the key (a third module in this process) verifies the receipt, finds
 * a changed one invalid, and checks the chained audit export, which names the line that was changed.
 *
 * Needs /usr/bin/chromium; without it the suite is skipped unless REQUIRE_CHROMIUM=1.
 */
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { decisionChallenge, ElicitationModule, ElicitationService, verifyAuditChain, type PasskeyReceipt } from '../../src/index.js';
import { actionHash } from '../../src/lifecycle/approval-plan.js';
import { RedisElicitationStore } from '../../src/redis/index.js';
import { PostgresElicitationStore } from '../../src/postgres/index.js';
import type { DemoProcess } from '../../examples/demo/demo-process.js';
import { describeViolations, runAxe } from '../support/a11y.js';
import { callTask, waitForTask } from '../support/mcp-tasks-client.js';
import { chromiumWanted, launchChromium } from '../support/page-browser.js';
import { describeTwoInstances, type TwoInstances } from '../support/two-instances.js';

interface Person {
  page: Page;
  cdp: CDPSession;
  authenticator: string;
}

/** The instance's public origin (its `PUBLIC_URL`, on localhost). */
const publicUrl = (instance: DemoProcess) => `http://localhost:${instance.port}`;

async function inboxPage(instance: DemoProcess, user: string, message: string): Promise<string> {
  const res = await fetch(`${instance.url}/elicit/inbox`, { headers: { Accept: 'application/json', Cookie: `demo_user=${user}` } });
  const { questions } = (await res.json()) as { questions: Array<{ kind: string; message: string; url: string }> };
  const mine = questions.filter((q) => q.kind === 'confirm' && q.message === message);
  expect(mine).toHaveLength(1);
  return mine[0].url;
}

/** A credential as JSON, made in the page by the person's authenticator over `challenge` (a test's own ceremony). */
function signInPage(page: Page, challenge: string, allow: string[]): Promise<string> {
  return page.evaluate(
    async ({ challenge, allow }) => {
      const bytes = (s: string) => Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
      const text = (b: ArrayBuffer) =>
        btoa(String.fromCharCode(...new Uint8Array(b)))
          .replace(/\+/g, '-')
          .replace(/\//g, '_')
          .replace(/=+$/, '');
      const credential = (await navigator.credentials.get({
        publicKey: {
          challenge: bytes(challenge),
          rpId: 'localhost',
          allowCredentials: allow.map((id) => ({ type: 'public-key' as const, id: bytes(id) })),
          userVerification: 'required',
        },
      })) as PublicKeyCredential;
      const r = credential.response as AuthenticatorAssertionResponse;
      return JSON.stringify({
        id: credential.id,
        rawId: text(credential.rawId),
        type: 'public-key',
        clientExtensionResults: {},
        response: { clientDataJSON: text(r.clientDataJSON), authenticatorData: text(r.authenticatorData), signature: text(r.signature) },
      });
    },
    { challenge, allow },
  );
}

/** Posts the confirm page open in `page` with `passkey` as its signature; resolves the answer's status and text. */
async function postSigned(page: Page, passkey: string): Promise<{ status: number; text: string }> {
  await page.locator('input[name="passkey"]').evaluate((input, value) => ((input as HTMLInputElement).value = value), passkey);
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST'),
    page.getByRole('button', { name: 'Approve' }).click(),
  ]);
  await page.waitForLoadState();
  return { status: response.status(), text: await page.locator('main').innerText() };
}

describeTwoInstances(
  'passkey approvals',
  'passkeys',
  (instances: TwoInstances) => {
    let browser: Browser | undefined;
    let auditor: INestApplicationContext | undefined;
    const people: Person[] = [];

    beforeAll(async () => {
      if (chromiumWanted()) browser = await launchChromium();
    }, 30_000);
    afterAll(async () => {
      for (const p of people)
        await p.page
          .context()
          .close()
          .catch(() => undefined);
      await browser?.close();
      await auditor?.close();
    });

    /** `user` in Chromium, signed in on both instances, with a virtual authenticator of their own. */
    async function person(user: string): Promise<Person> {
      const context = await browser!.newContext({ viewport: { width: 800, height: 900 }, locale: 'en' });
      await context.addCookies([{ name: 'demo_user', value: user, domain: 'localhost', path: '/' }]);
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send('WebAuthn.enable', { enableUI: false });
      const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: {
          protocol: 'ctap2',
          transport: 'internal',
          hasResidentKey: true,
          hasUserVerification: true,
          isUserVerified: true,
          automaticPresenceSimulation: true,
        },
      });
      const p = { page, cdp, authenticator: authenticatorId };
      people.push(p);
      return p;
    }

    /** Adds a passkey on `instance`'s passkey page (optionally reached from a confirm page); resolves its id. */
    async function register(p: Person, name: string): Promise<string> {
      await p.page.getByLabel('Name (optional)').fill(name);
      await Promise.all([
        p.page.waitForResponse((r) => r.request().method() === 'POST'),
        p.page.getByRole('button', { name: 'Add a passkey' }).click(),
      ]);
      await p.page.waitForLoadState();
      const { credentials } = await p.cdp.send('WebAuthn.getCredentials', { authenticatorId: p.authenticator });
      expect(credentials).toHaveLength(1);
      return Buffer.from(credentials[0].credentialId, 'base64').toString('base64url');
    }

    /** alice calls transfer-funds as a task on A; resolves her client, the task and the approval's message. */
    async function transfer(to: string, amount: number) {
      const c = await instances.client(instances.a, 'alice');
      const taskId = String((await callTask(c, 'transfer-funds', { to, amount })).taskId);
      await waitForTask(c, taskId, (t) => t.status === 'input_required');
      return { c, taskId, message: `Transfer ${amount} to ${to}?` };
    }

    it('a person without a passkey adds one and comes back; another approves with theirs on another instance', async () => {
      const bob = await person('bob');
      await bob.page.goto(`${publicUrl(instances.a)}/elicit/passkeys`);
      expect(await bob.page.locator('main').innerText()).toContain('You have no passkey yet.');
      await register(bob, 'bob laptop');
      expect(await bob.page.locator('main').innerText()).toMatch(/Your passkey was added[\s\S]*bob laptop/);
      expect(describeViolations(await runAxe(bob.page))).toEqual([]);

      const first = await transfer('acme', 100);
      // carol has no passkey: her page says so, offers no Approve, and links to the passkey page, which brings her back.
      const carol = await person('carol');
      const carolPage = await inboxPage(instances.b, 'carol', first.message);
      await carol.page.goto(carolPage);
      expect(await carol.page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
      expect(describeViolations(await runAxe(carol.page))).toEqual([]);
      // Her confirmation posted anyway (no script, no signature): refused, she is told to add a passkey.
      const carolForm = Object.fromEntries(
        await carol.page
          .locator('form:not(.extend) input[type="hidden"]')
          .evaluateAll((inputs) => inputs.map((i) => [(i as HTMLInputElement).name, (i as HTMLInputElement).value])),
      ) as Record<string, string>;
      const unsigned = await carol.page.request.post(carolPage, { form: { ...carolForm, action: 'confirm' }, maxRedirects: 0 });
      expect(unsigned.status()).toBe(403);
      expect(await unsigned.text()).toContain('You have no passkey yet. Add one, then approve again.');
      await carol.page.getByRole('link', { name: 'Add a passkey' }).click();
      await carol.page.waitForURL(/\/elicit\/passkeys\?returnTo=/);
      await register(carol, 'carol phone');
      await carol.page.waitForURL(carolPage, { timeout: 5_000 }).catch(async () => {
        throw new Error(`carol was not brought back: ${await carol.page.locator('main').innerText()}`);
      });
      expect(await carol.page.getByRole('button', { name: 'Approve' }).count()).toBe(1);

      // bob approves on B, where his passkey (added on A) comes from the shared store.
      const bobPage = await inboxPage(instances.b, 'bob', first.message);
      await bob.page.goto(bobPage);
      expect(await bob.page.locator('main').innerText()).toContain('approving signs exactly what is shown above');
      expect(describeViolations(await runAxe(bob.page))).toEqual([]);
      const posted: string[] = [];
      bob.page.on('request', (r) => r.method() === 'POST' && posted.push(r.postData() ?? ''));
      await Promise.all([
        bob.page.waitForResponse((r) => r.request().method() === 'POST'),
        bob.page.getByRole('button', { name: 'Approve' }).click(),
      ]);
      await bob.page.waitForLoadState();
      expect(await bob.page.locator('h1').innerText()).toBe('Done');
      const done = await waitForTask(first.c, first.taskId, (t) => t.status === 'completed');
      expect(JSON.stringify(done.result)).toMatch(/Transferred 100 to acme: approved with a passkey by bob/);
      const assertion = new URLSearchParams(posted.at(-1)).get('passkey')!;
      expect(JSON.parse(assertion)).toMatchObject({ response: { signature: expect.any(String) } });

      // A replayed assertion: bob's signature of the first approval, posted on the page of a second one.
      const second = await transfer('acme', 100);
      const secondPage = await inboxPage(instances.b, 'bob', second.message);
      await bob.page.goto(secondPage);
      const replay = await postSigned(bob.page, assertion);
      expect(replay.status).toBe(403);
      expect(replay.text).toContain('This signature was made for another request or other arguments. Nothing was approved.');

      // A signature over the challenge of other arguments (amount 1) on this page: refused.
      const pageId = secondPage.match(/\/elicit\/([0-9a-f-]{36})\/confirm$/)![1];
      const otherHash = actionHash({ tool: 'transfer-funds', args: { to: 'acme', amount: 1 } });
      const bobKeys = (await bob.cdp.send('WebAuthn.getCredentials', { authenticatorId: bob.authenticator })).credentials;
      const bobId = Buffer.from(bobKeys[0].credentialId, 'base64').toString('base64url');
      const other = await signInPage(bob.page, decisionChallenge({ elicitationId: pageId, actionHash: otherHash, decision: 'confirm' }), [
        bobId,
      ]);
      const changed = await postSigned(bob.page, other);
      expect(changed.status).toBe(403);
      expect(changed.text).toContain('made for another request or other arguments');

      // carol's credential in bob's browser, over this page's very challenge: not bob's passkey.
      const [carolKey] = (await carol.cdp.send('WebAuthn.getCredentials', { authenticatorId: carol.authenticator })).credentials;
      await bob.cdp.send('WebAuthn.addCredential', { authenticatorId: bob.authenticator, credential: carolKey });
      const carolId = Buffer.from(carolKey.credentialId, 'base64').toString('base64url');
      const options = JSON.parse((await bob.page.locator('form[data-passkey]').getAttribute('data-passkey-options'))!) as {
        challenge: string;
      };
      const foreign = await signInPage(bob.page, options.challenge, [carolId]);
      const refused = await postSigned(bob.page, foreign);
      expect(refused.status).toBe(403);
      expect(refused.text).toContain('This passkey belongs to another account.');

      // No signature at all (a post of the form without the page's script, which would sign first).
      const form = Object.fromEntries(
        await bob.page
          .locator('form[data-passkey] input[type="hidden"]')
          .evaluateAll((inputs) => inputs.map((i) => [(i as HTMLInputElement).name, (i as HTMLInputElement).value])),
      ) as Record<string, string>;
      const answer = await bob.page.request.post(secondPage, { form: { ...form, action: 'confirm' }, maxRedirects: 0 });
      const bare = { status: answer.status(), text: await answer.text() };
      expect(bare.status).toBe(400);
      expect(bare.text).toContain('No passkey signature came with your answer.');
      // Nothing of these approved the second transfer; a real signature still does.
      expect((await waitForTask(second.c, second.taskId, (t) => t.status === 'input_required')).status).toBe('input_required');
      await bob.page.goto(secondPage);
      await Promise.all([
        bob.page.waitForResponse((r) => r.request().method() === 'POST'),
        bob.page.getByRole('button', { name: 'Approve' }).click(),
      ]);
      await waitForTask(second.c, second.taskId, (t) => t.status === 'completed');

      // The auditor: only the store and the key.
      auditor = await auditorOf(instances);
      const service = auditor.get(ElicitationService);
      const jsonl = await service.exportAudit();
      expect(verifyAuditChain(jsonl)).toMatchObject({ valid: true });
      const lines = jsonl
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { event: { event: string; userId?: string; receipt?: PasskeyReceipt } });
      const signed = lines.filter((l) => l.event.event === 'approval.decided' && l.event.receipt);
      expect(signed.map((l) => l.event.userId)).toEqual(['bob', 'bob']);
      const receipt = signed[0].event.receipt!;
      expect(await service.verifyReceipt(receipt)).toMatchObject({ valid: true, userId: 'bob', decision: 'confirm' });
      expect(await service.verifyReceipt({ ...receipt, actionHash: otherHash })).toMatchObject({ valid: false });
      expect(await service.verifyReceipt({ ...receipt, userId: 'carol' })).toMatchObject({ valid: false });
      const tampered = jsonl.replace('"decision":"approved"', '"decision":"rejected"');
      const check = verifyAuditChain(tampered);
      expect(check).toMatchObject({ valid: false, reason: expect.stringContaining('was changed') });
      expect(check.valid ? 0 : check.line).toBe(jsonl.split('\n').findIndex((l) => l.includes('"decision":"approved"')) + 1);
    }, 120_000);
  },
  { host: 'localhost' },
);

/** A module of this process on the instances' store and key, as an auditor would run it: no pages, no MCP. */
async function auditorOf(instances: TwoInstances): Promise<INestApplicationContext> {
  const { env } = instances;
  const store =
    env.ELICITATION_STORE === 'redis'
      ? new RedisElicitationStore(env.REDIS_URL, { keyPrefix: env.ELICITATION_REDIS_PREFIX })
      : new PostgresElicitationStore(env.DATABASE_URL, { tablePrefix: env.ELICITATION_POSTGRES_PREFIX });
  @Module({
    imports: [
      ElicitationModule.forRoot({
        baseUrl: publicUrl(instances.a),
        store,
        encryptionKey: env.ELICITATION_ENCRYPTION_KEY,
        resolvePageUser: () => undefined,
        passkeys: { origins: [publicUrl(instances.a), publicUrl(instances.b)] },
      }),
    ],
  })
  class AuditorModule {}
  return NestFactory.createApplicationContext(AuditorModule, { logger: false });
}
