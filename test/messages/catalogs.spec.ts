/**
 * The built-in catalogs (`src/messages/catalogs/`): every key of the English one in each, of the same kind, translated.
 * Choosing among them (`PageCatalogs`) and the language options: locales.spec.ts.
 */
import { describe, expect, it } from '@jest/globals';
import type { FieldRule } from '../../src/core/form-rules.js';
import { BUILT_IN_CATALOGS } from '../../src/messages/locales.js';
import type { PageMessages } from '../../src/messages/page-messages.js';
import { EN_MESSAGES } from '../../src/messages/catalogs/en.js';

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
