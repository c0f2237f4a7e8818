import { randomBytes } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import {
  DEFAULT_CLEANUP_INTERVAL_MS,
  DEFAULT_PENDING_RETRY_WAIT_MS,
  DEFAULT_REQUEST_STATE_TTL_MS,
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
    warnings.push(`baseUrl ${base.origin} is plain http on a non-loopback host: elicitation pages collect secrets, serve them over https.`);
  }

  const ttlMs = positiveMs('ttlMs', raw.ttlMs, DEFAULT_TTL_MS);
  const retentionMs = positiveMs('retentionMs', raw.retentionMs, ttlMs);
  const cleanupIntervalMs = positiveMs('cleanupIntervalMs', raw.cleanupIntervalMs, DEFAULT_CLEANUP_INTERVAL_MS, true);
  const requestStateTtlMs = positiveMs('requestStateTtlMs', raw.requestStateTtlMs, DEFAULT_REQUEST_STATE_TTL_MS);
  const pendingRetryWaitMs = positiveMs('pendingRetryWaitMs', raw.pendingRetryWaitMs, DEFAULT_PENDING_RETRY_WAIT_MS, true);

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
  const production = process.env.NODE_ENV === 'production';
  if (raw.allowUnverifiedPages !== undefined && typeof raw.allowUnverifiedPages !== 'boolean') {
    throw new ElicitationConfigError('allowUnverifiedPages', 'must be true or false');
  }
  if (!raw.resolvePageUser) {
    if (production && raw.allowUnverifiedPages !== true) {
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
  if (raw.loginUrl !== undefined) {
    const ok = typeof raw.loginUrl === 'string' && (/^\/(?![/\\])\S*$/.test(raw.loginUrl) || /^https?:\/\/[^\s"'<>]+$/.test(raw.loginUrl));
    if (!ok) throw new ElicitationConfigError('loginUrl', 'must be an http(s) URL or a path starting with "/"');
  }

  const encryptionKeys = parseKeys(raw.encryptionKey);
  if (encryptionKeys.length === 0) {
    if (production) {
      throw new ElicitationConfigError(
        'encryptionKey',
        'is required in production (secrets are encrypted at rest with it): pass 32 random bytes, e.g. from `openssl rand -base64 32`',
      );
    }
    encryptionKeys.push(randomBytes(32));
    warnings.push(
      'encryptionKey is not set: a random per-process key encrypts stored secrets, so they cannot be read after a restart or by another instance. Set encryptionKey (32 bytes) outside development.',
    );
  }

  const limits = resolveLimits(raw.limits);
  const throttle = resolveThrottle(raw.throttle);
  if (raw.externalUrlPolicy !== undefined && (raw.externalUrlPolicy === null || typeof raw.externalUrlPolicy !== 'object')) {
    throw new ElicitationConfigError('externalUrlPolicy', 'must be an object such as { allowedHosts: ["accounts.example.com"] }');
  }

  return {
    warnings,
    options: {
      baseUrl: base.href.replace(/\/+$/, ''),
      routePrefix,
      ttlMs,
      retentionMs,
      cleanupIntervalMs,
      requestStateTtlMs,
      pendingRetryWaitMs,
      title,
      primaryColor,
      logoUrl: raw.logoUrl,
      templatesDir: raw.templatesDir,
      resolvePageUser: raw.resolvePageUser,
      resolveMcpUser: raw.resolveMcpUser ?? defaultResolveMcpUser,
      loginUrl: raw.loginUrl,
      allowUnverifiedPages: raw.allowUnverifiedPages ?? false,
      encryptionKeys,
      limits,
      throttle,
      externalUrlPolicy: raw.externalUrlPolicy ?? {},
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

/** Reads `encryptionKey`: one key or a ring, each 32 bytes (Buffer, base64 or hex). */
function parseKeys(input: ElicitationModuleOptions['encryptionKey']): Buffer[] {
  if (input === undefined) return [];
  const list = Array.isArray(input) ? input : [input];
  if (list.length === 0) throw new ElicitationConfigError('encryptionKey', 'must hold at least one key');
  return list.map((key, i) => {
    let bytes: Buffer | undefined;
    if (Buffer.isBuffer(key)) bytes = key;
    else if (typeof key === 'string' && /^[0-9a-fA-F]{64}$/.test(key)) bytes = Buffer.from(key, 'hex');
    else if (typeof key === 'string') bytes = Buffer.from(key, 'base64');
    if (!bytes || bytes.length !== 32) {
      throw new ElicitationConfigError(
        Array.isArray(input) ? `encryptionKey[${i}]` : 'encryptionKey',
        'must be exactly 32 bytes: a Buffer, 64 hex characters or base64 (e.g. `openssl rand -base64 32`)',
      );
    }
    return Buffer.from(bytes);
  });
}

function resolveLimits(raw: ElicitationModuleOptions['limits']): ResolvedElicitationOptions['limits'] {
  if (raw !== undefined && (raw === null || typeof raw !== 'object')) {
    throw new ElicitationConfigError('limits', 'must be an object such as { createPerMinute: 10 }');
  }
  const count = (name: keyof NonNullable<typeof raw>, fallback: number) => {
    const v = raw?.[name] ?? fallback;
    if (!Number.isInteger(v) || (v as number) <= 0) {
      throw new ElicitationConfigError(`limits.${name}`, `must be a positive whole number, got ${JSON.stringify(v)}`);
    }
    return v as number;
  };
  return {
    createPerMinute: count('createPerMinute', 10),
    maxPendingPerUser: count('maxPendingPerUser', 20),
    maxPending: count('maxPending', 100_000),
    maxBodyBytes: count('maxBodyBytes', 16 * 1024),
    maxMetadataBytes: count('maxMetadataBytes', 4 * 1024),
    maxResultBytes: count('maxResultBytes', 1024 * 1024),
    maxFormAttempts: count('maxFormAttempts', 3),
  };
}

function resolveThrottle(raw: ElicitationModuleOptions['throttle']): ResolvedElicitationOptions['throttle'] {
  if (raw === false) return false;
  if (raw !== undefined && (raw === null || typeof raw !== 'object')) {
    throw new ElicitationConfigError('throttle', 'must be false or an object such as { limit: 60, ttlMs: 60000 }');
  }
  const limit = raw?.limit ?? 300;
  const ttlMs = raw?.ttlMs ?? 60_000;
  if (!Number.isInteger(limit) || limit <= 0) throw new ElicitationConfigError('throttle.limit', 'must be a positive whole number');
  if (!Number.isInteger(ttlMs) || ttlMs <= 0)
    throw new ElicitationConfigError('throttle.ttlMs', 'must be a positive whole number of milliseconds');
  return { limit, ttlMs };
}
