/**
 * `TemplateRenderer` keeps rendered pages with marks where the CSRF token and the nonce go: a kept page must be
 * what a fresh render makes. Only the built-in templates' pages are kept; a custom template may do more with the
 * token or the nonce than print them.
 */
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import type { ResolvedElicitationOptions } from '../../src/options/resolved-options.js';
import { resolveElicitationOptions } from '../../src/options/elicitation-options.validation.js';
import { ElicitationConfigError } from '../../src/errors/elicitation-config.error.js';
import { EN_MESSAGES } from '../../src/messages/catalogs/en.js';
import { builtInTemplatesDir, TemplateRenderer } from '../../src/http/template-renderer.js';
import type { PageContexts } from '../../src/http/page-contexts.js';
import { PAGE_MESSAGES } from '../../src/messages/default-messages.js';
import { PageCatalogs } from '../../src/messages/locales.js';
import type { PageFrame } from '../../src/http/page-contexts.js';

/** Every page in the default locale, English. */
const FRAME = { locale: new PageCatalogs().defaultLocale };

const options = (templatesDir?: string) =>
  ({
    title: 'Acme',
    primaryColor: '#2563eb',
    templatesDir,
    baseUrl: 'http://localhost:3000',
    routePrefix: 'elicit',
  }) as ResolvedElicitationOptions;

const apiKey = (message: string, csrf: string): PageContexts['api-key'] => ({
  heading: PAGE_MESSAGES.headings.apiKey,
  message,
  maxLength: 4096,
  error: null,
  csrf,
  labels: PAGE_MESSAGES.labels,
});

/** A renderer that never keeps a page: the reference. */
class FreshRenderer extends TemplateRenderer {
  override render<N extends Parameters<TemplateRenderer['render']>[0]>(
    name: N,
    context: PageContexts[N],
    nonce: string,
    frame: PageFrame,
  ): string {
    // A context with an object the cache cannot key by is rendered every time.
    return super.render(name, { ...context, unkeyable: {} }, nonce, frame);
  }
}

