import { DEFAULT_LIMITS, DEFAULT_THROTTLE } from './elicitation.constants.js';
import type { ElicitationModuleOptions } from './elicitation-options.interface.js';
import type { ResolvedElicitationOptions } from './resolved-options.js';
import { ElicitationConfigError } from '../errors/elicitation-config.error.js';
import { positiveCount } from './option-values.js';

/**
 * `limits`: each a positive whole number, defaulted one by one from `DEFAULT_LIMITS`; `uploadBufferBytes` at least
 * `maxUploadBytes` (its default grows to it), or no file of the largest size could ever be received.
 */
export function resolveLimits(raw: ElicitationModuleOptions['limits']): ResolvedElicitationOptions['limits'] {
  if (raw !== undefined && (raw === null || typeof raw !== 'object')) {
    throw new ElicitationConfigError('limits', 'must be an object such as { createPerMinute: 10 }', { value: raw });
  }
  const count = (name: keyof typeof DEFAULT_LIMITS): number => positiveCount(`limits.${name}`, raw?.[name], DEFAULT_LIMITS[name]);
  const maxUploadBytes = count('maxUploadBytes');
  const uploadBufferBytes = positiveCount(
    'limits.uploadBufferBytes',
    raw?.uploadBufferBytes,
    Math.max(DEFAULT_LIMITS.uploadBufferBytes, maxUploadBytes),
  );
  if (uploadBufferBytes < maxUploadBytes) {
    throw new ElicitationConfigError(
      'limits.uploadBufferBytes',
      `must be at least limits.maxUploadBytes (${maxUploadBytes}): a file of that size could never be received`,
      { value: raw?.uploadBufferBytes },
    );
  }
  return {
    createPerMinute: count('createPerMinute'),
    maxPendingPerUser: count('maxPendingPerUser'),
    maxPending: count('maxPending'),
    maxBodyBytes: count('maxBodyBytes'),
    maxMetadataBytes: count('maxMetadataBytes'),
    maxResultBytes: count('maxResultBytes'),
    maxFormAttempts: count('maxFormAttempts'),
    maxUploadBytes,
    uploadBufferBytes,
    maxCallsInFlightPerSession: count('maxCallsInFlightPerSession'),
    maxCallsInFlightPerUser: count('maxCallsInFlightPerUser'),
    maxStepResultBytes: count('maxStepResultBytes'),
  };
}

/** `throttle`: `false`, or a positive whole `limit` per `ttlMs` window, defaulted from `DEFAULT_THROTTLE`. */
export function resolveThrottle(raw: ElicitationModuleOptions['throttle']): ResolvedElicitationOptions['throttle'] {
  if (raw === false) return false;
  if (raw !== undefined && (raw === null || typeof raw !== 'object')) {
    throw new ElicitationConfigError('throttle', 'must be false or an object such as { limit: 60, ttlMs: 60000 }', { value: raw });
  }
  return {
    limit: positiveCount('throttle.limit', raw?.limit, DEFAULT_THROTTLE.limit),
    ttlMs: positiveCount('throttle.ttlMs', raw?.ttlMs, DEFAULT_THROTTLE.ttlMs, 'must be a positive whole number of milliseconds'),
  };
}

/** `externalUrlPolicy`: an object; its fields default inside `assertSafeExternalUrl`. */
export function resolveExternalUrlPolicy(
  raw: ElicitationModuleOptions['externalUrlPolicy'],
): ResolvedElicitationOptions['externalUrlPolicy'] {
  if (raw !== undefined && (raw === null || typeof raw !== 'object')) {
    throw new ElicitationConfigError('externalUrlPolicy', 'must be an object such as { allowedHosts: ["accounts.example.com"] }', {
      value: raw,
    });
  }
  return raw ?? {};
}

/** `audit`: `'log'`, a sink function, or `false` (the default: off). */
export function resolveAudit(raw: ElicitationModuleOptions['audit']): ResolvedElicitationOptions['audit'] {
  if (raw === undefined || raw === false || raw === 'log' || typeof raw === 'function') return raw ?? false;
  const given: unknown = raw;
  throw new ElicitationConfigError('audit', "must be 'log' (a JSON line per record through Nest's Logger), a function or false", {
    value: given,
    hint: given === true || given === 'true' ? "did you mean 'log'?" : undefined,
  });
}
