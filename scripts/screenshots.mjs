/**
 * Screenshots of the pages for people (#16), for the "Pages" guide (docs/pages.md): `npm run screenshots`
 * (builds the demo, then runs this). Starts the demo app from dist-demo on a free port, creates one elicitation
 * for each page, renders each in Chromium (/usr/bin/chromium via playwright-core) in four variants and writes
 * docs/screenshots/<page>-<variant>.png (same names every run; overwritten), then stops the app.
 *
 * Pages: api-key, confirm (with a warning), form (the hosted form), form-errors (after an invalid post),
 * oauth, file, done, error-404, inbox (a user's open questions), passkeys (the passkey page), confirm-passkey (a
 * confirm page that asks for a passkey). Variants: light (en), dark (en), phone (360×740, en), ar (Arabic, right to
 * left, light). The passkey pages come from a second demo on localhost: the demo offers passkeys on a domain name only,
 * where browsers make them (the first, on 127.0.0.1 as `npm start` runs it, shows the pages without the passkey link).
 */
/* global document */ // in page.evaluate callbacks, which run in the browser
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const demoApp = join(root, 'dist-demo/examples/demo/demo-app.js');
if (!existsSync(demoApp)) throw new Error(`${demoApp} is missing: run "npm run build:demo" first (npm run screenshots does).`);
const CHROMIUM = '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} does not exist: install it with "apt-get install -y chromium".`);

const { startDemoApp } = await import(demoApp);
const { ElicitationService, ElicitationStore } = await import(join(root, 'dist-demo/src/index.js'));
const { profileForm } = await import(join(root, 'dist-demo/examples/demo/profile-form.js'));

const OUT = join(root, 'docs/screenshots');
const USER = 'alice';
/** The user of the inbox and passkey pages: their own questions and passkeys only, not the many of USER's above. */
const CAROL = 'carol';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

const VARIANTS = {
  light: { locale: 'en', colorScheme: 'light', viewport: { width: 800, height: 600 } },
  dark: { locale: 'en', colorScheme: 'dark', viewport: { width: 800, height: 600 } },
  phone: { locale: 'en', colorScheme: 'light', viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true },
  ar: { locale: 'ar', colorScheme: 'light', viewport: { width: 800, height: 600 } },
};

/** Clicks the primary button and waits for the page the post answers with; returns its status. */
async function post(page) {
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST' && r.request().resourceType() === 'document'),
    page.locator('button.primary').click(),
  ]);
  await page.waitForLoadState('domcontentloaded');
  return response.status();
}

async function open(page, url, status = 200) {
  const response = await page.goto(url);
  if (response?.status() !== status) throw new Error(`${url} answered ${response?.status()}, expected ${status}`);
}

