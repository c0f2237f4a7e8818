/**
 * The pages for people (#16) in a real browser (Debian Chromium via playwright-core): axe-core's WCAG 2.2 A/AA
 * rules over every page in every state (en; the main pages also in de, ar and dark mode) find nothing; on a
 * 360 px phone no page scrolls sideways, every control is 44 px high and inputs use 16 px text; `lang`/`dir`
 * follow Accept-Language and Arabic mirrors the layout; the api-key, confirm and hosted form pages can be
 * answered with the keyboard alone, always with a visible focus indicator; a refused hosted form focuses its
 * error summary; the countdown keeps the expiry line current and warns under a minute; reduced motion works.
 *
 * Pages come from the demo app (its cookie identity), elicitations created with the service; 429 from a demo
 * with a tiny throttle limit, 503 from an app held in its shutdown (as e2e/operations/shutdown.e2e-spec.ts does it).
 * Needs /usr/bin/chromium; without it the suite is skipped unless REQUIRE_CHROMIUM=1.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type BeforeApplicationShutdown, type INestApplication, Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { type Browser, type Page } from 'playwright-core';
import { startDemoApp, type DemoApp } from '../../examples/demo/demo-app.js';
import { profileForm } from '../../examples/demo/profile-form.js';
import { ElicitationModule } from '../../src/module/elicitation.module.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { describeViolations, focusState, layoutProblems, runAxe, tabUntil } from '../support/a11y.js';
import { pageTestOptions } from '../support/page-app.js';
import { browserDescribe, launchChromium } from '../support/page-browser.js';

const suite = browserDescribe('the page accessibility tests');

const USER = 'alice';
const PHONE = { width: 360, height: 740 };
/** A layout problem of one of the hosted form's error-summary links (to a field `#f<n>` or its first option). */
const SUMMARY_LINK = /^a\[href=#f\d+(-o0)?\] is /;

interface Variant {
  locale?: 'en' | 'de' | 'ar';
  colorScheme?: 'light' | 'dark';
  reducedMotion?: 'reduce' | 'no-preference';
  viewport?: { width: number; height: number };
}

/** What a state left the page showing: the HTTP status of the document, and what to close afterwards. */
interface Shown {
  status: number;
  cleanup?: () => Promise<void>;
}

suite('pages for people: accessibility in Chromium (#16)', () => {
  let demo: DemoApp;
  let throttled: DemoApp | undefined;
  let service: ElicitationService;
  let browser: Browser;
  /**
   * One page per variant (in a context of its own: language, scheme, motion, size), reused by every test of that
   * variant: a new context and page cost Chromium about a second of CPU, a navigation a quarter of that.
   */
  const pages = new Map<string, Page>();

  beforeAll(async () => {
    // Generous limits: these tests open far more pages and create far more elicitations than a person would.
    demo = await startDemoApp({ port: 0, logger: false, throttleLimit: 100_000, createPerMinute: 100_000 });
    service = demo.app.get(ElicitationService);
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    for (const page of pages.values())
      await page
        .context()
        .close()
        .catch(() => undefined);
    await browser?.close().catch(() => undefined);
    await throttled?.app.close();
    await demo?.app.close();
  });

  /**
   * The variant's page, signed in to the demo as `user` (its cookie: every other cookie of an earlier test is
   * cleared) and with no page errors recorded yet.
   */
  async function open(variant: Variant = {}, user: string | null = USER): Promise<Page> {
    const settings = {
      locale: variant.locale ?? 'en',
      colorScheme: variant.colorScheme ?? 'light',
      reducedMotion: variant.reducedMotion ?? 'no-preference',
      viewport: variant.viewport ?? { width: 800, height: 900 },
    } as const;
    const key = JSON.stringify(settings);
    let page = pages.get(key);
    if (!page) {
      const context = await browser.newContext(settings);
      context.setDefaultTimeout(10_000);
      page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      (page as Page & { errors: string[] }).errors = errors;
      pages.set(key, page);
    }
    const context = page.context();
    await context.clearCookies();
    if (user) await context.addCookies([{ name: 'demo_user', value: user, url: demo.url }]);
    pageErrors(page).length = 0;
    return page;
  }

  const pageErrors = (page: Page) => (page as Page & { errors: string[] }).errors;

  const createKey = (extra: Record<string, unknown> = {}) =>
    service.createUrlElicitation({
      kind: 'api-key',
      message: 'Enter your github API key so the assistant can connect.',
      userId: USER,
      ...extra,
    });
  const createConfirm = (warning: boolean, extra: Record<string, unknown> = {}) =>
    service.createUrlElicitation({
      kind: 'confirm',
      message: 'Deploy shop to production?',
      userId: USER,
      metadata: warning
        ? { title: 'Deploy shop', warning: 'This replaces the version running now.', confirmLabel: 'Deploy', cancelLabel: 'Cancel' }
        : {},
      ...extra,
    });
  const createForm = () => service.createUrlElicitation({ kind: 'form', form: profileForm, message: 'Set up your profile', userId: USER });
  const createFile = () =>
    service.createUrlElicitation({
      kind: 'file',
      accept: ['application/pdf', 'image/*'],
      maxBytes: 2 * 1024 * 1024,
      message: 'Upload the signed contract (PDF) or a photo of it.',
      userId: USER,
    });
  const createOAuth = () =>
    service.createUrlElicitation({
      kind: 'oauth',
      provider: 'demo',
      message: 'Connect your account at the demo provider so the assistant can use it for you.',
      userId: USER,
    });

  async function goto(page: Page, url: string): Promise<number> {
    const response = await page.goto(url);
    return response?.status() ?? 0;
  }

  /**
   * Clicks `selector` (the primary button by default) and waits for the page the post answers with: its response,
   * and the main frame's navigation to it (a response alone leaves the old document in place for a moment, and its
   * late commit would interrupt the next test's navigation of the same page).
   */
  async function post(page: Page, selector = 'button.primary', press?: string): Promise<number> {
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST' && r.request().resourceType() === 'document'),
      page.waitForEvent('framenavigated', { predicate: (frame) => frame === page.mainFrame() }),
      press ? page.keyboard.press(press) : page.locator(selector).click(),
    ]);
    await page.waitForLoadState('domcontentloaded');
    return response.status();
  }

  /** Posts the hosted form with every field empty (the browser's own checks switched off, as a client without them). */
  async function postFormEmpty(page: Page): Promise<number> {
    await page.evaluate(() => {
      for (const form of Array.from(document.querySelectorAll('form'))) form.noValidate = true;
      for (const input of Array.from(document.querySelectorAll<HTMLInputElement>('input[type=text], input[type=email]'))) input.value = '';
    });
    return post(page);
  }

  /** One page in one state, reached as a person would reach it in the browser. */
  const STATES: Record<string, (page: Page) => Promise<Shown>> = {
    'api-key': async (page) => ({ status: await goto(page, (await createKey()).url) }),
    'confirm-warning': async (page) => ({ status: await goto(page, (await createConfirm(true)).url) }),
    'confirm-plain': async (page) => ({ status: await goto(page, (await createConfirm(false)).url) }),
    form: async (page) => ({ status: await goto(page, (await createForm()).url) }),
    'form-errors': async (page) => {
      expect(await goto(page, (await createForm()).url)).toBe(200);
      const status = await postFormEmpty(page);
      expect(await page.locator('#error-summary a[href]').count()).toBe(3);
      return { status };
    },
    'form-last-attempt': async (page) => {
      expect(await goto(page, (await createForm()).url)).toBe(200);
      expect(await postFormEmpty(page)).toBe(400);
      const status = await postFormEmpty(page);
      expect(await page.locator('#error-summary').textContent()).toContain('After 1 more invalid attempt this request will be declined.');
      return { status };
    },
    'form-declined': async (page) => {
      expect(await goto(page, (await createForm()).url)).toBe(200);
      expect(await postFormEmpty(page)).toBe(400);
      expect(await postFormEmpty(page)).toBe(400);
      const status = await postFormEmpty(page);
      expect(await page.textContent('main')).toContain('This request was declined after 3 invalid attempts.');
      return { status };
    },
    oauth: async (page) => ({ status: await goto(page, (await createOAuth()).url) }),
    file: async (page) => ({ status: await goto(page, (await createFile()).url) }),
    'file-errors': async (page) => {
      expect(await goto(page, (await createFile()).url)).toBe(200);
      // A plain-text file where a PDF or an image is asked for: refused by its content (415), the error summary shown.
      await page
        .locator('#file')
        .setInputFiles({ name: 'contract.pdf', mimeType: 'application/pdf', buffer: Buffer.from('just text, not a PDF') });
      const status = await post(page);
      expect(await page.locator('#error-summary').count()).toBe(1);
      return { status };
    },
    done: async (page) => {
      expect(await goto(page, (await createKey()).url)).toBe(200);
      await page.locator('#apiKey').fill('ghp_a11y-0123456789');
      const status = await post(page);
      expect(await page.locator('main p.muted').count()).toBe(1);
      return { status };
    },
    'error-401': async (page) => {
      expect(await goto(page, (await createKey()).url)).toBe(200);
      // Signed out in another tab before posting: the post names no user.
      await page.context().clearCookies({ name: 'demo_user' });
      await page.locator('#apiKey').fill('ghp_a11y-0123456789');
      return { status: await post(page) };
    },
    'error-403': async (page) => ({ status: await goto(page, (await createKey({ userId: 'bob' })).url) }),
    'error-404': async (page) => ({ status: await goto(page, `${demo.url}/elicit/${randomUUID()}/api-key`) }),
    'error-409': async (page) => {
      const { url } = await createConfirm(false);
      expect(await goto(page, url)).toBe(200);
      expect(await post(page)).toBe(200);
      return { status: await goto(page, url) };
    },
    'error-410': async (page) => {
      const { url, elicitationId } = await createKey({ ttlMs: 1 });
      const start = Date.now();
      while ((await service.getStatus(elicitationId))?.status === 'pending' && Date.now() - start < 5_000) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return { status: await goto(page, url) };
    },
    'error-413': async (page) => {
      expect(await goto(page, (await createKey()).url)).toBe(200);
      await page.locator('#apiKey').fill('ghp_a11y-0123456789');
      // More than limits.maxBodyBytes (16 KiB) in the post.
      await page.evaluate(() => {
        const extra = document.createElement('input');
        extra.type = 'hidden';
        extra.name = 'padding';
        extra.value = 'x'.repeat(20_000);
        document.querySelector('form:not(.extend)')!.append(extra);
      });
      return { status: await post(page) };
    },
    'error-429': async (page) => {
      throttled ??= await startDemoApp({ port: 0, logger: false, throttleLimit: 2 });
      const { url } = await throttled.app.get(ElicitationService).createUrlElicitation({ kind: 'confirm', message: 'Go?', userId: USER });
      await page.context().addCookies([{ name: 'demo_user', value: USER, url: throttled.url }]);
      let status = 0;
      for (let i = 0; i < 10 && status !== 429; i++) status = await goto(page, url);
      return { status };
    },
    'error-503': async (page) => {
      const held = await heldInShutdown();
      try {
        // The page leaves the held app before it is let go, so that no connection of the browser's keeps its close waiting.
        const cleanup = async () => {
          await page.goto('about:blank').catch(() => undefined);
          await held.release();
        };
        return { status: await goto(page, held.pageUrl), cleanup };
      } catch (error) {
        await held.release();
        throw error;
      }
    },
  };

  const EXPECTED_STATUS: Record<string, number> = {
    'form-errors': 400,
    'form-last-attempt': 400,
    'form-declined': 400,
    'file-errors': 415,
    'error-401': 401,
    'error-403': 403,
    'error-404': 404,
    'error-409': 409,
    'error-410': 410,
    'error-413': 413,
    'error-429': 429,
    'error-503': 503,
  };
  const ALL = Object.keys(STATES);
  const MAIN = ['api-key', 'form-errors', 'done', 'error-404'];

  /** Shows `state` in the page of `variant`, checks its HTTP status, runs `check`, cleans up. */
  async function inState(state: string, variant: Variant, check: (page: Page) => Promise<void>): Promise<void> {
    const page = await open(variant);
    const shown = await STATES[state](page);
    try {
      expect({ state, status: shown.status }).toEqual({ state, status: EXPECTED_STATUS[state] ?? 200 });
      await check(page);
      expect(pageErrors(page)).toEqual([]);
    } finally {
      await shown.cleanup?.();
    }
  }

  const expectNoAxeViolations = async (page: Page) => expect(describeViolations(await runAxe(page))).toEqual([]);

  describe('axe-core, WCAG 2.2 A/AA', () => {
    it.each(ALL)('%s (en, light): no violations', (state) => inState(state, {}, expectNoAxeViolations), 30_000);

    it.each(MAIN.flatMap((state) => [`${state} de`, `${state} ar`, `${state} dark`]))(
      '%s: no violations',
      (name) => {
        const [state, variant] = name.split(' ');
        const v: Variant = variant === 'dark' ? { colorScheme: 'dark' } : { locale: variant as 'de' | 'ar' };
        return inState(state, v, async (page) => {
          const lang = await page.evaluate(() => document.documentElement.lang);
          expect(lang).toBe(v.locale ?? 'en');
          if (variant === 'dark') {
            // The dark palette is in use (the card is dark), so axe checked the dark colours.
            expect(await page.evaluate(() => getComputedStyle(document.querySelector('main')!).backgroundColor)).toBe('rgb(22, 27, 34)');
          }
          await expectNoAxeViolations(page);
        });
      },
      30_000,
    );
  });

  describe('a 360 px phone', () => {
    it.each([...ALL.map((s) => `${s} en`), 'api-key ar', 'form-errors ar'])(
      '%s: no sideways scrolling, 44 px controls, 16 px input text',
      (name) => {
        const [state, locale] = name.split(' ') as [string, 'en' | 'ar'];
        return inState(state, { locale, viewport: PHONE }, async (page) => {
          // Every control, the error summary's links included.
          expect(await layoutProblems(page, PHONE.width)).toEqual([]);
        });
      },
      30_000,
    );

    // The error summary's links are inline text: they get a 44 px row of their own (templates/layout.hbs).
    it('form-errors en: the error summary links are 44 px high', () =>
      inState('form-errors', { viewport: PHONE }, async (page) => {
        expect((await layoutProblems(page, PHONE.width)).filter((p) => SUMMARY_LINK.test(p))).toEqual([]);
      }));
  });

  describe('language and direction', () => {
    it.each([
      ['en', 'ltr'],
      ['de', 'ltr'],
      ['ar', 'rtl'],
    ] as const)('%s: lang and dir on <html>; the layout follows the direction', (locale, dir) =>
      inState('api-key', { locale }, async (page) => {
        const seen = await page.evaluate((dir) => {
          const box = (selector: string) => document.querySelector(selector)!.getBoundingClientRect();
          const quote = getComputedStyle(document.querySelector('.quote')!);
          return {
            lang: document.documentElement.lang,
            dir: document.documentElement.dir,
            direction: getComputedStyle(document.querySelector('main')!).direction,
            primaryLeft: box('button.primary').left,
            cancelLeft: box('button[value=cancel]').left,
            labelRight: box('label[for=apiKey]').right,
            labelLeft: box('label[for=apiKey]').left,
            mainRight: box('main').right,
            mainLeft: box('main').left,
            startBorder: dir === 'rtl' ? quote.borderRightWidth : quote.borderLeftWidth,
            endBorder: dir === 'rtl' ? quote.borderLeftWidth : quote.borderRightWidth,
          };
        }, dir);
        expect({ lang: seen.lang, dir: seen.dir, direction: seen.direction }).toEqual({ lang: locale, dir, direction: dir });
        // The primary button comes first in reading order: left of Cancel in ltr, right of it in rtl.
        expect(dir === 'rtl' ? seen.primaryLeft > seen.cancelLeft : seen.primaryLeft < seen.cancelLeft).toBe(true);
        // The thick border of the quoted message is on the start side.
        expect({ start: seen.startBorder, end: seen.endBorder }).toEqual({ start: '4px', end: '1px' });
        // The label sits at the start edge of the card (its padding from the card's start side is 32 px at 800 px).
        const fromStart = dir === 'rtl' ? seen.mainRight - seen.labelRight : seen.labelLeft - seen.mainLeft;
        expect(fromStart).toBeLessThanOrEqual(33);
      }),
    );
  });

  describe('keyboard only', () => {
    /** Checks the focused element shows a focus indicator. */
    const expectFocusVisible = async (page: Page) => {
      const state = await focusState(page);
      expect({ element: state.element, visible: state.visible }).toEqual({ element: state.element, visible: true });
    };

    it('api-key: Tab to the key, type it, Tab to Submit, Enter; every stop shows focus', async () => {
      const page = await open();
      const { url, elicitationId } = await createKey();
      expect(await goto(page, url)).toBe(200);
      await tabUntil(page, '#apiKey');
      await page.keyboard.type('ghp_keyboard-0123456789');
      await tabUntil(page, 'button.primary');
      // Past Submit to Cancel and back with Shift+Tab.
      await tabUntil(page, 'button[value=cancel]');
      await tabUntil(page, 'button.primary', 'Shift+Tab');
      await expectFocusVisible(page);
      expect(await post(page, '', 'Enter')).toBe(200);
      expect(await page.textContent('main')).toContain('You can close this window');
      expect(await service.getResult(elicitationId)).toEqual({ status: 'completed', data: { apiKey: 'ghp_keyboard-0123456789' } });
      expect(pageErrors(page)).toEqual([]);
    });

    it('confirm: Tab past the message and the warning to Deploy, Space; every stop shows focus', async () => {
      const page = await open();
      const { url, elicitationId } = await createConfirm(true);
      expect(await goto(page, url)).toBe(200);
      const stops = await tabUntil(page, 'button.primary');
      // The quoted message and the warning are focusable (they may scroll) and were passed with focus shown.
      expect(stops.map((s) => s.element)).toEqual(expect.arrayContaining(['p.message', 'p.warning']));
      await tabUntil(page, 'button[value=cancel]');
      await tabUntil(page, 'button.primary', 'Shift+Tab');
      expect(await post(page, '', 'Space')).toBe(200);
      expect(await service.getResult(elicitationId)).toEqual({ status: 'completed', data: { confirmed: true } });
      expect(pageErrors(page)).toEqual([]);
    });

    it('hosted form: Tab through the fields, type, tick a box with Space, submit with Enter; every stop shows focus', async () => {
      const page = await open();
      const { url, elicitationId } = await createForm();
      expect(await goto(page, url)).toBe(200);
      await tabUntil(page, '[name=displayName]');
      await page.keyboard.type('Ada');
      await tabUntil(page, '[name=email]');
      await page.keyboard.type('ada@example.com');
      await tabUntil(page, '[name=newsletter][type=checkbox]');
      await page.keyboard.press('Space');
      await tabUntil(page, 'input[type=checkbox][name=interests]');
      await page.keyboard.press('Space');
      await tabUntil(page, 'button.primary');
      expect(await post(page, '', 'Enter')).toBe(200);
      expect(await page.textContent('main')).toContain('You can close this window');
      const result = (await service.getResult(elicitationId)) as { status: string; data: Record<string, unknown> };
      expect(result).toMatchObject({
        status: 'completed',
        data: { displayName: 'Ada', email: 'ada@example.com', newsletter: true, interests: ['ai'] },
      });
      expect(pageErrors(page)).toEqual([]);
    });
  });

  it('an invalid hosted-form post focuses the error summary (role=alert), which links to every invalid field', async () => {
    const page = await open();
    expect(await goto(page, (await createForm()).url)).toBe(200);
    expect(await postFormEmpty(page)).toBe(400);
    const summary = await page.evaluate(() => {
      const box = document.getElementById('error-summary');
      const links = Array.from(box?.querySelectorAll('a[href]') ?? []).map((a) => a.getAttribute('href')!);
      return {
        focused: document.activeElement?.id,
        role: box?.getAttribute('role'),
        links,
        targetsExist: links.map((href) => href.startsWith('#') && document.getElementById(href.slice(1)) !== null),
        invalidFields: document.querySelectorAll('.field-error').length,
        invalidTargets: links.map((href) => document.getElementById(href.slice(1))?.getAttribute('aria-invalid')),
      };
    });
    expect(summary.focused).toBe('error-summary');
    expect(summary.role).toBe('alert');
    // displayName, email and interests are required: each is invalid and linked.
    expect(summary.invalidFields).toBe(3);
    expect(summary.links).toHaveLength(3);
    expect(summary.targetsExist).toEqual([true, true, true]);
    expect(summary.invalidTargets).toEqual(['true', 'true', 'true']);
    // The summary shows a focus indicator, and following a link moves focus to its field.
    expect((await focusState(page)).visible).toBe(true);
    await tabUntil(page, '#error-summary a');
    await page.keyboard.press('Enter');
    await page.waitForFunction((href) => document.activeElement?.id === href.slice(1), summary.links[0]);
  });

  describe('the countdown', () => {
    it.each(['no-preference', 'reduce'] as const)(
      'keeps the expiry line current and warns with under a minute left (prefers-reduced-motion: %s)',
      async (reducedMotion) => {
        const page = await open({ reducedMotion });
        const { url } = await createKey({ ttlMs: 62_000 });
        expect(await goto(page, url)).toBe(200);
        expect(await page.evaluate(() => matchMedia('(prefers-reduced-motion: reduce)').matches)).toBe(reducedMotion === 'reduce');
        const soonText = await page.locator('#expiry').getAttribute('data-soon');
        expect(soonText).toBe('Less than a minute left: answer now, or ask for more time.');
        // Polls (no fixed sleep): the warning appears once under 60 s are left, about 2 s after opening. How much was
        // left when it was seen is read from the page's own expiry, not from a wall-clock bound a loaded machine could
        // overrun: at most a minute, and not long under it (the page ticks every second in its last two minutes).
        const left = await page.waitForFunction(
          (text) =>
            document.getElementById('expiry-soon')?.textContent === text &&
            Date.parse(document.getElementById('expiry')!.getAttribute('data-expires-at')!) - Date.now(),
          soonText,
          { timeout: 20_000 },
        );
        const leftMs = (await left.jsonValue()) as number;
        expect(leftMs).toBeLessThanOrEqual(60_000);
        expect(leftMs).toBeGreaterThan(40_000);
        expect(await page.locator('#expiry-soon').getAttribute('role')).toBe('status');
        // The line itself now counts seconds, and keeps counting down.
        const first = await page.locator('#expiry time').textContent();
        expect(first).toMatch(/^in \d+ seconds$/);
        await page.waitForFunction((before) => document.querySelector('#expiry time')?.textContent !== before, first, { timeout: 10_000 });
        // And the page still works: the key is accepted.
        await page.locator('#apiKey').fill('ghp_countdown-0123456789');
        expect(await post(page)).toBe(200);
        expect(pageErrors(page)).toEqual([]);
      },
      45_000,
    );
  });
});

