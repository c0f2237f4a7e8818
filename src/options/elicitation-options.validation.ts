import { DEFAULT_CLEANUP_INTERVAL_MS, DEFAULT_TTL_MS } from './elicitation.constants.js';
import type { ElicitationModuleOptions } from './elicitation-options.interface.js';
import type { ResolvedElicitationOptions } from './resolved-options.js';
import { ElicitationConfigError } from '../errors/elicitation-config.error.js';
import { resolveOAuthOptions } from './oauth-options.js';
import { checkPlugIns, resolveIdentity, resolveKeys } from './identity-options.validation.js';
import { resolveAudit, resolveExternalUrlPolicy, resolveLimits, resolveThrottle } from './limit-options.validation.js';
import { resolveMcp } from './mcp-options.validation.js';
import { checkOptionKeys } from './option-keys.validation.js';
import { positiveMs, type Resolved } from './option-values.js';
import { resolveLanguage, resolvePageLook } from './page-options.validation.js';
import { resolveUrls } from './url-options.validation.js';
import { resolveNotify } from './notify-options.validation.js';
import { resolvePasskeys } from './passkey-options.validation.js';

const ROUTE_SEGMENT = /^[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*$/;

/** Checks the `routePrefix` extra: one or more URL-safe path segments, no leading or trailing slash. */
export function validateRoutePrefix(prefix: unknown): string {
  const value = typeof prefix === 'string' ? prefix.replace(/^\/+|\/+$/g, '') : prefix;
  if (typeof value !== 'string' || !ROUTE_SEGMENT.test(value)) {
    throw new ElicitationConfigError(
      'routePrefix',
      'must be a URL path such as "elicit" or "mcp/elicit" (letters, digits, "-", "_", "." and "~")',
      { value: prefix },
    );
  }
  return value;
}

/**
 * Validates the raw options once, at bootstrap, for both `forRoot` and `forRootAsync`, and fills in the
 * defaults. `env` is the process environment (`NODE_ENV=production` turns two warnings into errors).
 * Returns the warnings to log (they do not stop the app). Unknown keys are refused first, all in one error (a
 * mistyped `baseURL` would otherwise be reported as a missing `baseUrl`); then each group checks its values, in
 * the order below, so that of several bad options the same one is reported first as always. The groups live in
 * `options/`.
 */
export function resolveElicitationOptions(
  raw: ElicitationModuleOptions | undefined,
  routePrefix: string,
  env: NodeJS.ProcessEnv,
): { options: ResolvedElicitationOptions; warnings: string[] } {
  if (!raw || typeof raw !== 'object') {
    throw new ElicitationConfigError('options', 'are missing: pass at least { baseUrl: "https://your.host" }', { value: raw });
  }
  checkOptionKeys(raw);
  const warnings: string[] = [];
  const production = env.NODE_ENV === 'production';
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
  const notifications = resolveNotify(raw);
  const passkeys = resolvePasskeys(
    raw.passkeys,
    { baseUrl: urls.baseUrl, title: look.title, identified: identity.resolvePageUser !== undefined },
    warnings,
  );
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
      notifications,
      passkeys,
    },
  };
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
