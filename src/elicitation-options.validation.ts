import ipaddr from 'ipaddr.js';
import {
  DEFAULT_CLEANUP_INTERVAL_MS,
  DEFAULT_PRIMARY_COLOR,
  DEFAULT_TITLE,
  DEFAULT_TTL_MS,
} from './elicitation.constants.js';
import type { ElicitationModuleOptions, ResolvedElicitationOptions } from './elicitation-options.interface.js';
import { ElicitationConfigError } from './errors/elicitation-config.error.js';

const ROUTE_SEGMENT = /^[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*$/;
const CSS_COLOR = /^(#[0-9a-fA-F]{3}|#[0-9a-fA-F]{4}|#[0-9a-fA-F]{6}|#[0-9a-fA-F]{8}|[a-zA-Z]{3,30})$/;
/** Longest timer Node accepts (2^31-1 ms, about 24.8 days). */
const MAX_TIMER_MS = 2_147_483_647;

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

function positiveMs(option: string, value: unknown, fallback: number, allowZero = false): number {
  const v = value ?? fallback;
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
  const range = ipaddr.process(host).range();
  return range === 'loopback';
}

/**
 * Validates the raw options once, at bootstrap, for both `forRoot` and `forRootAsync`, and fills in
 * the defaults. Returns the list of warnings to log (they do not stop the app).
 */
export function resolveElicitationOptions(
  raw: ElicitationModuleOptions | undefined,
  routePrefix: string,
): { options: ResolvedElicitationOptions; warnings: string[] } {
  if (!raw || typeof raw !== 'object') {
    throw new ElicitationConfigError('options', 'are missing: pass at least { baseUrl: "https://your.host" }');
  }
  const warnings: string[] = [];

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
    warnings.push(
      `baseUrl ${base.origin} is plain http on a non-loopback host: elicitation pages collect secrets, serve them over https.`,
    );
  }

  const ttlMs = positiveMs('ttlMs', raw.ttlMs, DEFAULT_TTL_MS);
  const retentionMs = positiveMs('retentionMs', raw.retentionMs, ttlMs);
  const cleanupIntervalMs = positiveMs('cleanupIntervalMs', raw.cleanupIntervalMs, DEFAULT_CLEANUP_INTERVAL_MS, true);

  const title = raw.title ?? DEFAULT_TITLE;
  if (typeof title !== 'string' || !title.trim() || title.length > 200) {
    throw new ElicitationConfigError('title', 'must be a non-empty string of at most 200 characters');
  }
  const primaryColor = raw.primaryColor ?? DEFAULT_PRIMARY_COLOR;
  if (typeof primaryColor !== 'string' || !CSS_COLOR.test(primaryColor)) {
    throw new ElicitationConfigError('primaryColor', 'must be a CSS hex colour such as "#2563eb" or a colour name');
  }
  if (raw.logoUrl !== undefined) {
    const ok = typeof raw.logoUrl === 'string' && (/^\/(?!\/)/.test(raw.logoUrl) || /^https?:\/\/[^\s"'<>]+$/.test(raw.logoUrl));
    if (!ok) throw new ElicitationConfigError('logoUrl', 'must be an http(s) URL or a path starting with "/"');
  }
  if (raw.templatesDir !== undefined && (typeof raw.templatesDir !== 'string' || !raw.templatesDir)) {
    throw new ElicitationConfigError('templatesDir', 'must be the path of a folder holding .hbs templates');
  }
  for (const fn of ['resolvePageUser', 'resolveMcpUser'] as const) {
    if (raw[fn] !== undefined && typeof raw[fn] !== 'function') {
      throw new ElicitationConfigError(fn, 'must be a function');
    }
  }
  if (raw.store !== undefined && (raw.store === null || typeof (raw.store as any).get !== 'function')) {
    throw new ElicitationConfigError('store', 'must be an instance of an ElicitationStore implementation');
  }
  if (!raw.resolvePageUser) {
    warnings.push(
      'resolvePageUser is not set: elicitation pages do NOT check who the browser user is, so anyone holding a link can answer it. Set resolvePageUser to bind pages to your users.',
    );
  }

  return {
    warnings,
    options: {
      baseUrl: base.href.replace(/\/+$/, ''),
      routePrefix,
      ttlMs,
      retentionMs,
      cleanupIntervalMs,
      title,
      primaryColor,
      logoUrl: raw.logoUrl,
      templatesDir: raw.templatesDir,
      resolvePageUser: raw.resolvePageUser,
      resolveMcpUser: raw.resolveMcpUser ?? defaultResolveMcpUser,
    },
  };
}

/** Default MCP identity: the verified auth info the transport put on the request. */
export function defaultResolveMcpUser(extra: any): string | undefined {
  const auth = extra?.authInfo;
  if (!auth) return undefined;
  const fromExtra = auth.extra?.userId ?? auth.extra?.sub;
  if (typeof fromExtra === 'string' && fromExtra) return fromExtra;
  return typeof auth.clientId === 'string' && auth.clientId ? auth.clientId : undefined;
}