describe('kept pages', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('are what a fresh render makes, with this render token and nonce, for every built-in page', () => {
    const kept = new TemplateRenderer(options());
    const fresh = new FreshRenderer(options());
    for (let i = 0; i < 3; i++) {
      const nonce = `nonce${i}`;
      for (const message of ['Enter your key', 'Enter your <key> & "more"', 'Other\nlines']) {
        expect(kept.render('api-key', apiKey(message, `k.token${i}`), nonce, FRAME)).toBe(
          fresh.render('api-key', apiKey(message, `k.token${i}`), nonce, FRAME),
        );
        const confirm: PageContexts['confirm'] = {
          ...apiKey(message, `k.token${i}`),
          warning: i === 1 ? null : 'Careful',
          confirmLabel: 'Yes',
          cancelLabel: 'No',
        };
        expect(kept.render('confirm', confirm, nonce, FRAME)).toBe(fresh.render('confirm', confirm, nonce, FRAME));
        const done = { heading: PAGE_MESSAGES.headings.done, text: 'Received', message, labels: PAGE_MESSAGES.labels };
        expect(kept.render('done', done, nonce, FRAME)).toBe(fresh.render('done', done, nonce, FRAME));
      }
    }
    const page = kept.render('api-key', apiKey('Enter your key', 'k.abc'), 'n0nce', FRAME);
    expect(page).toContain('k.abc');
    expect(page).toContain('n0nce');
    expect(page).not.toContain('\u0000');
  });

  it('hold nothing of one elicitation: its expiry instant and "Need more time?" action and token are filled per render', () => {
    const kept = new TemplateRenderer(options());
    const fresh = new FreshRenderer(options());
    /** The expiry line of elicitation `id`, expiring at `iso`: the same minute, hint and texts for every one. */
    const frame = (id: string, iso: string, token: string): PageFrame => ({
      ...FRAME,
      expiry: {
        before: 'This request expires ',
        relative: 'in 2 hours',
        after: ' (Nov 27, 2026, 08:25 UTC).',
        absolute: 'Nov 27, 2026, 08:25 UTC',
        iso,
        soon: 'Soon',
        expired: 'Expired',
        extend: { action: `/elicit/${id}/confirm/extend`, hint: 'Adds 10 minutes.', csrf: token },
        extended: null,
      },
    });
    const pages = [
      { id: 'aaaaaaaa-0000-4000-8000-000000000001', iso: '2026-11-27T08:25:10.000Z', token: 'k.alice' },
      { id: 'bbbbbbbb-0000-4000-8000-000000000002', iso: '2026-11-27T08:25:40.123Z', token: 'k.bob' },
      { id: 'aaaaaaaa-0000-4000-8000-000000000001', iso: '2026-11-27T08:25:10.000Z', token: 'k.alice2' },
    ];
    for (const { id, iso, token } of pages) {
      const context = apiKey('Deploy shop?', token);
      const html = kept.render('api-key', context, `n-${token}`, frame(id, iso, token));
      expect(html).toBe(fresh.render('api-key', context, `n-${token}`, frame(id, iso, token)));
      expect(html).toContain(`action="/elicit/${id}/confirm/extend"`);
      expect(html).toContain(`data-expires-at="${iso}"`);
      expect(html).toContain(`<time datetime="${iso}">`);
      for (const other of pages.filter((p) => p.id !== id)) {
        expect(html).not.toContain(other.id);
        expect(html).not.toContain(other.iso);
      }
    }
  });

  it('are not kept with a custom template, which may do more with the token than print it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'templates-'));
    dirs.push(dir);
    const builtIn = readFileSync(join(builtInTemplatesDir(), 'api-key.hbs'), 'utf8');
    // The token, then its first character: a kept page would show the mark's every time.
    writeFileSync(join(dir, 'api-key.hbs'), builtIn.replace('{{csrf}}', '{{csrf}}{{lookup csrf 0}}'));
    const kept = new TemplateRenderer(options(dir));
    const fresh = new FreshRenderer(options(dir));
    for (const token of ['k.first', 'k.second', 'x.third']) {
      const html = kept.render('api-key', apiKey('Enter your key', token), 'n', FRAME);
      expect(html).toBe(fresh.render('api-key', apiKey('Enter your key', token), 'n', FRAME));
      expect(html).toContain(`${token}${token[0]}`);
    }
  });
});

describe('templatesDir', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const dirWith = (name: string, source: string): string => {
    const dir = mkdtempSync(join(tmpdir(), 'elicitation-templates-'));
    dirs.push(dir);
    writeFileSync(join(dir, `${name}.hbs`), source);
    return dir;
  };
  const resolved = (templatesDir: string) =>
    resolveElicitationOptions(
      { baseUrl: 'https://mcp.example.com', resolvePageUser: () => 'u', encryptionKey: Buffer.alloc(32, 7), templatesDir },
      'elicit',
      { NODE_ENV: 'development' },
    ).options;
  const frame = { locale: new PageCatalogs().defaultLocale };

  it('uses an overridden template, and the built-in ones for the rest', () => {
    const done = readFileSync(join(builtInTemplatesDir(), 'done.hbs'), 'utf8').replace('<p>{{text}}</p>', '<p class="mine">{{text}}</p>');
    const renderer = new TemplateRenderer(resolved(dirWith('done', done)));
    const html = renderer.render('done', { heading: 'Done', text: 'All good', message: 'm', labels: EN_MESSAGES.labels }, 'n', frame);
    expect(html).toContain('<p class="mine">All good</p>');
    expect(html).toContain('<html lang="en" dir="ltr">');
  });

  it('fails start-up naming a template that does not compile', () => {
    const dir = dirWith('confirm', '{{#> layout}}<p>{{#if warning}}unclosed</p>{{/layout}}');
    expect(() => new TemplateRenderer(resolved(dir))).toThrow(ElicitationConfigError);
    expect(() => new TemplateRenderer(resolved(dir))).toThrow(/confirm\.hbs/);
  });
});
