import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { resolveElicitationOptions } from '../../src/options/elicitation-options.validation.js';
import { ElicitationConfigError } from '../../src/errors/elicitation-config.error.js';
import type { FieldRule } from '../../src/core/form-rules.js';
import { builtInTemplatesDir, TemplateRenderer } from '../../src/http/template-renderer.js';
import { BUILT_IN_CATALOGS, PageCatalogs, canonicalLocale, directionOf } from '../../src/messages/locales.js';
import type { PageMessages } from '../../src/messages/page-messages.js';
import { EN_MESSAGES } from '../../src/messages/catalogs/en.js';
import { contrastRatio, rgbOf, textColorOn } from '../../src/theme/accent-contrast.js';

const KEY = Buffer.alloc(32, 7);
const DEV: NodeJS.ProcessEnv = { NODE_ENV: 'development' };
const base = { baseUrl: 'https://mcp.example.com', resolvePageUser: () => 'u', encryptionKey: KEY };

/** Every path of a catalog down to its texts and functions, with the kind at each (`string` or `function`). */
function shape(value: unknown, path = ''): Map<string, string> {
  const out = new Map<string, string>();
  if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) for (const [p, kind] of shape(inner, `${path}.${key}`)) out.set(p, kind);
  } else {
    out.set(path, typeof value);
  }
  return out;
}

/** Calls every function of a catalog with sample arguments: each must give a non-empty text. */
function sampleTexts(catalog: PageMessages): string[] {
  const rules: FieldRule[] = [
    { code: 'required' },
    { code: 'minimum', limit: 2 },
    { code: 'max-length', limit: 1 },
    { code: 'max-length', limit: 5 },
    { code: 'format', format: 'email' },
    { code: 'format', format: 'date-time' },
    { code: 'min-items', limit: 1 },
    { code: 'unknown-field' },
  ];
  return [
    catalog.headings.finished('completed'),
    catalog.headings.finished('expired'),
    catalog.done.accountConnected('GitHub'),
    catalog.apiKey.tooLong(4096),
    catalog.oauth.heading('GitHub'),
    catalog.oauth.providerError('GitHub', 'server_error'),
    catalog.form.summary(1, 1),
    catalog.form.summary(3, 2),
    catalog.form.declinedAfter(3),
    catalog.form.fieldError('Name', 'x'),
    catalog.time.expiresAt('in 5 minutes', 'Nov 24, 2026'),
    catalog.time.extendHint(1),
    catalog.time.extendHint(10),
    catalog.file.tooLarge('5 MB'),
    catalog.file.wrongType('PDF'),
    catalog.errors.throttled(30),
    catalog.errors.statusLine(404),
    ...rules.map((rule) => catalog.validation.problem(rule)),
  ];
}

