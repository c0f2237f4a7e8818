/**
 * The inbox (#43) in a real browser (Debian Chromium via playwright-core), on the demo app (its cookie identity):
 * axe-core's WCAG 2.2 A/AA rules find nothing in English, German, Arabic and dark mode, with questions, empty, on a
 * later page and after the list updated itself; on a 360 px phone nothing scrolls sideways and every link is 44 px
 * high; the keyboard alone reaches the bar's link, each question's link and the next page's, in order; the list updates
 * without a reload when a question is created for the user and when one is answered (said in a polite live region, the
 * focused link keeping its focus, another user's questions never shown); and with JavaScript off the list renders and
 * the page reloads itself.
 *
 * Needs /usr/bin/chromium; without it the suite is skipped unless REQUIRE_CHROMIUM=1.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { startDemoApp, type DemoApp } from '../../examples/demo/demo-app.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { describeViolations, focusState, layoutProblems, runAxe } from '../support/a11y.js';
import { browserDescribe, launchChromium } from '../support/page-browser.js';

const suite = browserDescribe('the inbox browser tests');

const PHONE = { width: 360, height: 740 };
/** Time for the page's poll (every 5 s) to see a change, with room to spare. */
const POLL_WAIT_MS = 15_000;

suite('the inbox in Chromium (#43)', () => {
  let demo: DemoApp;
  let service: ElicitationService;
  let browser: Browser;
  const contexts: Array<{ close(): Promise<void> }> = [];
  let users = 0;

  beforeAll(async () => {
    demo = await startDemoApp({ port: 0, logger: false, throttleLimit: 100_000, createPerMinute: 100_000 });
    service = demo.app.get(ElicitationService);
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close().catch(() => undefined);
    await demo?.app.close();
  });

  /** A user of this test alone (the demo's store is shared by every test of the file). */
  const newUser = () => `inbox-user-${++users}`;

  /** A page signed in to the demo as `user` (its cookie), in a context of its own; page errors are collected. */
  async function open(user: string, settings: BrowserContextOptions = {}): Promise<Page & { errors: string[] }> {
    const context = await browser.newContext({ viewport: { width: 800, height: 900 }, locale: 'en', ...settings });
    contexts.push(context);
    context.setDefaultTimeout(10_000);
    await context.addCookies([{ name: 'demo_user', value: user, url: demo.url }]);
    const page = Object.assign(await context.newPage(), { errors: [] as string[] });
    page.on('pageerror', (error) => page.errors.push(error.message));
    page.on('console', (msg) => {
      if (msg.type() === 'error' && !msg.location().url.endsWith('/favicon.ico')) page.errors.push(msg.text());
    });
    return page;
  }

  async function gotoInbox(page: Page, path = '/elicit/inbox'): Promise<number> {
    const response = await page.goto(`${demo.url}${path}`);
    return response?.status() ?? 0;
  }

  /** Questions for `user`, one after another (a few milliseconds apart): what asked on the first, a task's on the second. */
  async function ask(user: string, count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const { elicitationId } = await service.createUrlElicitation({
        kind: i % 2 ? 'api-key' : 'confirm',
        message: `Question ${i + 1}: deploy shop build ${100 + i} to production? <b>not bold</b>`,
        userId: user,
        ...(i === 0 && { metadata: { askedBy: { tool: 'deploy-shop', client: 'Claude Code' } } }),
        ...(i === 1 && { taskId: `task-${user}` }),
      });
      ids.push(elicitationId);
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    return ids;
  }

  const listed = (page: Page) =>
    page.evaluate(() => Array.from(document.querySelectorAll('#inbox-list > li')).map((li) => li.getAttribute('data-id')));

  const expectNoAxeViolations = async (page: Page) => expect(describeViolations(await runAxe(page))).toEqual([]);

  describe('axe-core, WCAG 2.2 A/AA', () => {
    it.each([
      ['en', 'light'],
      ['de', 'light'],
      ['ar', 'light'],
      ['en', 'dark'],
    ] as const)('a list of questions (%s, %s): no violations', async (locale, colorScheme) => {
      const user = newUser();
      await ask(user, 3);
      const page = await open(user, { locale, colorScheme });
      expect(await gotoInbox(page)).toBe(200);
      expect(await page.evaluate(() => [document.documentElement.lang, document.documentElement.dir])).toEqual([
        locale,
        locale === 'ar' ? 'rtl' : 'ltr',
      ]);
      expect(await listed(page)).toHaveLength(3);
      if (colorScheme === 'dark') {
        expect(await page.evaluate(() => getComputedStyle(document.querySelector('main')!).backgroundColor)).toBe('rgb(22, 27, 34)');
      }
      await expectNoAxeViolations(page);
      expect(page.errors).toEqual([]);
    });

    it('the empty state, and a later page of the list: no violations', async () => {
      const page = await open(newUser());
      expect(await gotoInbox(page)).toBe(200);
      expect(await page.locator('#inbox-empty').isVisible()).toBe(true);
      await expectNoAxeViolations(page);
      const user = newUser();
      await ask(user, 23);
      const paged = await open(user);
      expect(await gotoInbox(paged)).toBe(200);
      expect(await listed(paged)).toHaveLength(20);
      await Promise.all([paged.waitForURL(/\?after=/), paged.locator('#inbox-older').click()]);
      expect(await listed(paged)).toHaveLength(3);
      expect(await paged.locator('#inbox-newest').isVisible()).toBe(true);
      expect(await paged.locator('#inbox-older').isVisible()).toBe(false);
      await expectNoAxeViolations(paged);
      expect([...page.errors, ...paged.errors]).toEqual([]);
    });
  });

  describe('a 360 px phone', () => {
    it.each(['en', 'ar'] as const)('%s: no sideways scrolling, every link 44 px high', async (locale) => {
      const user = newUser();
      await ask(user, 22);
      const page = await open(user, { locale, viewport: PHONE });
      expect(await gotoInbox(page)).toBe(200);
      expect(await layoutProblems(page, PHONE.width)).toEqual([]);
      expect(page.errors).toEqual([]);
    });
  });

  describe('keyboard only', () => {
    it("Tab reaches the bar's link, each question's link newest first, then the next page's, each with focus shown", async () => {
      const user = newUser();
      const ids = await ask(user, 21);
      const page = await open(user);
      expect(await gotoInbox(page)).toBe(200);
      const expected = [
        '/elicit/inbox',
        ...[...ids]
          .reverse()
          .slice(0, 20)
          .map((id) => `answer ${id}`),
        'older',
      ];
      const stops: string[] = [];
      for (let i = 0; i < expected.length; i++) {
        await page.keyboard.press('Tab');
        const state = await focusState(page);
        expect({ stop: i, visible: state.visible }).toEqual({ stop: i, visible: true });
        stops.push(
          await page.evaluate(() => {
            const el = document.activeElement as HTMLAnchorElement;
            if (el.id === 'inbox-older') return 'older';
            if (el.classList.contains('answer')) return `answer ${el.closest('li')!.getAttribute('data-id')}`;
            return el.getAttribute('href') ?? el.tagName;
          }),
        );
      }
      expect(stops).toEqual(expected);
      // Back to the last question of the page (the oldest but one: the oldest is on the next page); Enter opens its page.
      await page.keyboard.press('Shift+Tab');
      await Promise.all([page.waitForURL(new RegExp(`/elicit/${ids[1]}/api-key$`)), page.keyboard.press('Enter')]);
      expect(await page.locator('h1').textContent()).toBe('An API key is needed');
      expect(page.errors).toEqual([]);
    });
  });

  describe('updates without a reload', () => {
    it('shows a question created for the user, then drops it once answered; says so politely; never shows another user’s', async () => {
      const user = newUser();
      const [first] = await ask(user, 1);
      const page = await open(user);
      expect(await gotoInbox(page)).toBe(200);
      expect(await listed(page)).toEqual([first]);
      // Marks this document: a reload would lose the mark.
      await page.evaluate(() => ((window as unknown as { kept: boolean }).kept = true));
      // Focus on the first question's link, which the update must leave in place.
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.closest('li')?.getAttribute('data-id'))).toBe(first);

      await service.createUrlElicitation({ kind: 'confirm', message: 'Not for this user', userId: `${user}-other` });
      const second = await service.createUrlElicitation({
        kind: 'api-key',
        message: 'Enter the <deploy> token',
        userId: user,
        metadata: { askedBy: { tool: 'rotate-keys', client: 'Inspector' } },
      });
      await page.waitForFunction((id) => document.querySelector(`#inbox-list > li[data-id="${id}"]`) !== null, second.elicitationId, {
        timeout: POLL_WAIT_MS,
      });
      expect(await listed(page)).toEqual([second.elicitationId, first]);
      await page.waitForFunction(() => document.getElementById('inbox-status')?.textContent === 'New questions arrived.');
      expect(await page.evaluate(() => document.getElementById('inbox-status')?.getAttribute('aria-live'))).toBe('polite');
      // The new question as the page would have rendered it.
      const shown = await page.evaluate((id) => {
        const li = document.querySelector(`#inbox-list > li[data-id="${id}"]`)!;
        const link = li.querySelector('a.answer')!;
        return {
          message: li.querySelector('.message')!.textContent,
          messageId: li.querySelector('.message')!.id,
          tool: li.querySelector('[data-fact=tool] bdi')?.textContent,
          client: li.querySelector('[data-fact=client] bdi')?.textContent,
          asked: li.querySelector('time[data-at=asked]')!.getAttribute('datetime'),
          expires: li.querySelector('time[data-at=expires]')!.getAttribute('datetime'),
          left: li.querySelector('time[data-at=expires]')!.textContent,
          href: link.getAttribute('href'),
          describedBy: link.getAttribute('aria-describedby'),
          label: link.textContent,
        };
      }, second.elicitationId);
      expect(shown).toEqual({
        message: 'Enter the <deploy> token',
        messageId: `q-${second.elicitationId}`,
        tool: 'rotate-keys',
        client: 'Inspector',
        asked: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        expires: second.expiresAt.toISOString(),
        left: 'in 10 minutes',
        href: second.url,
        describedBy: `q-${second.elicitationId}`,
        label: 'Answer this question',
      });
      expect(await page.evaluate(() => document.activeElement?.closest('li')?.getAttribute('data-id'))).toBe(first);
      await expectNoAxeViolations(page);

      await service.complete(second.elicitationId, { apiKey: 'k-0123456789' });
      await page.waitForFunction((id) => document.querySelector(`#inbox-list > li[data-id="${id}"]`) === null, second.elicitationId, {
        timeout: POLL_WAIT_MS,
      });
      await page.waitForFunction(
        () => document.getElementById('inbox-status')?.textContent === 'Questions that were answered or expired left the list.',
      );
      expect(await listed(page)).toEqual([first]);
      // The last one answered: the empty state, still without a reload.
      await service.decline(first);
      await page.waitForFunction(() => document.getElementById('inbox-empty')?.hidden === false, undefined, { timeout: POLL_WAIT_MS });
      expect(await page.locator('#inbox-list').isVisible()).toBe(false);
      expect(await page.evaluate(() => (window as unknown as { kept?: boolean }).kept)).toBe(true);
      expect(page.errors).toEqual([]);
    }, 60_000);
  });

  it('with JavaScript off: the list renders, and the page reloads itself every 30 s', async () => {
    const user = newUser();
    const ids = await ask(user, 2);
    const page = await open(user, { javaScriptEnabled: false });
    expect(await gotoInbox(page)).toBe(200);
    expect(await page.locator('#inbox-list > li').count()).toBe(2);
    expect(await page.locator('#inbox-list > li').first().getAttribute('data-id')).toBe(ids[1]);
    expect(await page.locator('#inbox-list a.answer').first().getAttribute('href')).toMatch(new RegExp(`/elicit/${ids[1]}/api-key$`));
    expect(await page.locator('#inbox-list > li').first().locator('.message').textContent()).toBe(
      'Question 2: deploy shop build 101 to production? <b>not bold</b>',
    );
    // Without scripting the <noscript> in the head is markup: its refresh is in force.
    expect(await page.locator('head meta[http-equiv=refresh]').getAttribute('content')).toBe('30');
    expect(page.errors).toEqual([]);
  });
});
