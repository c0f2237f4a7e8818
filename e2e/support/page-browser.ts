/**
 * The module's pages in a real browser: Debian's Chromium (/usr/bin/chromium, `apt-get install -y chromium`)
 * driven by playwright-core, never a browser build of Playwright's own. A person who got a link opens it,
 * is sent to the demo's sign-in (the module's `loginUrl`), types their name, is brought back to the page,
 * fills it in and submits.
 */
import { existsSync } from 'node:fs';
import { describe, it } from '@jest/globals';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Where the Debian package puts Chromium. */
export const CHROMIUM = '/usr/bin/chromium';

/** The flags e2e/pages/browser.e2e-spec.ts launches Chromium with (headless, no sandbox as root, no network chatter). */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** Whether Chromium is installed. */
export const haveChromium = (): boolean => existsSync(CHROMIUM);

/** Whether this run tests in Chromium: it is installed, or REQUIRE_CHROMIUM=1 (as in CI) makes its absence fail the browser tests. */
export const chromiumWanted = (): boolean => haveChromium() || process.env.REQUIRE_CHROMIUM === '1';

function skipping(what: string): void {
  console.warn(
    `SKIPPING ${what}: ${CHROMIUM} not found. Install it with "apt-get install -y chromium"; ` +
      'set REQUIRE_CHROMIUM=1 to make a missing Chromium fail the run instead.',
  );
}

/** `it` where the browser tests run (`chromiumWanted`); elsewhere `it.skip`, with one warning naming `what`. */
export function browserIt(what: string): typeof it.skip {
  if (chromiumWanted()) return it;
  skipping(what);
  return it.skip;
}

/** `describe` where the browser tests run (`chromiumWanted`); elsewhere `describe.skip`, with one warning naming `what`. */
export function browserDescribe(what: string): typeof describe.skip {
  if (chromiumWanted()) return describe;
  skipping(what);
  return describe.skip;
}

/**
 * The one way the e2e tests start Chromium: Debian's build with the flags above. A missing Chromium throws naming
 * the install command (the browser tests fail, never skip, once they got this far); `timeout` bounds the launch.
 */
export function launchChromium(options: { timeout?: number } = {}): Promise<Browser> {
  if (!haveChromium()) {
    return Promise.reject(
      new Error(
        `${CHROMIUM} does not exist: install it with "apt-get install -y chromium" (.ci/run does), or unset REQUIRE_CHROMIUM to skip the browser tests.`,
      ),
    );
  }
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, ...options });
}

/** What a browser submission saw: the POST's status and the text of the page that answered. */
export interface BrowserSubmission {
  status: number;
  text: string;
  /** Console errors and uncaught page errors (the demo serves no favicon: its 404 is left out). */
  errors: string[];
}

/**
 * One Chromium for a test file, with one page that every submission reuses, its cookies cleared first (a new
 * context and page cost Chromium about a second of CPU, a navigation a quarter of that).
 */
export interface PageBrowser {
  /**
   * Opens `url` as `user` would from a link: not signed in, so the page sends the browser to the demo's
   * sign-in, where `user` is typed; back on the page, `fill` fills it in, and the primary button is clicked.
   * Submissions run one at a time (they share the page).
   */
  submit(url: string, user: string, fill: (page: Page) => Promise<void>): Promise<BrowserSubmission>;
  close(): Promise<void>;
}

/** Launches Chromium (throws naming the install command when it is missing). */
export async function launchPageBrowser(): Promise<PageBrowser> {
  const browser: Browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 900, height: 900 } });
  // A control that is not there fails the step in seconds, not at the test's timeout.
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !msg.location().url.endsWith('/favicon.ico')) errors.push(`${msg.text()} (${msg.location().url})`);
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return {
    async submit(url, user, fill) {
      await context.clearCookies();
      await page.goto(url);
      // The module's loginUrl: the demo asks for a name and brings the browser back to the page.
      if (new URL(page.url()).pathname !== '/demo/login') throw new Error(`expected the demo sign-in, got ${page.url()}`);
      await page.getByLabel('User name').fill(user);
      await Promise.all([page.waitForURL(url), page.getByRole('button', { name: 'Sign in' }).click()]);
      // Only the module's page is checked for errors: the sign-in page is the demo's stand-in for an app's login.
      errors.length = 0;

      await fill(page);
      // The post's response and the main frame's navigation to the page it answers with (a response alone leaves
      // the form in place for a moment).
      const [posted] = await Promise.all([
        page.waitForResponse((r) => r.url() === url && r.request().method() === 'POST'),
        page.waitForEvent('framenavigated', { predicate: (frame) => frame === page.mainFrame() }),
        page.locator('button.primary').click(),
      ]);
      await page.waitForLoadState('domcontentloaded');
      const text = ((await page.textContent('main')) ?? '').replace(/\s+/g, ' ').trim();
      return { status: posted.status(), text, errors: [...errors] };
    },
    close: () => browser.close(),
  };
}
