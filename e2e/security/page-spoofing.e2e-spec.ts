/**
 * A tool's text cannot make a page read differently from the request it approves (issue 19, part 3), checked
 * in a real browser (Debian's Chromium driven by playwright-core): the payload (a right-to-left override, NUL,
 * BEL and 28 line feeds before "to production?") placed in the message, the confirm page's title, warning and
 * button labels, and the hosted form's field, description and option titles. What the browser shows
 * (`innerText`, `document.title`) holds no control or bidi character, and at 1280x720 and 360x640 the end of
 * the question and the buttons are in the first viewport, without scrolling.
 *
 * Needs /usr/bin/chromium; skipped without it unless REQUIRE_CHROMIUM=1 (as in e2e/pages/browser.e2e-spec.ts).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { type Browser, type Page } from 'playwright-core';
import type { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { PAGE_MESSAGES } from '../../src/messages/default-messages.js';
import { startPageApp } from '../support/page-app.js';
import { browserIt, chromiumWanted, launchChromium } from '../support/page-browser.js';

/** The payload of the issue. */
const SPOOF = 'Deploy web\u202Eyrtnomem\u202C\u0000\u0007' + '\n'.repeat(28) + 'to production?';
/** The payload as a block (message, warning) and as a line (titles, labels). */
const AS_BLOCK = 'Deploy webyrtnomem\n\nto production?';
const AS_LINE = 'Deploy webyrtnomem to production?';
/** Controls but the line feed, and every bidi formatting character. */
// eslint-disable-next-line no-control-regex -- control characters are what must not be there
const FORBIDDEN = /[\u0000-\u0009\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u206F]/u;
const VIEWPORTS = [
  { width: 1280, height: 720 },
  { width: 360, height: 640 },
];

const chromiumIt = browserIt('the page spoofing browser test');

interface Box {
  top: number;
  bottom: number;
  left: number;
  right: number;
}

/** What the browser shows of the page, read before any scrolling. */
interface Shown {
  title: string;
  text: string;
  scrollY: number;
  viewport: { width: number; height: number };
  buttons: Array<{ text: string; box: Box }>;
  actions: Box;
  /** Where the last occurrence of `needle` in the message box is drawn. */
  needle: Box | null;
  messageBox: Box;
}

/** Reads the open page: its text, its buttons' boxes and where `needle` is drawn in the message box. */
function readPage(page: Page, needle: string): Promise<Shown> {
  return page.evaluate((needle) => {
    const box = (r: DOMRect) => ({ top: r.top, bottom: r.bottom, left: r.left, right: r.right });
    const message = document.querySelector('p.message')!;
    const node = message.firstChild!;
    const at = (node.textContent ?? '').lastIndexOf(needle);
    let needleBox = null;
    if (at >= 0) {
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + needle.length);
      needleBox = box(range.getBoundingClientRect());
    }
    return {
      title: document.title,
      text: document.body.innerText,
      scrollY: window.scrollY,
      viewport: { width: window.innerWidth, height: window.innerHeight },
      buttons: Array.from(document.querySelectorAll<HTMLElement>('.actions button')).map((b) => ({
        text: b.innerText,
        box: box(b.getBoundingClientRect()),
      })),
      actions: box(document.querySelector('.actions')!.getBoundingClientRect()),
      needle: needleBox,
      messageBox: box(message.getBoundingClientRect()),
    };
  }, needle);
}

/** `inner` lies within the viewport of `shown`. */
function expectInViewport(shown: Shown, inner: Box, what: string): void {
  const { width, height } = shown.viewport;
  const inside = inner.top >= 0 && inner.left >= 0 && inner.bottom <= height && inner.right <= width;
  if (!inside) throw new Error(`${what} is outside the ${width}x${height} viewport: ${JSON.stringify(inner)}`);
}

/** Buttons in view, the end of the question drawn above them inside the message box, nothing scrolled. */
function expectActionInView(shown: Shown): void {
  expect(shown.scrollY).toBe(0);
  expect(shown.buttons.length).toBe(2);
  for (const button of shown.buttons) expectInViewport(shown, button.box, `the button "${button.text}"`);
  expect(shown.needle).not.toBeNull();
  expectInViewport(shown, shown.needle!, 'the end of the question');
  expect(shown.needle!.bottom).toBeLessThanOrEqual(shown.actions.top);
  expect(shown.needle!.bottom).toBeLessThanOrEqual(shown.messageBox.bottom);
}

