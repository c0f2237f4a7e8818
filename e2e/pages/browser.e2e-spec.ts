/**
 * The api-key flow end to end in a real browser (Debian Chromium driven by playwright-core):
 * a real MCP SDK client gets -32042 from `connect-service`, the browser signs in to the demo,
 * opens the elicitation URL, types a key and submits; the client then receives
 * `notifications/elicitation/complete` and its retry succeeds.
 *
 * Needs /usr/bin/chromium (`apt-get install -y chromium`). Without it the test is skipped with a
 * console message, unless REQUIRE_CHROMIUM=1 (as in CI), where it fails instead.
 */
import { afterAll, describe, expect } from '@jest/globals';
import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { type Browser } from 'playwright-core';
import { startDemoApp, type DemoApp } from '../../examples/demo/demo-app.js';
import { connectClient, type TestClient } from '../support/mcp-client.js';
import { browserIt, launchChromium } from '../support/page-browser.js';

const SCREENSHOT = '/tmp/api-key-page.png';
const API_KEY = 'ghp_browser-e2e-0123456789';
const MESSAGE = 'Enter your github API key so the assistant can connect to github for you.';

/** Runs the test when Chromium is there or required (then a missing Chromium fails it); skips it otherwise. */
const chromiumIt = browserIt('the browser e2e test');

describe('api-key elicitation in a real browser (Chromium)', () => {
  let demo: DemoApp | undefined;
  let mcp: TestClient | undefined;
  let browser: Browser | undefined;

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    await mcp?.close().catch(() => undefined);
    await demo?.app.close();
  });

  chromiumIt(
    'signs in, opens the elicitation URL, submits a key; the client is notified and its retry connects',
    async () => {
      demo = await startDemoApp({ port: 0, logger: false });

      // --- The MCP side: a real SDK client that declares form and URL elicitation, recording completions. ---
      mcp = await connectClient(demo.mcpUrl, { user: 'alice', elicitation: { form: {}, url: {} } });
      const client = mcp.client;

      const firstCall = await client.callTool({ name: 'connect-service', arguments: { service: 'github' } }).then(
        (result) => ({ rejected: false as const, result }),
        (error: unknown) => ({ rejected: true as const, error }),
      );
      expect(firstCall.rejected).toBe(true);
      const required = (firstCall as { error: unknown }).error;
      expect(required).toBeInstanceOf(UrlElicitationRequiredError);
      const elicitations = (required as UrlElicitationRequiredError).elicitations;
      expect(elicitations).toHaveLength(1);
      const { url: elicitationUrl, elicitationId, message, mode } = elicitations[0];
      expect(mode).toBe('url');
      expect(message).toBe(MESSAGE);
      expect(elicitationUrl).toBe(`${demo.url}/elicit/${elicitationId}/api-key`);

      // --- The browser side. ---
      browser = await launchChromium();
      const context = await browser.newContext({ viewport: { width: 900, height: 700 } });
      const page = await context.newPage();
      const consoleErrors: string[] = [];
      page.on('console', (msg) => {
        // The browser's own favicon request 404s (the demo serves none): not a page error.
        if (msg.type() === 'error' && !msg.location().url.endsWith('/favicon.ico')) {
          consoleErrors.push(`${msg.text()} (${msg.location().url})`);
        }
      });
      page.on('pageerror', (error) => consoleErrors.push(error.message));

      const login = await page.goto(`${demo.url}/demo/login?user=alice`);
      expect(login?.status()).toBe(200);
      expect(await page.textContent('body')).toContain('Signed in as alice');
      expect((await context.cookies(demo.url)).find((c) => c.name === 'demo_user')?.value).toBe('alice');

      const opened = await page.goto(elicitationUrl);
      expect(opened?.status()).toBe(200);
      expect(await page.locator('h1').textContent()).toBe('An API key is needed');
      expect(await page.locator('p.message').textContent()).toBe(MESSAGE);
      expect(await page.title()).toBe('An API key is needed · nestjs-mcp-elicitation demo');

      const keyInput = page.getByLabel('API key', { exact: true });
      expect(await keyInput.count()).toBe(1);
      expect(await keyInput.getAttribute('type')).toBe('password');
      expect(await keyInput.inputValue()).toBe('');
      // The shared stylesheet and the inline theme colour were applied under the page's CSP, and the shared script
      // loaded (only a real browser shows this; a refused one would be a console error, checked below).
      const submit = page.getByRole('button', { name: 'Submit', exact: true });
      expect(await submit.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(37, 99, 235)');
      const loaded = await page.evaluate(() => performance.getEntriesByType('resource').map((entry) => new URL(entry.name).pathname));
      expect(loaded).toEqual(
        expect.arrayContaining([expect.stringMatching(/^\/elicit\/assets\/page\.[0-9a-f]{12}\.css$/), expect.stringMatching(/\.js$/)]),
      );
      await page.screenshot({ path: SCREENSHOT, fullPage: true });

      await keyInput.fill(API_KEY);
      const [posted] = await Promise.all([
        page.waitForResponse((r) => r.url() === elicitationUrl && r.request().method() === 'POST'),
        submit.click(),
      ]);
      expect(posted.status()).toBe(200);
      expect(posted.request().postData()).toContain('action=submit');
      await page.getByText('You can close this window').waitFor();
      const done = (await page.textContent('main')) ?? '';
      expect(done).toContain('Done');
      expect(done).toContain('The API key was received');
      expect(done).toContain('You can close this window');
      expect(done).not.toContain(API_KEY);
      expect(consoleErrors).toEqual([]);

      // --- Back on the MCP side: the completion notification, then the retry succeeds. ---
      await mcp.completion(elicitationId, 10_000);
      expect(mcp.completed).toEqual([elicitationId]);

      const retry = await client.callTool({ name: 'connect-service', arguments: { service: 'github' } });
      expect(retry.isError).toBeFalsy();
      expect(retry.content).toEqual([{ type: 'text', text: 'Connected to github' }]);

      // Reopening the answered link shows the "already answered" page, not the form.
      const again = await page.goto(elicitationUrl);
      expect(again?.status()).toBe(409);
      expect(await page.getByLabel('API key', { exact: true }).count()).toBe(0);
    },
    60_000,
  );
});
