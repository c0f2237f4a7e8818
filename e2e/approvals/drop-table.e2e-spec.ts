/**
 * Two people, one decision (#44): the demo's `drop-table` needs two approvals of its three users (alice, bob, carol),
 * never the requester's, on two demo instances sharing Redis and then PostgreSQL. alice calls it as a task (SDK 2.x,
 * the Tasks extension) on instance A; bob and carol, signed in in Chromium, find the approval in their inboxes on
 * different instances, read what they approve (the tool, the arguments, the fingerprint) and approve: the task
 * completes once, approved by both, with axe finding nothing on the approver's page or the requester's. alice's own
 * inbox has no page to approve with and her link to bob's page is refused; a rejection ends the call; another table
 * is another approval, which the first one's decisions never move.
 *
 * Needs /usr/bin/chromium; without it the suite is skipped unless REQUIRE_CHROMIUM=1.
 */
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { submitPage } from '../../src/testing/submit-page.js';
import { connectClient } from '../support/mcp-client.js';
import { callTask, waitForTask, type DetailedTask } from '../support/mcp-tasks-client.js';
import { describeViolations, runAxe } from '../support/a11y.js';
import { chromiumWanted, launchChromium } from '../support/page-browser.js';
import { describeTwoInstances, type TwoInstances } from '../support/two-instances.js';
import type { DemoProcess } from '../../examples/demo/demo-process.js';

interface InboxJson {
  questions: Array<{ elicitationId: string; kind: string; message: string; url: string }>;
}

