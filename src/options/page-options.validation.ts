import { DEFAULT_PRIMARY_COLOR, DEFAULT_TITLE } from './elicitation.constants.js';
import type { ElicitationModuleOptions } from './elicitation-options.interface.js';
import { ElicitationConfigError } from '../errors/elicitation-config.error.js';
import { BUILT_IN_CATALOGS, canonicalLocale, overrideProblem } from '../messages/locales.js';
import { bestContrastOn, rgbOf, textColorOn } from '../theme/accent-contrast.js';
import { nearestKey } from './nearest-key.js';
import type { Resolved } from './option-values.js';
import { checkPageUrl } from './url-options.validation.js';

const CSS_COLOR = /^(#[0-9a-fA-F]{3}|#[0-9a-fA-F]{4}|#[0-9a-fA-F]{6}|#[0-9a-fA-F]{8}|[a-zA-Z]{3,30})$/;
/** Longest page title, in characters. */
const MAX_TITLE_LENGTH = 200;

/** What the pages look like: title, accent colour, logo and template folder. */
export function resolvePageLook(
  raw: ElicitationModuleOptions,
): Resolved<'title' | 'primaryColor' | 'primaryTextColor' | 'logoUrl' | 'templatesDir'> {
  const title = raw.title ?? DEFAULT_TITLE;
  if (typeof title !== 'string' || !title.trim() || title.length > MAX_TITLE_LENGTH) {
    throw new ElicitationConfigError('title', `must be a non-empty string of at most ${MAX_TITLE_LENGTH} characters`, { value: title });
  }
  const primaryColor = raw.primaryColor ?? DEFAULT_PRIMARY_COLOR;
  if (typeof primaryColor !== 'string' || !CSS_COLOR.test(primaryColor) || !rgbOf(primaryColor)) {
    throw new ElicitationConfigError('primaryColor', 'must be a CSS hex colour such as "#2563eb" or a CSS colour name', {
      value: primaryColor,
      hint: typeof primaryColor === 'string' && /^[0-9a-fA-F]{3,8}$/.test(primaryColor) ? `did you mean "#${primaryColor}"?` : undefined,
    });
  }
  const onPrimary = textColorOn(primaryColor);
  if (!onPrimary) {
    throw new ElicitationConfigError(
      'primaryColor',
      `"${primaryColor}" reaches only ${bestContrastOn(primaryColor).toFixed(2)}:1 with white or near-black button text (WCAG AA needs 4.5:1): choose a darker or a lighter colour`,
    );
  }
  checkPageUrl('logoUrl', raw.logoUrl, /^\/(?!\/)/);
  if (raw.templatesDir !== undefined && (typeof raw.templatesDir !== 'string' || !raw.templatesDir)) {
    throw new ElicitationConfigError('templatesDir', 'must be the path of a folder holding .hbs templates', { value: raw.templatesDir });
  }
  return { title, primaryColor, primaryTextColor: onPrimary.color, logoUrl: raw.logoUrl, templatesDir: raw.templatesDir };
}

/** The pages' languages: the default locale (one with a catalog), the locale hook, the catalogs' overrides. */
export function resolveLanguage(raw: ElicitationModuleOptions): Resolved<'defaultLocale' | 'resolveLocale' | 'messages'> {
  const messages = raw.messages ?? {};
  if (typeof messages !== 'object' || messages === null || Array.isArray(messages)) {
    throw new ElicitationConfigError('messages', 'must be an object of catalogs by locale, e.g. { de: { labels: { submit: "Senden" } } }', {
      value: messages,
    });
  }
  for (const [tag, catalog] of Object.entries(messages)) {
    if (!canonicalLocale(tag))
      throw new ElicitationConfigError(`messages.${tag}`, 'is not a locale tag such as "de" or "pt-BR"', { value: tag });
    const problem = overrideProblem(catalog, `messages.${tag}`);
    if (problem) throw catalogError(problem, messages);
  }
  const defaultLocale = raw.defaultLocale ?? 'en';
  const known = new Set([...Object.keys(BUILT_IN_CATALOGS), ...Object.keys(messages).map((t) => canonicalLocale(t)!.split('-')[0])]);
  const canonical = canonicalLocale(defaultLocale);
  if (
    !canonical ||
    !(known.has(canonical) || known.has(canonical.split('-')[0]) || Object.keys(messages).some((t) => canonicalLocale(t) === canonical))
  ) {
    throw new ElicitationConfigError(
      'defaultLocale',
      `must be a locale with a catalog: ${[...known].join(', ')} (or one added through messages)`,
      { value: defaultLocale },
    );
  }
  if (raw.resolveLocale !== undefined && typeof raw.resolveLocale !== 'function') {
    throw new ElicitationConfigError('resolveLocale', 'must be a function (req) => locale tag', { value: raw.resolveLocale });
  }
  return { defaultLocale: canonical, resolveLocale: raw.resolveLocale, messages };
}

/**
 * The error for a problem `overrideProblem` found (`messages.de.labels.submitt is not a text of the catalog`): the
 * value at that path, and for a key the catalog lacks, the nearest one it has.
 */
function catalogError(problem: string, messages: object): ElicitationConfigError {
  const [field, ...rest] = problem.split(' ');
  const path = field.split('.').slice(1); // [tag, group, key, ...]
  let value: unknown = messages;
  let shape: unknown = BUILT_IN_CATALOGS.en;
  let parentShape: unknown;
  for (const [i, segment] of path.entries()) {
    value = isObject(value) ? value[segment] : undefined;
    parentShape = shape;
    if (i > 0) shape = isObject(shape) ? shape[segment] : undefined;
  }
  const unknownKey = rest.join(' ') === 'is not a text of the catalog';
  const near = unknownKey && isObject(parentShape) ? nearestKey(path[path.length - 1], Object.keys(parentShape)) : undefined;
  const hint = near ? `did you mean "${[...field.split('.').slice(0, -1), near].join('.')}"?` : undefined;
  return new ElicitationConfigError(field, rest.join(' '), { value, hint });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
