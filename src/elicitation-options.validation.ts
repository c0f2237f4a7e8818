import { randomBytes } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import {
  DEFAULT_ALLOW_UNVERIFIED_PAGES,
  DEFAULT_CLEANUP_INTERVAL_MS,
  DEFAULT_KEEP_ALIVE_MS,
  DEFAULT_LIMITS,
  DEFAULT_PENDING_RETRY_WAIT_MS,
  DEFAULT_PRIMARY_COLOR,
  DEFAULT_REQUEST_STATE_TTL_MS,
  DEFAULT_THROTTLE,
  DEFAULT_TITLE,
  DEFAULT_TTL_MS,
  MAX_TIMER_MS,
  defaultResolveMcpUser,
} from './elicitation.constants.js';
import type { ElicitationModuleOptions, ResolvedElicitationOptions } from './elicitation-options.interface.js';
import { ElicitationConfigError } from './errors/elicitation-config.error.js';
import { isSharedStore } from './stores/elicitation-store.js';
import { resolveOAuthOptions } from './oauth/oauth-options.js';
import { bestContrastOn, rgbOf, textColorOn } from './theme/accent-contrast.js';
import { BUILT_IN_CATALOGS, canonicalLocale, overrideProblem } from './messages/locales.js';
import { DEFAULT_FORM_FALLBACK, DEFAULT_PAGE_FALLBACK, ladderProblem } from './mcp/client-ladder.js';