const inbox = async (instance: DemoProcess, user: string): Promise<InboxJson['questions']> => {
  const res = await fetch(`${instance.url}/elicit/inbox`, { headers: { Accept: 'application/json', Cookie: `demo_user=${user}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as InboxJson).questions;
};

/** The approval page a task waits on (its URL request), and the approval's id. */
function approvalOf(waiting: DetailedTask): { url: string; id: string } {
  const [request] = Object.values(waiting.inputRequests ?? {});
  expect(request).toMatchObject({ method: 'elicitation/create', params: { mode: 'url' } });
  const url = String(request.params.url);
  return { url, id: url.match(/\/elicit\/([0-9a-f-]{36})\/approval$/)![1] };
}

/** Calls drop-table as alice on `instance`; resolves the task waiting on its approval. */
async function dropTable(instances: TwoInstances, instance: DemoProcess, table: string) {
  const c = await instances.client(instance, 'alice');
  const taskId = String((await callTask(c, 'drop-table', { table })).taskId);
  const waiting = await waitForTask(c, taskId, (t) => t.status === 'input_required');
  return { c, taskId, approval: approvalOf(waiting) };
}

/** The approver's page of the approval `id` in `user`'s inbox on `instance`. */
async function pageOf(instance: DemoProcess, user: string, id: string, message: string): Promise<string> {
  const mine = (await inbox(instance, user)).filter((q) => q.kind === 'confirm' && q.message === message);
  expect(mine).toHaveLength(1);
  expect(mine[0].url).not.toContain(id);
  return mine[0].url;
}

describeTwoInstances('approvals by two of three people', 'approvals', (instances) => {
  let browser: Browser | undefined;
  const pages: Page[] = [];

  beforeAll(async () => {
    if (chromiumWanted()) browser = await launchChromium();
  }, 30_000);
  afterAll(async () => {
    for (const p of pages)
      await p
        .context()
        .close()
        .catch(() => undefined);
    await browser?.close();
  });

  async function signedIn(instance: DemoProcess, user: string): Promise<Page> {
    const context = await browser!.newContext({ viewport: { width: 800, height: 900 }, locale: 'en' });
    await context.addCookies([{ name: 'demo_user', value: user, url: instance.url }]);
    const page = await context.newPage();
    pages.push(page);
    return page;
  }

  /** `user` approves in Chromium: their inbox on `instance`, the question's link, what is approved, then Approve. */
  async function approveInBrowser(instance: DemoProcess, user: string, message: string, table: string, hash: string): Promise<void> {
    const page = await signedIn(instance, user);
    await page.goto(`${instance.url}/elicit/inbox`);
    await Promise.all([page.waitForURL(/\/confirm$/), page.locator('li.question', { hasText: message }).locator('a.answer').click()]);
    expect(await page.locator('h1').textContent()).toBe('Your approval is requested');
    const action = (await page.locator('section.action').innerText()).replace(/\s+/g, ' ');
    expect(action).toContain('Requested by alice');
    expect(action).toContain('drop-table');
    expect(action).toContain(`table ${table}`);
    expect(action).toContain(hash);
    expect(describeViolations(await runAxe(page))).toEqual([]);
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Approve' }).click()]);
    expect(await page.locator('main').textContent()).toContain('Thank you. Your confirmation was received.');
  }

  it('completes once two approved in Chromium on two instances; the requester cannot approve her own', async () => {
    if (!browser) throw new Error('Chromium is needed (REQUIRE_CHROMIUM=1 without /usr/bin/chromium)');
    const { a, b } = instances;
    const { c, taskId, approval } = await dropTable(instances, a, 'users');
    const message = 'Drop the table users? This cannot be undone.';
    // The requester's page says where it stands; her inbox lists it, but no page to approve with.
    const mine = await inbox(b, 'alice');
    expect(mine.filter((q) => q.message === message).map((q) => q.kind)).toEqual(['approval']);
    const requester = await signedIn(b, 'alice');
    await requester.goto(`${b.url}/elicit/inbox`);
    const link = requester.locator('li.question', { hasText: message }).locator('a.answer');
    expect((await link.textContent())?.trim()).toBe('See where this approval stands');
    await Promise.all([requester.waitForURL(/\/approval$/), link.click()]);
    expect(requester.url()).toBe(approval.url.replace(a.url, b.url));
    expect((await requester.locator('.progress').textContent())?.trim()).toBe('0 of 2 approvals');
    const fingerprint = (await requester.locator('section.action code[title]').textContent())!.trim();
    expect(fingerprint).toMatch(/^[0-9a-f]{12}$/);
    expect(describeViolations(await runAxe(requester))).toEqual([]);
    // alice's own link to bob's page is refused: the page is bob's.
    const bobsPage = await pageOf(b, 'bob', approval.id, message);
    expect((await submitPage(bobsPage, { action: 'confirm' }, { cookie: 'demo_user=alice' })).status).toBe(403);

    await approveInBrowser(b, 'bob', message, 'users', fingerprint);
    const status = (await (await fetch(`${a.url}/elicit/${approval.id}/status`, { headers: { Cookie: 'demo_user=alice' } })).json()) as {
      approvals?: { approved: number; required: number };
    };
    expect(status.approvals).toEqual({ approved: 1, required: 2 });
    expect(JSON.stringify(status)).not.toContain('bob');
    await approveInBrowser(a, 'carol', message, 'users', fingerprint);

    const done = await waitForTask(c, taskId, (t) => t.status === 'completed', 15_000);
    expect(done.result?.content[0]?.text).toBe(`Dropped users: approved by bob and carol (fingerprint ${fingerprint})`);
    // Nothing left open for anyone.
    for (const user of ['alice', 'bob', 'carol']) expect((await inbox(a, user)).filter((q) => q.message === message)).toEqual([]);
  }, 90_000);

  it('a rejection ends it; another table is another approval, which the first one’s decisions never move', async () => {
    const { a, b } = instances;
    const orders = await dropTable(instances, a, 'orders');
    const invoices = await dropTable(instances, b, 'invoices');
    expect(invoices.approval.id).not.toBe(orders.approval.id);
    const ordersMessage = 'Drop the table orders? This cannot be undone.';
    const carolsPage = await pageOf(a, 'carol', orders.approval.id, ordersMessage);
    expect((await submitPage(carolsPage, { action: 'cancel' }, { cookie: 'demo_user=carol' })).status).toBe(200);
    const rejected = await waitForTask(orders.c, orders.taskId, (t) => t.status === 'completed', 15_000);
    expect(rejected.result?.content[0]?.text).toBe('Not dropped: the approval was rejected');
    // bob's page of the rejected approval is closed; the other table's approval still waits for its own approvers.
    expect((await inbox(b, 'bob')).filter((q) => q.message === ordersMessage)).toEqual([]);
    const invoicesMessage = 'Drop the table invoices? This cannot be undone.';
    expect((await inbox(b, 'bob')).filter((q) => q.message === invoicesMessage)).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 500));
    expect((await waitForTask(invoices.c, invoices.taskId, () => true)).status).toBe('input_required');
  }, 60_000);

  it('on 2025-11-25 (SDK 1.x) the call waits on the approval page and returns once two approved', async () => {
    const { a, b } = instances;
    const asked: string[] = [];
    const c = await connectClient(a.mcpUrl, {
      user: 'alice',
      onElicit: (req) => (asked.push(String(req.mode === 'url' ? req.url : req.mode)), Promise.resolve({ action: 'accept' })),
    });
    try {
      const call = c.client.callTool({ name: 'drop-table', arguments: { table: 'logs' } });
      const message = 'Drop the table logs? This cannot be undone.';
      // The approvers' pages are made first, then the requester's client is asked: wait for both.
      let bobs: string | undefined;
      for (let i = 0; i < 200 && !(bobs && asked.length > 0); i++) {
        bobs ??= (await inbox(b, 'bob')).find((q) => q.message === message)?.url;
        if (!(bobs && asked.length > 0)) await new Promise((r) => setTimeout(r, 50));
      }
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatch(/\/elicit\/[0-9a-f-]{36}\/approval$/);
      expect((await submitPage(bobs!, { action: 'confirm' }, { cookie: 'demo_user=bob' })).status).toBe(200);
      const carols = (await inbox(a, 'carol')).find((q) => q.message === message)!.url;
      expect((await submitPage(carols, { action: 'confirm' }, { cookie: 'demo_user=carol' })).status).toBe(200);
      const result = (await call) as { content: Array<{ text: string }> };
      expect(result.content[0].text).toMatch(/^Dropped logs: approved by bob and carol \(fingerprint [0-9a-f]{12}\)$/);
    } finally {
      await c.close();
    }
  }, 60_000);

  it('on 2026-07-28 without tasks: input_required saying where it stands, then the result on the retry once decided', async () => {
    const { a, b } = instances;
    const c = await instances.client(a, 'alice', { tasks: false });
    const first = await c.callRaw('drop-table', { table: 'audit' });
    expect(first.resultType).toBe('input_required');
    const [request] = Object.values(first.inputRequests ?? {});
    expect(request.params.message).toBe('Drop the table audit? This cannot be undone.\n\n0 of 2 approvals: waiting for bob or carol');
    const message = 'Drop the table audit? This cannot be undone.';
    const bobs = (await inbox(b, 'bob')).find((q) => q.message === message)!.url;
    expect((await submitPage(bobs, { action: 'confirm' }, { cookie: 'demo_user=bob' })).status).toBe(200);
    const carols = (await inbox(a, 'carol')).find((q) => q.message === message)!.url;
    expect((await submitPage(carols, { action: 'confirm' }, { cookie: 'demo_user=carol' })).status).toBe(200);
    // The retry (the client opened the page) finds the approval decided.
    const [key] = Object.keys(first.inputRequests ?? {});
    const done = await c.callRaw(
      'drop-table',
      { table: 'audit' },
      { requestState: first.requestState, inputResponses: { [key]: { action: 'accept' } } },
    );
    expect(JSON.stringify(done.content)).toMatch(/Dropped audit: approved by bob and carol \(fingerprint [0-9a-f]{12}\)/);
  }, 60_000);
});