mkdirSync(OUT, { recursive: true });
const demo = await startDemoApp({ port: 0, logger: false, throttleLimit: 10_000, createPerMinute: 10_000 });
const withPasskeys = await startDemoApp({ host: 'localhost', port: 0, logger: false });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
const written = [];
try {
  const service = demo.app.get(ElicitationService);
  const create = (input) => service.createUrlElicitation({ userId: USER, ...input });
  const apiKey = () =>
    create({
      kind: 'api-key',
      type: 'api-key-github',
      message: 'Enter your github API key so the assistant can connect to github for you.',
    });
  const form = () => create({ kind: 'form', form: profileForm, message: 'Set up your profile' });
  /** Carol's questions for her inbox, and her passkey (as the passkey page keeps one: its public key is not shown). */
  const asCarol = (page, app) => page.context().addCookies([{ name: 'demo_user', value: CAROL, url: app.url }]);
  await service.createUrlElicitation({ userId: CAROL, kind: 'confirm', message: 'Deploy shop to production?' });
  await service.createUrlElicitation({
    userId: CAROL,
    kind: 'api-key',
    message: 'Enter your github API key so the assistant can connect.',
  });
  await withPasskeys.app.get(ElicitationStore).addPasskey(
    {
      id: 'c2NyZWVuc2hvdC1wYXNza2V5',
      userId: CAROL,
      publicKey: 'cHVibGljLWtleQ',
      counter: 0,
      transports: ['internal'],
      name: 'Laptop (added 2026-12-03)',
      createdAt: Date.parse('2026-12-03T09:00:00Z'),
    },
    10,
  );

  /** Each page: brings a fresh page to the state to show. */
  const PAGES = {
    'api-key': async (page) => open(page, (await apiKey()).url),
    confirm: async (page) =>
      open(
        page,
        (
          await create({
            kind: 'confirm',
            type: 'deploy-approval',
            message: 'Deploy shop to production?',
            metadata: {
              title: 'Deploy shop',
              warning: 'This replaces the version running now.',
              confirmLabel: 'Deploy',
              cancelLabel: 'Cancel',
            },
          })
        ).url,
      ),
    form: async (page) => open(page, (await form()).url),
    'form-errors': async (page) => {
      await open(page, (await form()).url);
      // A post the server refuses (the browser's own checks off, as a client without them): the error summary.
      await page.evaluate(() => document.querySelectorAll('form').forEach((f) => (f.noValidate = true)));
      await page.locator('[name=email]').fill('not-an-address');
      if ((await post(page)) !== 400) throw new Error('the invalid hosted form post was not refused with 400');
      await page.evaluate(() => document.activeElement?.blur());
    },
    oauth: async (page) =>
      open(
        page,
        (
          await create({
            kind: 'oauth',
            provider: 'demo',
            message: 'Connect your account at the demo provider so the assistant can use it for you.',
          })
        ).url,
      ),
    file: async (page) =>
      open(
        page,
        (
          await create({
            kind: 'file',
            accept: ['application/pdf', 'image/*'],
            maxBytes: 2 * 1024 * 1024,
            message: 'Upload the signed contract (PDF) or a photo of it.',
          })
        ).url,
      ),
    done: async (page) => {
      await open(page, (await apiKey()).url);
      await page.locator('#apiKey').fill('ghp_screenshot-0123456789');
      if ((await post(page)) !== 200) throw new Error('the api-key post did not answer 200');
    },
    'error-404': async (page) => open(page, `${demo.url}/elicit/00000000-0000-4000-8000-000000000000/api-key`, 404),
    inbox: async (page) => {
      await asCarol(page, demo);
      await open(page, `${demo.url}/elicit/inbox`);
    },
    passkeys: async (page) => {
      await asCarol(page, withPasskeys);
      await open(page, `${withPasskeys.url}/elicit/passkeys`);
    },
    'confirm-passkey': async (page) => {
      await asCarol(page, withPasskeys);
      const { url } = await withPasskeys.app.get(ElicitationService).createUrlElicitation({
        userId: CAROL,
        kind: 'confirm',
        presence: 'passkey',
        action: { tool: 'transfer-funds', args: { to: 'acme-supplies', amount: 2500, currency: 'EUR' } },
        message: 'Transfer 2,500 EUR to acme-supplies?',
      });
      await open(page, url);
    },
  };

  for (const [name, show] of Object.entries(PAGES)) {
    for (const [variant, options] of Object.entries(VARIANTS)) {
      const context = await browser.newContext({ ...options, reducedMotion: 'reduce' });
      try {
        context.setDefaultTimeout(10_000);
        await context.addCookies([{ name: 'demo_user', value: USER, url: demo.url }]);
        const page = await context.newPage();
        await show(page);
        // The buttons stick to the bottom of the window: a window as tall as the page shows them under the form,
        // where a person scrolling down finds them (a full-page capture of a short window would float them mid-page).
        for (let i = 0; i < 3; i++) {
          const height = await page.evaluate(() => document.documentElement.scrollHeight);
          if (height <= page.viewportSize().height) break;
          await page.setViewportSize({ width: options.viewport.width, height });
        }
        const file = join(OUT, `${name}-${variant}.png`);
        await page.screenshot({ path: file, fullPage: true, animations: 'disabled', caret: 'hide' });
        written.push(relative(root, file));
      } finally {
        await context.close();
      }
    }
  }
} finally {
  await browser.close();
  await withPasskeys.app.close();
  await demo.app.close();
}
console.log(`Wrote ${written.length} screenshots:\n${written.map((f) => `  ${f}`).join('\n')}`);