/** Holds an app in `beforeApplicationShutdown` (after the module's destroy hooks) until released. */
async function heldInShutdown(): Promise<{ pageUrl: string; release: () => Promise<void> }> {
  const gate = { reached: false, release: () => undefined as void };
  @Injectable()
  class Gate implements BeforeApplicationShutdown {
    beforeApplicationShutdown() {
      gate.reached = true;
      return new Promise<void>((resolve) => (gate.release = resolve));
    }
  }
  @Module({ imports: [ElicitationModule.forRoot(pageTestOptions({ resolvePageUser: () => USER }))], providers: [Gate] })
  class HeldModule {}
  const app: INestApplication = (await Test.createTestingModule({ imports: [HeldModule] }).compile()).createNestApplication({
    logger: false,
  });
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${((app.getHttpServer() as Server).address() as { port: number }).port}`;
  const { elicitationId } = await app
    .get(ElicitationService)
    .createUrlElicitation({ kind: 'api-key', message: 'Enter your key', userId: USER });
  const closing = app.close();
  const start = Date.now();
  while (!gate.reached && Date.now() - start < 5_000) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!gate.reached) throw new Error('the app did not reach beforeApplicationShutdown within 5 s');
  return {
    pageUrl: `${base}/elicit/${elicitationId}/api-key`,
    release: async () => {
      gate.release();
      await closing;
    },
  };
}
