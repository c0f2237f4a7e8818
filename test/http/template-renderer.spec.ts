/**
 * `TemplateRenderer` keeps rendered pages with marks where the CSRF token and the nonce go: a kept page must be
 * what a fresh render makes. Only the built-in templates' pages are kept; a custom template may do more with the
 * token or the nonce than print them.
 */
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import type { ResolvedElicitationOptions } from '../../src/options/elicitation-options.interface.js';
import { builtInTemplatesDir, TemplateRenderer, type PageContexts } from '../../src/http/template-renderer.js';
import { PAGE_MESSAGES } from '../../src/messages/default-messages.js';
import { PageCatalogs } from '../../src/messages/locales.js';
import type { PageFrame } from '../../src/http/template-renderer.js';

/** Every page in the default locale, English. */
const FRAME = { locale: new PageCatalogs().defaultLocale };

const options = (templatesDir?: string) => ({ title: 'Acme', primaryColor: '#2563eb', templatesDir }) as ResolvedElicitationOptions;

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
