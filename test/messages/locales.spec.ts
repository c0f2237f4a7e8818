/** `PageCatalogs` (the language a page is shown in, `messages` laid over the catalogs) and the language options. */
import { describe, expect, it } from '@jest/globals';
import { resolveElicitationOptions } from '../../src/options/elicitation-options.validation.js';
import { ElicitationConfigError } from '../../src/errors/elicitation-config.error.js';
import { BUILT_IN_CATALOGS, PageCatalogs, canonicalLocale, directionOf } from '../../src/messages/locales.js';

const KEY = Buffer.alloc(32, 7);
const DEV: NodeJS.ProcessEnv = { NODE_ENV: 'development' };
const base = { baseUrl: 'https://mcp.example.com', resolvePageUser: () => 'u', encryptionKey: KEY };

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