const ROUTE_SEGMENT = /^[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*$/;
const CSS_COLOR = /^(#[0-9a-fA-F]{3}|#[0-9a-fA-F]{4}|#[0-9a-fA-F]{6}|#[0-9a-fA-F]{8}|[a-zA-Z]{3,30})$/;
/** An absolute http(s) URL without spaces, quotes or angle brackets. */
const HTTP_URL = /^https?:\/\/[^\s"'<>]+$/;
/** Longest page title, in characters. */
const MAX_TITLE_LENGTH = 200;
/** Length of an AES-256 key, in bytes. */
const KEY_BYTES = 32;

/** The defaulted options of one group, as `ResolvedElicitationOptions` holds them. */
type Resolved<K extends keyof ResolvedElicitationOptions> = Pick<ResolvedElicitationOptions, K>;

/** Checks the `routePrefix` extra: one or more URL-safe path segments, no leading or trailing slash. */
export function validateRoutePrefix(prefix: unknown): string {
  const value = typeof prefix === 'string' ? prefix.replace(/^\/+|\/+$/g, '') : prefix;
  if (typeof value !== 'string' || !ROUTE_SEGMENT.test(value)) {
    throw new ElicitationConfigError(
      'routePrefix',
      'must be a URL path such as "elicit" or "mcp/elicit" (letters, digits, "-", "_", "." and "~")',
    );
  }
  return value;
}

/**
 * Validates the raw options once, at bootstrap, for both `forRoot` and `forRootAsync`, and fills in the
 * defaults. `env` is the process environment (`NODE_ENV=production` turns two warnings into errors).
 * Returns the warnings to log (they do not stop the app).
 */
export function resolveElicitationOptions(
  raw: ElicitationModuleOptions | undefined,
  routePrefix: string,
  env: NodeJS.ProcessEnv,
): { options: ResolvedElicitationOptions; warnings: string[] } {
  if (!raw || typeof raw !== 'object') {
    throw new ElicitationConfigError('options', 'are missing: pass at least { baseUrl: "https://your.host" }');
  }
  const warnings: string[] = [];
  const production = env.NODE_ENV === 'production';
  // The groups run in this order so that, of several bad options, the same one is reported first as always.
  const urls = resolveUrls(raw, warnings);
  const lifetimes = resolveLifetimes(raw);
  const mcp = resolveMcp(raw);
  const look = resolvePageLook(raw);
  const language = resolveLanguage(raw);
  checkPlugIns(raw);
  const identity = resolveIdentity(raw, production, warnings);
  const encryptionKeys = resolveKeys(raw, production, warnings);
  const limits = resolveLimits(raw.limits);
  const throttle = resolveThrottle(raw.throttle);
  const externalUrlPolicy = resolveExternalUrlPolicy(raw.externalUrlPolicy);
  const oauth = resolveOAuthOptions(raw.oauth);
  const audit = resolveAudit(raw.audit);
  return {
    warnings,
    options: {
      ...urls,
      routePrefix,
      ...lifetimes,
      ...mcp,
      ...look,
      ...language,
      ...identity,
      encryptionKeys,
      limits,
      throttle,
      externalUrlPolicy,
      oauth,
      audit,
      uploadSink: raw.uploadSink,
    },
  };
}

/** `baseUrl`: an absolute http(s) URL without query, fragment or credentials; warns on plain http off loopback. */
function resolveUrls(raw: ElicitationModuleOptions, warnings: string[]): Resolved<'baseUrl'> {
  let base: URL;
  try {
    base = new URL(String(raw.baseUrl));
  } catch {
    throw new ElicitationConfigError(
      'baseUrl',
      'must be the absolute public URL browsers use to reach this app, e.g. "https://mcp.example.com"',
    );
  }
  if (typeof raw.baseUrl !== 'string' || (base.protocol !== 'https:' && base.protocol !== 'http:')) {
    throw new ElicitationConfigError('baseUrl', 'must be an http: or https: URL, e.g. "https://mcp.example.com"');
  }
  if (base.search || base.hash || base.username || base.password) {
    throw new ElicitationConfigError('baseUrl', 'must not carry a query, a fragment or credentials');
  }
  if (base.protocol === 'http:' && !isLoopbackHost(base.hostname)) {
    warnings.push(`baseUrl ${base.origin} is plain http on a non-loopback host: elicitation pages collect secrets, serve them over https.`);
  }
  return { baseUrl: base.href.replace(/\/+$/, '') };
}

/** How long records live, how much "Need more time?" adds (optional) and how often the sweep runs. */
function resolveLifetimes(raw: ElicitationModuleOptions): Resolved<'ttlMs' | 'retentionMs' | 'cleanupIntervalMs' | 'extendMs'> {
  const ttlMs = positiveMs('ttlMs', raw.ttlMs, DEFAULT_TTL_MS);
  return {
    ttlMs,
    retentionMs: positiveMs('retentionMs', raw.retentionMs, ttlMs),
    cleanupIntervalMs: positiveMs('cleanupIntervalMs', raw.cleanupIntervalMs, DEFAULT_CLEANUP_INTERVAL_MS, true),
    extendMs: raw.extendMs === undefined ? undefined : positiveMs('extendMs', raw.extendMs, 0),
  };
}

/**
 * The MCP binding: the `requestState` lifetime and the bounded wait of a pending retry (2026-07-28), the
 * fallback ladders, the client policy, instant declines and the keep-alive.
 */
function resolveMcp(
  raw: ElicitationModuleOptions,
): Resolved<'requestStateTtlMs' | 'pendingRetryWaitMs' | 'fallback' | 'clientPolicy' | 'instantDeclineMs' | 'keepAliveMs'> {
  const fallback = raw.fallback ?? {};
  if (typeof fallback !== 'object' || fallback === null || Array.isArray(fallback)) {
    throw new ElicitationConfigError('fallback', 'must be an object { page?: [...], form?: [...] }');
  }
  for (const type of ['page', 'form'] as const) {
    const problem = fallback[type] === undefined ? undefined : ladderProblem(fallback[type], type);
    if (problem) throw new ElicitationConfigError(`fallback.${type}`, problem);
  }
  if (raw.clientPolicy !== undefined && typeof raw.clientPolicy !== 'function') {
    throw new ElicitationConfigError('clientPolicy', 'must be a function (client) => capabilities');
  }
  return {
    requestStateTtlMs: positiveMs('requestStateTtlMs', raw.requestStateTtlMs, DEFAULT_REQUEST_STATE_TTL_MS),
    pendingRetryWaitMs: positiveMs('pendingRetryWaitMs', raw.pendingRetryWaitMs, DEFAULT_PENDING_RETRY_WAIT_MS, true),
    fallback: {
      page: Object.freeze([...(fallback.page ?? DEFAULT_PAGE_FALLBACK)]),
      form: Object.freeze([...(fallback.form ?? DEFAULT_FORM_FALLBACK)]),
    },
    clientPolicy: raw.clientPolicy,
    instantDeclineMs: positiveMs('instantDeclineMs', raw.instantDeclineMs, 0, true),
    keepAliveMs: positiveMs('keepAliveMs', raw.keepAliveMs, DEFAULT_KEEP_ALIVE_MS, true),
  };
}

/** What the pages look like: title, accent colour, logo and template folder. */
function resolvePageLook(
  raw: ElicitationModuleOptions,
): Resolved<'title' | 'primaryColor' | 'primaryTextColor' | 'logoUrl' | 'templatesDir'> {
  const title = raw.title ?? DEFAULT_TITLE;
  if (typeof title !== 'string' || !title.trim() || title.length > MAX_TITLE_LENGTH) {
    throw new ElicitationConfigError('title', `must be a non-empty string of at most ${MAX_TITLE_LENGTH} characters`);
  }
  const primaryColor = raw.primaryColor ?? DEFAULT_PRIMARY_COLOR;
  if (typeof primaryColor !== 'string' || !CSS_COLOR.test(primaryColor) || !rgbOf(primaryColor)) {
    throw new ElicitationConfigError('primaryColor', 'must be a CSS hex colour such as "#2563eb" or a CSS colour name');
  }
  const onPrimary = textColorOn(primaryColor);
  if (!onPrimary) {
    throw new ElicitationConfigError(
      'primaryColor',
      `"${primaryColor}" reaches only ${bestContrastOn(primaryColor).toFixed(2)}:1 with white or near-black button text (WCAG AA needs 4.5:1): choose a darker or a lighter colour`,
    );
  }
  if (raw.logoUrl !== undefined && !(typeof raw.logoUrl === 'string' && (/^\/(?!\/)/.test(raw.logoUrl) || HTTP_URL.test(raw.logoUrl)))) {
    throw new ElicitationConfigError('logoUrl', 'must be an http(s) URL or a path starting with "/"');
  }
  if (raw.templatesDir !== undefined && (typeof raw.templatesDir !== 'string' || !raw.templatesDir)) {
    throw new ElicitationConfigError('templatesDir', 'must be the path of a folder holding .hbs templates');
  }
  return { title, primaryColor, primaryTextColor: onPrimary.color, logoUrl: raw.logoUrl, templatesDir: raw.templatesDir };
}

/** The pages' languages: the default locale (one with a catalog), the locale hook, the catalogs' overrides. */
function resolveLanguage(raw: ElicitationModuleOptions): Resolved<'defaultLocale' | 'resolveLocale' | 'messages'> {
  const messages = raw.messages ?? {};
  if (typeof messages !== 'object' || messages === null || Array.isArray(messages)) {
    throw new ElicitationConfigError('messages', 'must be an object of catalogs by locale, e.g. { de: { labels: { submit: "Senden" } } }');
  }
  for (const [tag, catalog] of Object.entries(messages)) {
    if (!canonicalLocale(tag)) throw new ElicitationConfigError(`messages.${tag}`, 'is not a locale tag such as "de" or "pt-BR"');
    const problem = overrideProblem(catalog, `messages.${tag}`);
    if (problem) {
      const [field, ...rest] = problem.split(' ');
      throw new ElicitationConfigError(field, rest.join(' '));
    }
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
    );
  }
  if (raw.resolveLocale !== undefined && typeof raw.resolveLocale !== 'function') {
    throw new ElicitationConfigError('resolveLocale', 'must be a function (req) => locale tag');
  }
  return { defaultLocale: canonical, resolveLocale: raw.resolveLocale, messages };
}

/** What the app plugs in is of the right kind: the identity hooks and the upload sink are functions, the store is a store. */
function checkPlugIns(raw: ElicitationModuleOptions): void {
  for (const fn of ['resolvePageUser', 'resolveMcpUser', 'uploadSink'] as const) {
    if (raw[fn] !== undefined && typeof raw[fn] !== 'function') throw new ElicitationConfigError(fn, 'must be a function');
  }
  if (raw.store !== undefined && (raw.store === null || typeof raw.store.get !== 'function')) {
    throw new ElicitationConfigError('store', 'must be an instance of an ElicitationStore implementation');
  }
}

/**
 * Who answers: the identity hooks of the pages (required in production unless `allowUnverifiedPages`) and
 * of MCP calls, and where a browser without a user logs in.
 */
function resolveIdentity(
  raw: ElicitationModuleOptions,
  production: boolean,
  warnings: string[],
): Resolved<'resolvePageUser' | 'resolveMcpUser' | 'loginUrl' | 'allowUnverifiedPages'> {
  if (raw.allowUnverifiedPages !== undefined && typeof raw.allowUnverifiedPages !== 'boolean') {
    throw new ElicitationConfigError('allowUnverifiedPages', 'must be true or false');
  }
  const allowUnverifiedPages = raw.allowUnverifiedPages ?? DEFAULT_ALLOW_UNVERIFIED_PAGES;
  if (!raw.resolvePageUser) {
    if (production && !allowUnverifiedPages) {
      throw new ElicitationConfigError(
        'resolvePageUser',
        "is required in production: without it anyone who obtains an elicitation link can answer it in the user's name (phishing). " +
          'Pass resolvePageUser: (req) => <your signed-in user id>, or set allowUnverifiedPages: true to accept the risk',
      );
    }
    warnings.push(
      'resolvePageUser is not set: elicitation pages do NOT check who the browser user is, so anyone holding a link can answer it. Set resolvePageUser to bind pages to your users.',
    );
  }
  const { loginUrl } = raw;
  if (loginUrl !== undefined && !(typeof loginUrl === 'string' && (/^\/(?![/\\])\S*$/.test(loginUrl) || HTTP_URL.test(loginUrl)))) {
    throw new ElicitationConfigError('loginUrl', 'must be an http(s) URL or a path starting with "/"');
  }
  return {
    resolvePageUser: raw.resolvePageUser,
    resolveMcpUser: raw.resolveMcpUser ?? defaultResolveMcpUser,
    loginUrl,
    allowUnverifiedPages,
  };
}

/**
 * `encryptionKey`: one key or a ring, each 32 bytes (Buffer, base64 or hex). Without one, a store shared between
 * processes fails in every environment (each instance would draw its own key and could not open what the others
 * seal), production fails, and development on a store of its own gets a random per-process key (with a warning).
 */
function resolveKeys(raw: ElicitationModuleOptions, production: boolean, warnings: string[]): Buffer[] {
  const input = raw.encryptionKey;
  if (input !== undefined) return parseKeys(input);
  if (raw.store && isSharedStore(raw.store)) {
    throw new ElicitationConfigError(
      'encryptionKey',
      'is required with a store shared between processes (RedisElicitationStore, or a store whose shared is true), in every environment: ' +
        'without it each instance would draw its own random key and could not open the answers, records, requestStates and CSRF tokens ' +
        'the others seal. Give every instance the same encryptionKey: 32 random bytes, e.g. from `openssl rand -base64 32`',
    );
  }
  if (production) {
    throw new ElicitationConfigError(
      'encryptionKey',
      'is required in production (secrets are encrypted at rest with it): pass 32 random bytes, e.g. from `openssl rand -base64 32`',
    );
  }
  warnings.push(
    'encryptionKey is not set: a random per-process key encrypts stored secrets, so they cannot be read after a restart. Set encryptionKey (32 bytes) outside development.',
  );
  return [randomBytes(KEY_BYTES)];
}

function parseKeys(input: NonNullable<ElicitationModuleOptions['encryptionKey']>): Buffer[] {
  const list = Array.isArray(input) ? input : [input];
  if (list.length === 0) throw new ElicitationConfigError('encryptionKey', 'must hold at least one key');
  return list.map((key, i) => {
    let bytes: Buffer | undefined;
    if (Buffer.isBuffer(key)) bytes = key;
    else if (typeof key === 'string' && /^[0-9a-fA-F]{64}$/.test(key)) bytes = Buffer.from(key, 'hex');
    else if (typeof key === 'string') bytes = Buffer.from(key, 'base64');
    if (!bytes || bytes.length !== KEY_BYTES) {
      throw new ElicitationConfigError(
        Array.isArray(input) ? `encryptionKey[${i}]` : 'encryptionKey',
        'must be exactly 32 bytes: a Buffer, 64 hex characters or base64 (e.g. `openssl rand -base64 32`)',
      );
    }
    return Buffer.from(bytes);
  });
}

/** `limits`: each a positive whole number, defaulted one by one from `DEFAULT_LIMITS`. */
function resolveLimits(raw: ElicitationModuleOptions['limits']): ResolvedElicitationOptions['limits'] {
  if (raw !== undefined && (raw === null || typeof raw !== 'object')) {
    throw new ElicitationConfigError('limits', 'must be an object such as { createPerMinute: 10 }');
  }
  const count = (name: keyof typeof DEFAULT_LIMITS): number => {
    const v: unknown = wholeNumber(raw?.[name] ?? DEFAULT_LIMITS[name]);
    if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) {
      throw new ElicitationConfigError(`limits.${name}`, `must be a positive whole number, got ${JSON.stringify(v)}`);
    }
    return v;
  };
  return {
    createPerMinute: count('createPerMinute'),
    maxPendingPerUser: count('maxPendingPerUser'),
    maxPending: count('maxPending'),
    maxBodyBytes: count('maxBodyBytes'),
    maxMetadataBytes: count('maxMetadataBytes'),
    maxResultBytes: count('maxResultBytes'),
    maxFormAttempts: count('maxFormAttempts'),
    maxUploadBytes: count('maxUploadBytes'),
  };
}

/** `throttle`: `false`, or a positive whole `limit` per `ttlMs` window, defaulted from `DEFAULT_THROTTLE`. */
function resolveThrottle(raw: ElicitationModuleOptions['throttle']): ResolvedElicitationOptions['throttle'] {
  if (raw === false) return false;
  if (raw !== undefined && (raw === null || typeof raw !== 'object')) {
    throw new ElicitationConfigError('throttle', 'must be false or an object such as { limit: 60, ttlMs: 60000 }');
  }
  const limit = wholeNumber(raw?.limit ?? DEFAULT_THROTTLE.limit);
  const ttlMs = wholeNumber(raw?.ttlMs ?? DEFAULT_THROTTLE.ttlMs);
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit <= 0) {
    throw new ElicitationConfigError('throttle.limit', 'must be a positive whole number');
  }
  if (typeof ttlMs !== 'number' || !Number.isInteger(ttlMs) || ttlMs <= 0) {
    throw new ElicitationConfigError('throttle.ttlMs', 'must be a positive whole number of milliseconds');
  }
  return { limit, ttlMs };
}

