/**
 * Connecting an account as a person does, in a real Chromium: signed in to the demo as `user` (its
 * `/demo/login?user=`), the module's `oauth` page is opened, Continue leads to the provider, where the stock
 * development login (any name) and consent pages of `oidc-provider` are filled in, and the provider sends the
 * browser back to the module's callback, whose page is read. Each connection runs in a fresh browser context
 * (its own cookies: no provider session carried over from an earlier connection).
 */
import { type Browser } from 'playwright-core';
import { launchChromium } from './page-browser.js';

/** What the browser saw at the end of the flow. */
export interface ConnectedPage {
  /** The URL the provider sent the browser back to (the callback, with `code` and `state`). */
  callbackUrl: string;
  /** The callback's HTTP status. */
  status: number;
  /** The text of the page the callback answered. */
  text: string;
}

/** One Chromium for a test file. */
export interface OAuthConnectBrowser {
  /**
   * Opens `pageUrl` (an `oauth` page) signed in to the demo as `user`, continues to the provider, signs in there
   * as `providerLogin` (the account's subject) and consents; resolves what the callback answered.
   */
  connect(pageUrl: string, user: string, providerLogin: string): Promise<ConnectedPage>;
  close(): Promise<void>;
}

/** Launches Chromium (throws naming the install command when it is missing: the tests fail, never skip). */
export async function launchOAuthConnectBrowser(): Promise<OAuthConnectBrowser> {
  const browser: Browser = await launchChromium();
  return {
    async connect(pageUrl, user, providerLogin) {
      const context = await browser.newContext();
      try {
        // A control that is not there fails the step in seconds, not at the test's timeout.
        context.setDefaultTimeout(10_000);
        context.setDefaultNavigationTimeout(10_000);
        const page = await context.newPage();
        const origin = new URL(pageUrl).origin;

        const login = await page.goto(`${origin}/demo/login?user=${encodeURIComponent(user)}`, { waitUntil: 'domcontentloaded' });
        if (login?.status() !== 200) throw new Error(`demo sign-in as ${user} answered ${login?.status()}`);
        const shown = await page.goto(pageUrl, { waitUntil: 'domcontentloaded' });
        if (shown?.status() !== 200) throw new Error(`the oauth page ${pageUrl} answered ${shown?.status()}`);

        const callback = page.waitForResponse((r) => new URL(r.url()).pathname.endsWith('/oauth/callback'), { timeout: 20_000 });
        // Swallowed here, awaited below: a failure before it is reached must not leave it unhandled.
        callback.catch(() => undefined);
        await page.locator('button[value=continue]').click();

        // The provider's development login: any name (it becomes the subject), any password.
        await page.locator('input[name=prompt][value=login]').waitFor({ state: 'attached' });
        await page.locator('input[name=login]').fill(providerLogin);
        await page.locator('input[name=password]').fill('any-password');
        await page.locator('button[type=submit]').click();
        // Its consent page.
        await page.locator('input[name=prompt][value=consent]').waitFor({ state: 'attached' });
        await page.locator('button[type=submit]').click();

        const answered = await callback;
        await page.waitForLoadState('domcontentloaded');
        const text = ((await page.textContent('body')) ?? '').replace(/\s+/g, ' ').trim();
        return { callbackUrl: answered.url(), status: answered.status(), text };
      } finally {
        await context.close();
      }
    },
    close: () => browser.close(),
  };
}
