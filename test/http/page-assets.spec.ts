/**
 * `PageAssets`: the pages' stylesheet and script, named by a fingerprint of their content, found where the pages
 * look for them (the base URL's path, the route prefix), and replaced by a `templatesDir` holding its own.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { builtInTemplatesDir, PageAssets } from '../../src/http/page-assets.js';
import { TemplateRenderer } from '../../src/http/template-renderer.js';
import { PageCatalogs } from '../../src/messages/locales.js';
import { PAGE_MESSAGES } from '../../src/messages/default-messages.js';
import type { ResolvedElicitationOptions } from '../../src/options/resolved-options.js';

const options = (extra: Partial<ResolvedElicitationOptions> = {}) =>
  ({
    title: 'Acme',
    primaryColor: '#2563eb',
    baseUrl: 'http://localhost:3000',
    routePrefix: 'elicit',
    ...extra,
  }) as ResolvedElicitationOptions;

describe('PageAssets', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('serves the built-in page.css and page.js under names that carry a fingerprint of their bytes', () => {
    const assets = new PageAssets(options());
    expect(assets.style.body).toBe(readFileSync(join(builtInTemplatesDir(), 'page.css'), 'utf8'));
    expect(assets.script.body).toBe(readFileSync(join(builtInTemplatesDir(), 'page.js'), 'utf8'));
    expect(assets.urls.style).toMatch(/^\/elicit\/assets\/page\.[0-9a-f]{12}\.css$/);
    expect(assets.urls.script).toMatch(/^\/elicit\/assets\/page\.[0-9a-f]{12}\.js$/);
    expect(assets.find(assets.style.name)).toBe(assets.style);
    expect(assets.find(assets.script.name)).toBe(assets.script);
    expect(assets.find('page.css')).toBeUndefined();
    expect(assets.find('../page.css')).toBeUndefined();
  });

  it("are found under the base URL's path and the route prefix, as the pages are", () => {
    const assets = new PageAssets(options({ baseUrl: 'https://example.com/tools/', routePrefix: 'ask' }));
    expect(assets.urls.style).toMatch(/^\/tools\/ask\/assets\/page\.[0-9a-f]{12}\.css$/);
  });

  it('a templatesDir with its own page.css replaces the stylesheet (a new name), and the pages load that one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'elicitation-assets-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'page.css'), 'body { color: rebeccapurple; }\n');
    const builtIn = new PageAssets(options());
    const custom = new PageAssets(options({ templatesDir: dir }));
    expect(custom.style.body).toBe('body { color: rebeccapurple; }\n');
    expect(custom.style.name).not.toBe(builtIn.style.name);
    expect(custom.script.name).toBe(builtIn.script.name);
    const html = new TemplateRenderer(options({ templatesDir: dir }), custom).render(
      'done',
      { heading: 'Done', text: 'Thanks', message: 'Key', labels: PAGE_MESSAGES.labels },
      'n0nce',
      { locale: new PageCatalogs().defaultLocale },
    );
    expect(html).toContain(`<link rel="stylesheet" nonce="n0nce" href="${custom.urls.style}">`);
    expect(html).toContain(`<script nonce="n0nce" src="${custom.urls.script}" defer></script>`);
  });
});