describe('the built-in catalogs', () => {
  const english = shape(EN_MESSAGES);

  it.each(Object.keys(BUILT_IN_CATALOGS))('%s has every key of the English catalog, each of the same kind, and no other', (locale) => {
    const catalog = shape(BUILT_IN_CATALOGS[locale]);
    const missing = [...english].filter(([path, kind]) => catalog.get(path) !== kind && !path.startsWith('.headings.byStatus'));
    const extra = [...catalog.keys()].filter((path) => !english.has(path));
    expect({ missing, extra }).toEqual({ missing: [], extra: [] });
    // Every status the English error page names has a heading in this language too.
    expect(Object.keys(BUILT_IN_CATALOGS[locale].headings.byStatus).sort()).toEqual(Object.keys(EN_MESSAGES.headings.byStatus).sort());
  });

  it.each(Object.keys(BUILT_IN_CATALOGS))('%s gives a text for every function, with the numbers it was given', (locale) => {
    const texts = sampleTexts(BUILT_IN_CATALOGS[locale]);
    for (const text of texts) expect(text.trim().length).toBeGreaterThan(0);
    expect(BUILT_IN_CATALOGS[locale].apiKey.tooLong(4096)).toContain('4096');
    expect(BUILT_IN_CATALOGS[locale].errors.statusLine(404)).toContain('404');
  });

  it('the German and Arabic catalogs are translations, not copies of the English one', () => {
    for (const locale of ['de', 'ar']) {
      const catalog = BUILT_IN_CATALOGS[locale];
      const same = [...shape(catalog)].filter(([path, kind]) => kind === 'string' && shape(EN_MESSAGES).get(path) === 'string');
      const copied = same.filter(([path]) => {
        const read = (c: PageMessages) =>
          path
            .split('.')
            .slice(1)
            .reduce<unknown>((v, k) => (v as Record<string, unknown>)[k], c);
        return read(catalog) === read(EN_MESSAGES);
      });
      expect(copied.map(([p]) => p)).toEqual([]);
    }
  });

  it('the English page problems are the validator’s own messages, with real plurals', () => {
    expect(EN_MESSAGES.validation.problem({ code: 'required' })).toBe('is required');
    expect(EN_MESSAGES.validation.problem({ code: 'max-length', limit: 3 })).toBe('must be at most 3 characters long');
    expect(EN_MESSAGES.validation.problem({ code: 'min-items', limit: 1 })).toBe('needs at least 1 option');
  });
});

describe('PageCatalogs', () => {
  const catalogs = new PageCatalogs();

  it('negotiates Accept-Language by q-value and order, falling back from a region to its language, then to the default', () => {
    expect(catalogs.negotiate('de-CH, en;q=0.8').locale).toBe('de');
    expect(catalogs.negotiate('fr-FR, fr;q=0.9, ar;q=0.5, en;q=0.4').locale).toBe('ar');
    expect(catalogs.negotiate('en;q=0.2, de;q=0.9').locale).toBe('de');
    expect(catalogs.negotiate('fr, it').locale).toBe('en');
    expect(catalogs.negotiate('de;q=0, *').locale).toBe('en');
    expect(catalogs.negotiate(undefined).locale).toBe('en');
    expect(catalogs.negotiate('not a tag!!, ;;;, q=').locale).toBe('en');
  });

  it('says which way each language is written', () => {
    expect(catalogs.negotiate('ar-EG').dir).toBe('rtl');
    expect(catalogs.negotiate('de').dir).toBe('ltr');
    expect(directionOf('he-IL')).toBe('rtl');
    expect(canonicalLocale('pt-br')).toBe('pt-BR');
    expect(canonicalLocale('x')).toBeUndefined();
  });

  it('lays `messages` over a built-in catalog text by text, and adds a locale that falls back to the default locale', () => {
    const custom = new PageCatalogs('de', {
      de: { labels: { submit: 'Senden' } },
      fr: { labels: { submit: 'Envoyer', cancel: 'Annuler' }, headings: { apiKey: 'Une clé API est nécessaire' } },
    });
    expect(custom.find('de')!.messages.labels.submit).toBe('Senden');
    expect(custom.find('de')!.messages.labels.cancel).toBe('Abbrechen');
    const french = custom.negotiate('fr-CA');
    expect(french.locale).toBe('fr');
    expect(french.messages.labels.submit).toBe('Envoyer');
    // What the French catalog leaves out comes from the default locale's (German) catalog.
    expect(french.messages.labels.closeWindow).toBe(BUILT_IN_CATALOGS.de.labels.closeWindow);
    expect(custom.negotiate('es').locale).toBe('de');
    // The built-in catalogs themselves are untouched.
    expect(BUILT_IN_CATALOGS.de.labels.submit).toBe('Absenden');
  });
});

