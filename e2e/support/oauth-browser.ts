/**
 * The OAuth connect flow in a real browser (Debian's Chromium, /usr/bin/chromium, through playwright-core): the
 * module's `oauth` page, Continue, the development `oidc-provider`'s stock login and consent pages, and back to the
 * callback. Every response any page of the browser saw (headers and body) is recorded, for the planted-secret grep.
 */
import { type Browser, type BrowserContext, type Page, type Response } from 'playwright-core';
import { launchChromium } from './page-browser.js';

/** One Chromium for a test file, recording what it saw. */
export interface OAuthBrowser {
  /** A fresh context (its own cookies) signed in to the demo app at `appUrl` as `user` (none: not signed in). */
  open(appUrl: string, user?: string): Promise<Page>;
  /**
   * Every response the browser received so far, as one string each: URL, status, headers and body (redirects
   * and bodies the browser could not read: headers only). Waits for the recordings still being read.
   */
  seen(): Promise<string[]>;
  close(): Promise<void>;
}

/** Launches Chromium; a missing Chromium fails (CI installs it: `apt-get install -y chromium`). */
export async function launchOAuthBrowser(): Promise<OAuthBrowser> {
  const browser: Browser = await launchChromium();
  const recorded: string[] = [];
  const reading = new Set<Promise<void>>();
  const contexts: BrowserContext[] = [];
  const record = (response: Response) => {
    const read = (async () => {
      const headers = await response.allHeaders().catch(() => response.headers());
      const body = await response.text().catch(() => '');
      recorded.push(`${response.status()} ${response.url()}\n${JSON.stringify(headers)}\n${body}`);
    })();
    reading.add(read);
    void read.finally(() => reading.delete(read));
  };
  const settle = async () => {
    while (reading.size > 0) await Promise.allSettled([...reading]);
  };
  return {
    async open(appUrl, user) {
      const context = await browser.newContext({ viewport: { width: 900, height: 900 } });
      contexts.push(context);
      // A control that is not there fails the step in seconds, not at the test's timeout.
      context.setDefaultTimeout(10_000);
      context.on('response', record);
      const page = await context.newPage();
      if (user !== undefined) {
        const login = await page.goto(`${appUrl}/demo/login?user=${encodeURIComponent(user)}`);
        if (login?.status() !== 200) throw new Error(`demo sign-in as ${user} answered ${login?.status()}`);
      }
      return page;
    },
    async seen() {
      await settle();
      return [...recorded];
    },
    async close() {
      await settle();
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser.close();
    },
  };
}

/** Clicks `selector` and waits for the main frame's next document (after any redirects) to be parsed. */
export async function clickAndLoad(page: Page, selector: string): Promise<void> {
  await Promise.all([page.waitForEvent('framenavigated', { predicate: (frame) => frame === page.mainFrame() }), page.click(selector)]);
  await page.waitForLoadState('domcontentloaded');
}

/** The text of the page's `main` (the module's pages) or `body`, whitespace collapsed. */
export async function pageText(page: Page): Promise<string> {
  const main = await page.locator('main').count();
  return ((await page.textContent(main > 0 ? 'main' : 'body')) ?? '').replace(/\s+/g, ' ').trim();
}

/** Whether the page is at the provider: under its issuer URL (it may share the app's origin, mounted in it). */
export const atProvider = (page: Page, issuer: string): boolean => page.url().startsWith(`${issuer}/`);

/** The callback every provider sends the browser back to, on the app at `appUrl`'s origin. */
export const callbackUrlOf = (appUrl: string): string => `${new URL(appUrl).origin}/elicit/oauth/callback`;

/**
 * Opens the module's `oauth` page (signed-in context) and presses Continue: the browser is at the provider after,
 * or already back at the callback (the provider's session and an earlier consent need no page of it).
 */
export async function continueToProvider(page: Page, pageUrl: string, issuer: string): Promise<void> {
  const opened = await page.goto(pageUrl);
  if (opened?.status() !== 200) throw new Error(`the oauth page ${pageUrl} answered ${opened?.status()}`);
  await clickAndLoad(page, 'button[value=continue]');
  if (!atProvider(page, issuer) && !page.url().startsWith(`${callbackUrlOf(pageUrl)}?`)) {
    throw new Error(`Continue led to ${page.url()}, neither the provider nor the callback: ${await pageText(page)}`);
  }
}

/**
 * Goes through the provider's development interactions until the browser leaves the provider: the login form
 * (under `issuer`; `login` typed as the account, any password) and the consent page, each when it is shown (a provider session
 * and an earlier consent skip them). `before` runs before each submit (the page and which step it is).
 */
export async function passProvider(
  page: Page,
  issuer: string,
  login: string,
  before?: (step: 'login' | 'consent') => void | Promise<void>,
  /** Ends the walk early (a test that took the redirect out of the browser). */
  done: () => boolean = () => false,
): Promise<void> {
  for (let step = 0; step < 6 && atProvider(page, issuer) && !done(); step++) {
    if ((await page.locator('input[name=login]').count()) > 0) {
      await page.fill('input[name=login]', login);
      await page.fill('input[name=password]', 'any password');
      await before?.('login');
    } else {
      await before?.('consent');
    }
    await clickAndLoad(page, 'button[type=submit]');
  }
  if (atProvider(page, issuer) && !done()) throw new Error(`still at the provider after six steps: ${page.url()}`);
}

/** What the callback answered: the URL the provider sent the browser to, the HTTP status, the text of the page. */
export interface CallbackOutcome {
  url: URL;
  status: number;
  text: string;
}

/**
 * The whole connect in the browser: the oauth page, Continue, the provider (login as `login`, consent), and the
 * callback's answer (a response to `/elicit/oauth/callback` on the page's origin).
 */
export async function connectAccount(
  page: Page,
  pageUrl: string,
  issuer: string,
  login: string,
  before?: (step: 'login' | 'consent') => void | Promise<void>,
): Promise<CallbackOutcome> {
  const callback = callbackUrlOf(pageUrl);
  const answered = page.waitForResponse((r) => r.url().startsWith(`${callback}?`) && r.request().method() === 'GET', { timeout: 20_000 });
  // Awaited below; a step failing first must not leave it rejecting unhandled.
  answered.catch(() => undefined);
  await continueToProvider(page, pageUrl, issuer);
  await passProvider(page, issuer, login, before);
  const response = await answered;
  return { url: new URL(response.url()), status: response.status(), text: await pageText(page) };
}
