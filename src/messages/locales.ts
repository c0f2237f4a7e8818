import { AR_MESSAGES } from './catalogs/ar.js';
import { DE_MESSAGES } from './catalogs/de.js';
import { EN_MESSAGES } from './catalogs/en.js';
import type { PageMessages } from './page-messages.js';

/** The built-in catalogs, by locale. Adding one is a file under `catalogs/` and a line here. */
export const BUILT_IN_CATALOGS: Readonly<Record<string, PageMessages>> = { en: EN_MESSAGES, de: DE_MESSAGES, ar: AR_MESSAGES };

/** Every key optional, at every depth: what the `messages` option gives per locale. */
export type PageMessagesOverride = {
  [K in keyof PageMessages]?: PageMessages[K] extends (...args: never[]) => unknown
    ? PageMessages[K]
    : {
        [L in keyof PageMessages[K]]?: PageMessages[K][L] extends (...args: never[]) => unknown
          ? PageMessages[K][L]
          : Partial<PageMessages[K][L]>;
      };
};

/** A page's language: its locale tag, its direction, and its catalog. */
export interface PageLocale {
  locale: string;
  dir: 'ltr' | 'rtl';
  messages: PageMessages;
}

/** Languages written right to left (primary subtags). */
const RTL = new Set(['ar', 'arc', 'ckb', 'dv', 'fa', 'he', 'ks', 'ku', 'ps', 'sd', 'ug', 'ur', 'yi']);
/** A BCP 47 language tag as the options and `Accept-Language` may give it (checked by `Intl` too). */
const TAG = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/;

/** `tag` canonicalised (`de-ch` → `de-CH`), or undefined for something that is no language tag. */
export function canonicalLocale(tag: unknown): string | undefined {
  if (typeof tag !== 'string' || tag.length > 35 || !TAG.test(tag)) return undefined;
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
}

/** The direction a locale is written in. */
export function directionOf(locale: string): 'ltr' | 'rtl' {
  return RTL.has(locale.split('-')[0].toLowerCase()) ? 'rtl' : 'ltr';
}

/**
 * What a `messages` entry may hold: the English catalog's keys at the same depth, each of the same kind (a text
 * for a text, a function for a function), `byStatus` any status. Returns the path of the first problem.
 */
export function overrideProblem(override: unknown, path: string, shape: unknown = EN_MESSAGES): string | undefined {
  if (typeof override !== 'object' || override === null || Array.isArray(override)) return `${path} must be an object`;
  for (const [key, value] of Object.entries(override)) {
    const at = `${path}.${key}`;
    const expected = path.endsWith('.byStatus') ? 'x' : (shape as Record<string, unknown>)[key];
    if (expected === undefined) return `${at} is not a text of the catalog`;
    if (typeof expected === 'object') {
      const problem = overrideProblem(value, at, expected);
      if (problem) return problem;
    } else if (typeof value !== typeof expected) {
      return `${at} must be a ${typeof expected === 'function' ? 'function' : 'string'}, as in the English catalog`;
    }
  }
  return undefined;
}

/** `base` with `override` laid over it, one level of groups deep (a group's texts are replaced one by one). */
function merged(base: PageMessages, override: PageMessagesOverride | undefined): PageMessages {
  if (!override) return base;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(override)) {
    const current = (base as unknown as Record<string, unknown>)[key];
    out[key] = typeof current === 'object' && current !== null ? deepMerged(current as Record<string, unknown>, value) : value;
  }
  return out as unknown as PageMessages;
}

function deepMerged(base: Record<string, unknown>, override: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(override)) {
    const current = base[key];
    out[key] =
      typeof current === 'object' && current !== null && typeof value === 'object' && value !== null
        ? deepMerged(current as Record<string, unknown>, value as Record<string, unknown>)
        : value;
  }
  return out;
}

/**
 * The catalogs of an app: the built-in ones with the `messages` option laid over them (a locale `messages` adds
 * starts from the default locale's catalog, so a partial one falls back to it text by text), and the choice of
 * one per request: exact tag, then its language (`de-CH` → `de`), else the default locale.
 */
export class PageCatalogs {
  private readonly byLocale = new Map<string, PageLocale>();
  readonly defaultLocale: PageLocale;

  constructor(defaultLocale = 'en', overrides: Readonly<Record<string, PageMessagesOverride>> = {}) {
    const defaultTag = canonicalLocale(defaultLocale) ?? 'en';
    const defaultBase = BUILT_IN_CATALOGS[defaultTag] ?? BUILT_IN_CATALOGS[defaultTag.split('-')[0]] ?? EN_MESSAGES;
    const tags = new Set([...Object.keys(BUILT_IN_CATALOGS), ...Object.keys(overrides).map((t) => canonicalLocale(t) ?? t), defaultTag]);
    for (const tag of tags) {
      const base = BUILT_IN_CATALOGS[tag] ?? BUILT_IN_CATALOGS[tag.split('-')[0]] ?? defaultBase;
      const override = Object.entries(overrides).find(([t]) => (canonicalLocale(t) ?? t) === tag)?.[1];
      this.byLocale.set(tag.toLowerCase(), { locale: tag, dir: directionOf(tag), messages: merged(base, override) });
    }
    this.defaultLocale = this.byLocale.get(defaultTag.toLowerCase())!;
  }

  /** The locales pages can be shown in. */
  get locales(): string[] {
    return [...this.byLocale.values()].map((l) => l.locale);
  }

  /** The catalog of `tag` (exact, then its language), or undefined when there is none. */
  find(tag: unknown): PageLocale | undefined {
    const canonical = canonicalLocale(tag);
    if (!canonical) return undefined;
    const lower = canonical.toLowerCase();
    return this.byLocale.get(lower) ?? this.byLocale.get(lower.split('-')[0]);
  }

  /** The best catalog for an `Accept-Language` header (by its q-values, in order), else the default locale's. */
  negotiate(acceptLanguage: string | undefined): PageLocale {
    if (!acceptLanguage) return this.defaultLocale;
    const ranges = acceptLanguage
      .split(',', 20)
      .map((part, index) => {
        const [tag, ...params] = part.trim().split(';');
        const q = params.map((p) => /^\s*q=([01](?:\.\d{0,3})?)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
        return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), index };
      })
      .filter((r) => r.q > 0)
      .sort((a, b) => b.q - a.q || a.index - b.index);
    for (const { tag } of ranges) {
      if (tag === '*') return this.defaultLocale;
      const found = this.find(tag);
      if (found) return found;
    }
    return this.defaultLocale;
  }
}