/** `externalUrlPolicy`: an object; its fields default inside `assertSafeExternalUrl`. */
function resolveExternalUrlPolicy(raw: ElicitationModuleOptions['externalUrlPolicy']): ResolvedElicitationOptions['externalUrlPolicy'] {
  if (raw !== undefined && (raw === null || typeof raw !== 'object')) {
    throw new ElicitationConfigError('externalUrlPolicy', 'must be an object such as { allowedHosts: ["accounts.example.com"] }');
  }
  return raw ?? {};
}

/** `audit`: `'log'`, a sink function, or `false` (the default: off). */
function resolveAudit(raw: ElicitationModuleOptions['audit']): ResolvedElicitationOptions['audit'] {
  if (raw === undefined || raw === false || raw === 'log' || typeof raw === 'function') return raw ?? false;
  throw new ElicitationConfigError('audit', "must be 'log' (a JSON line per record through Nest's Logger), a function or false");
}

function positiveMs(option: string, value: unknown, fallback: number, allowZero = false): number {
  const v = wholeNumber(value ?? fallback);
  const ok = typeof v === 'number' && Number.isInteger(v) && (allowZero ? v >= 0 : v > 0) && v <= MAX_TIMER_MS;
  if (!ok) {
    throw new ElicitationConfigError(
      option,
      `must be a whole number of milliseconds ${allowZero ? 'from 0' : 'above 0'} up to ${MAX_TIMER_MS}, got ${JSON.stringify(v)}`,
    );
  }
  return v;
}

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (!ipaddr.isValid(host)) return false;
  return ipaddr.process(host).range() === 'loopback';
}

/**
 * A whole number given as a string of decimal digits (as `@nestjs/config` and `process.env` give every value) is
 * read as that number; anything else is returned as it is, for the caller's check to refuse naming the option.
 */
function wholeNumber(value: unknown): unknown {
  return typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value;
}