describe('a tool text cannot make a page read differently (real browser)', () => {
  let app: INestApplication | undefined;
  let service: ElicitationService;
  let origin: string;
  let browser: Browser | undefined;

  beforeAll(async () => {
    ({ app, service } = await startPageApp({}, { listen: true }));
    origin = `http://127.0.0.1:${((app.getHttpServer() as Server).address() as AddressInfo).port}`;
    if (chromiumWanted()) browser = await launchChromium({ timeout: 30_000 });
  }, 60_000);

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    await app?.close();
  });

  /** The one page every check reuses (a new context and page cost Chromium about a second of CPU), and its errors. */
  let shared: { page: Page; errors: string[] } | undefined;

  /**
   * Opens `url` as alice (the test identity header) at `viewport`, runs `check`, leaves a screenshot of the
   * first viewport in /tmp (`name`).
   */
  async function open(name: string, url: string, viewport: { width: number; height: number }, check: (page: Page) => Promise<void>) {
    if (!browser) throw new Error('Chromium did not start (see the beforeAll)');
    if (!shared) {
      const context = await browser.newContext({ viewport, extraHTTPHeaders: { 'x-test-user': 'alice' } });
      context.setDefaultTimeout(10_000);
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      shared = { page, errors };
    }
    const { page, errors } = shared;
    errors.length = 0;
    await page.setViewportSize(viewport);
    const opened = await page.goto(`${origin}${new URL(url).pathname}`);
    expect(opened?.status()).toBe(200);
    await check(page);
    await page.screenshot({ path: `/tmp/page-spoofing-${name}-${viewport.width}x${viewport.height}.png` });
    expect(errors).toEqual([]);
  }

  chromiumIt(
    'confirm page: the payload in message, title, warning and both labels shows no control, the question and buttons stay in view',
    async () => {
      for (const viewport of VIEWPORTS) {
        const created = await service.createUrlElicitation({
          kind: 'confirm',
          message: SPOOF,
          userId: 'alice',
          metadata: { title: SPOOF, warning: SPOOF, confirmLabel: SPOOF, cancelLabel: SPOOF },
        });
        await open('confirm', created.url, viewport, async (page) => {
          const shown = await readPage(page, 'to production?');
          expect(shown.title).not.toMatch(FORBIDDEN);
          expect(shown.text).not.toMatch(FORBIDDEN);
          expect(shown.title.startsWith(`${AS_LINE} · `)).toBe(true);
          expect(await page.locator('h1').innerText()).toBe(AS_LINE);
          expect(await page.locator('figure.quote figcaption').innerText()).toBe(PAGE_MESSAGES.labels.fromAssistant);
          expect(await page.locator('figure.quote p.message').innerText()).toBe(AS_BLOCK);
          expect(await page.locator('figure.quote p.warning').innerText()).toBe(AS_BLOCK);
          expect(shown.buttons.map((b) => b.text)).toEqual([AS_LINE, AS_LINE]);
          expectActionInView(shown);
          // Nothing covers the buttons: each would take the click (actionability check, no post).
          for (const button of await page.locator('.actions button').all()) await button.click({ trial: true });
        });
      }
    },
    60_000,
  );

  chromiumIt(
    'confirm page at its largest (500-character title, warning and labels, 60 lines of message): the buttons stay in view',
    async () => {
      const lines = Array.from({ length: 59 }, (_, i) => `line ${i + 1} of filler text`).join('\n');
      for (const viewport of VIEWPORTS) {
        const created = await service.createUrlElicitation({
          kind: 'confirm',
          message: `Deploy to production?\n${lines}`,
          userId: 'alice',
          metadata: { title: 'T '.repeat(250), warning: 'W '.repeat(250), confirmLabel: 'C'.repeat(500), cancelLabel: 'N'.repeat(500) },
        });
        await open('confirm-largest', created.url, viewport, async (page) => {
          const shown = await readPage(page, 'Deploy to production?');
          expectActionInView(shown);
          // The message box holds at most 12 lines (fewer on a short screen) and scrolls: the last line is below it.
          const lineHeight = 24;
          expect(shown.messageBox.bottom - shown.messageBox.top).toBeLessThanOrEqual(12 * lineHeight + 1);
          const scrolls = await page.locator('p.message').evaluate((el) => el.scrollHeight > el.clientHeight);
          expect(scrolls).toBe(true);
          expect(shown.text).toContain('line 59 of filler text');
        });
      }
    },
    60_000,
  );

  chromiumIt(
    'hosted form: the payload in the message and every field, description and option title shows no control; the buttons stay in view',
    async () => {
      for (const viewport of VIEWPORTS) {
        const created = await service.createUrlElicitation({
          kind: 'form',
          message: SPOOF,
          userId: 'alice',
          form: {
            type: 'object',
            properties: {
              target: { type: 'string', title: SPOOF, description: SPOOF },
              env: { type: 'string', title: SPOOF, enum: ['prod', 'dev'], enumNames: [SPOOF, 'Development'] },
              tags: { type: 'array', title: SPOOF, items: { anyOf: [{ const: 'a', title: SPOOF }] } },
              ok: { type: 'boolean', title: SPOOF },
            },
            required: ['target'],
          },
        });
        await open('form', created.url, viewport, async (page) => {
          const shown = await readPage(page, 'to production?');
          expect(shown.title).not.toMatch(FORBIDDEN);
          expect(shown.text).not.toMatch(FORBIDDEN);
          expect(await page.locator('figure.quote p.message').innerText()).toBe(AS_BLOCK);
          const labels = await page.locator('form label, form legend').allInnerTexts();
          expect(labels.map((l) => l.replace(/\s*\*$/, ''))).toEqual([AS_LINE, AS_LINE, AS_LINE, AS_LINE, AS_LINE]);
          expect(await page.locator('#f0-help').innerText()).toBe(AS_LINE);
          const options = await page.locator('select option').allInnerTexts();
          expect(options).toContain(AS_LINE);
          expect(options.join('')).not.toMatch(FORBIDDEN);
          expectActionInView(shown);
        });
      }
    },
    60_000,
  );
});
