/**
 * `PageLocales`: each request's language, chosen once: `resolveLocale` when it names a locale with a catalog, else
 * `Accept-Language`, else `defaultLocale`; a hook that throws is logged by the error's name only.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { PageRequest } from '../../src/http/page-http.js';
import { PageLocales } from '../../src/http/page-locales.js';
import { DE_MESSAGES } from '../../src/messages/catalogs/de.js';
import { EN_MESSAGES } from '../../src/messages/catalogs/en.js';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';
import { resolveElicitationOptions } from '../../src/options/elicitation-options.validation.js';
import { pageOptionsOf } from '../../src/options/page-options.js';
import { captureLogs } from './http-exchange.support.js';

function localesOf(extra: Partial<ElicitationModuleOptions> = {}): PageLocales {
  const { options } = resolveElicitationOptions(
    { baseUrl: 'https://mcp.example.com', encryptionKey: Buffer.alloc(32, 1), ...extra },
    'elicit',
    { NODE_ENV: 'development' },
  );
  return new PageLocales(pageOptionsOf(options));
}

const asking = (acceptLanguage?: string | string[], extra: Record<string, string> = {}): PageRequest => ({
  method: 'GET',
  url: '/elicit/x/api-key',
  headers: { ...(acceptLanguage !== undefined && { 'accept-language': acceptLanguage as string }), ...extra },
});

describe('PageLocales', () => {
  let logs: ReturnType<typeof captureLogs> | undefined;
  afterEach(() => logs?.restore());

  it('without a request, and for a browser that names no language: the default locale', () => {
    const locales = localesOf();
    expect(locales.of(undefined).locale).toBe('en');
    expect(locales.fallback.messages).toBe(locales.of(undefined).messages);
    expect(locales.of(asking()).locale).toBe('en');
    const german = localesOf({ defaultLocale: 'de' });
    expect(german.fallback.locale).toBe('de');
    expect(german.of(asking('fr')).messages.errors.notFound).toBe(DE_MESSAGES.errors.notFound);
  });

  it.each([
    ['de-CH,de;q=0.9,en;q=0.8', 'de', 'ltr'],
    ['fr-FR, ar;q=0.5, de;q=0.4', 'ar', 'rtl'],
    ['en;q=0.1, de', 'de', 'ltr'],
    ['de;q=0, ar', 'ar', 'rtl'],
    ['fr, it', 'en', 'ltr'],
    ['*', 'en', 'ltr'],
    ['no language;;;, 12', 'en', 'ltr'],
  ])('Accept-Language %j: %s (%s)', (header, locale, dir) => {
    const chosen = localesOf().of(asking(header));
    expect(chosen.locale).toBe(locale);
    expect(chosen.dir).toBe(dir);
  });

  it('reads Accept-Language sent as several header lines', () => {
    expect(localesOf().of(asking(['fr', 'de;q=0.5'])).locale).toBe('de');
  });

  it('resolveLocale first, when it names a locale with a catalog; else Accept-Language decides', () => {
    const locales = localesOf({ resolveLocale: (req: PageRequest) => req.headers['x-lang'] as string | undefined });
    expect(locales.of(asking('de', { 'x-lang': 'ar' })).locale).toBe('ar');
    expect(locales.of(asking('de', { 'x-lang': 'ar-EG' })).locale).toBe('ar');
    expect(locales.of(asking('de', { 'x-lang': 'fr' })).locale).toBe('de');
    expect(locales.of(asking('de', { 'x-lang': 'not a tag!' })).locale).toBe('de');
    expect(locales.of(asking('de')).locale).toBe('de');
  });

  it('a resolveLocale that throws: Accept-Language decides, and the warning names the error, never its message', () => {
    logs = captureLogs();
    const locales = localesOf({
      resolveLocale: () => {
        throw new TypeError('cookie lang=secret-session-value');
      },
    });
    expect(locales.of(asking('de')).locale).toBe('de');
    expect(logs.warn).toEqual(['resolveLocale threw (TypeError); Accept-Language decides.']);
  });

  it('chooses once per request: the same Node request keeps its language, under Fastify`s raw too', () => {
    let calls = 0;
    const locales = localesOf({
      resolveLocale: () => {
        calls++;
        return calls === 1 ? 'de' : 'ar';
      },
    });
    const node = asking('en');
    expect(locales.of(node).locale).toBe('de');
    expect(locales.of(node).locale).toBe('de');
    expect(locales.of({ headers: {}, raw: node }).locale).toBe('de');
    expect(calls).toBe(1);
    expect(locales.of(asking('en')).locale).toBe('ar');
  });

  it('a locale the messages option adds is negotiated, its missing texts from the default locale', () => {
    const locales = localesOf({ messages: { fr: { errors: { notFound: 'Introuvable.' } } } });
    const french = locales.of(asking('fr-CA, de;q=0.5'));
    expect(french.locale).toBe('fr');
    expect(french.messages.errors.notFound).toBe('Introuvable.');
    expect(french.messages.errors.expired).toBe(EN_MESSAGES.errors.expired);
  });
});