describe('language options', () => {
  const fails = (options: object): ElicitationConfigError => {
    try {
      resolveElicitationOptions({ ...base, ...options }, 'elicit', DEV);
    } catch (error) {
      expect(error).toBeInstanceOf(ElicitationConfigError);
      return error as ElicitationConfigError;
    }
    throw new Error('expected start-up to fail');
  };

  it('defaults to English and accepts a built-in or added default locale', () => {
    expect(resolveElicitationOptions(base, 'elicit', DEV).options.defaultLocale).toBe('en');
    expect(resolveElicitationOptions({ ...base, defaultLocale: 'ar' }, 'elicit', DEV).options.defaultLocale).toBe('ar');
    expect(resolveElicitationOptions({ ...base, defaultLocale: 'de-AT' }, 'elicit', DEV).options.defaultLocale).toBe('de-AT');
    const fr = resolveElicitationOptions(
      { ...base, defaultLocale: 'fr', messages: { fr: { labels: { submit: 'Envoyer' } } } },
      'elicit',
      DEV,
    );
    expect(fr.options.defaultLocale).toBe('fr');
  });

  it('refuses, naming the option: an unknown default locale, a bad messages key, a text where a function goes, a bad hook', () => {
    expect(fails({ defaultLocale: 'fr' }).option).toBe('defaultLocale');
    expect(fails({ messages: { de: { labels: { submitt: 'x' } } } }).option).toBe('messages.de.labels.submitt');
    expect(fails({ messages: { de: { time: { extendHint: 'text' } } } }).option).toBe('messages.de.time.extendHint');
    expect(fails({ messages: { 'not a locale': {} } }).option).toBe('messages.not a locale');
    expect(fails({ messages: [] }).option).toBe('messages');
    expect(fails({ resolveLocale: 'de' }).option).toBe('resolveLocale');
  });
});

describe('primaryColor contrast', () => {
  it('draws white text on a dark accent and near-black text on a light one, each at 4.5:1 or more', () => {
    expect(textColorOn('#2563eb')).toMatchObject({ color: '#ffffff' });
    expect(textColorOn('yellow')).toMatchObject({ color: '#111827' });
    expect(textColorOn('#fde68a')!.ratio).toBeGreaterThanOrEqual(4.5);
    expect(contrastRatio(rgbOf('#000')!, rgbOf('#fff')!)).toBeCloseTo(21, 5);
    expect(rgbOf('rebeccapurple')).toEqual([0x66, 0x33, 0x99]);
  });

  it('refuses at start-up a colour neither text colour reaches 4.5:1 on, naming primaryColor and the contrast reached', () => {
    let error: unknown;
    try {
      resolveElicitationOptions({ ...base, primaryColor: '#7a7a7a' }, 'elicit', DEV);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ElicitationConfigError);
    expect((error as ElicitationConfigError).option).toBe('primaryColor');
    expect((error as Error).message).toMatch(/reaches only \d\.\d\d:1/);
    expect(resolveElicitationOptions({ ...base, primaryColor: 'navy' }, 'elicit', DEV).options.primaryTextColor).toBe('#ffffff');
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
  const options = (templatesDir: string) => resolveElicitationOptions({ ...base, templatesDir }, 'elicit', DEV).options;
  const frame = { locale: new PageCatalogs().defaultLocale };

  it('uses an overridden template, and the built-in ones for the rest', () => {
    const done = readFileSync(join(builtInTemplatesDir(), 'done.hbs'), 'utf8').replace('<p>{{text}}</p>', '<p class="mine">{{text}}</p>');
    const renderer = new TemplateRenderer(options(dirWith('done', done)));
    const html = renderer.render('done', { heading: 'Done', text: 'All good', message: 'm', labels: EN_MESSAGES.labels }, 'n', frame);
    expect(html).toContain('<p class="mine">All good</p>');
    expect(html).toContain('<html lang="en" dir="ltr">');
  });

  it('fails start-up naming a template that does not compile', () => {
    const dir = dirWith('confirm', '{{#> layout}}<p>{{#if warning}}unclosed</p>{{/layout}}');
    expect(() => new TemplateRenderer(options(dir))).toThrow(ElicitationConfigError);
    expect(() => new TemplateRenderer(options(dir))).toThrow(/confirm\.hbs/);
  });
});
