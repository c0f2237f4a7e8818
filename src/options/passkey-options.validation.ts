import { isIP } from 'node:net';
import { ElicitationConfigError } from '../errors/elicitation-config.error.js';
import { positiveCount } from './option-values.js';
import type { ElicitationPasskeyOptions, ResolvedPasskeyOptions } from './passkey-options.js';

const PASSKEY_KEYS = ['rpId', 'rpName', 'origins', 'maxPerUser', 'canRegister'];

/**
 * Checks `passkeys` (naming the option and the value it got) and fills in the defaults from `baseUrl` and `title`. A
 * `baseUrl` on an IP address gets a warning: browsers accept passkeys only for a domain name (`localhost` in development).
 */
export function resolvePasskeys(
  raw: unknown,
  site: { baseUrl: string; title: string; identified: boolean },
  warnings: string[],
): ResolvedPasskeyOptions {
  const { baseUrl, title, identified } = site;
  if (raw !== undefined && (raw === null || typeof raw !== 'object' || Array.isArray(raw))) {
    throw new ElicitationConfigError('passkeys', 'must be an object', { value: raw });
  }
  const given = (raw ?? {}) as ElicitationPasskeyOptions;
  const unknown = Object.keys(given).find((key) => !PASSKEY_KEYS.includes(key));
  if (unknown !== undefined)
    throw new ElicitationConfigError(`passkeys.${unknown}`, `is not an option (known: ${PASSKEY_KEYS.join(', ')})`);
  const base = new URL(baseUrl);
  const host = base.hostname;
  const rpId = given.rpId ?? host;
  if (typeof rpId !== 'string' || rpId === '' || !(host === rpId || host.endsWith(`.${rpId}`))) {
    throw new ElicitationConfigError('passkeys.rpId', `must be baseUrl's host name (${host}) or a domain it ends with`, { value: rpId });
  }
  if (raw !== undefined && given.rpId === undefined && isIP(host.replace(/^\[|\]$/g, '')) !== 0) {
    warnings.push(
      `passkeys: baseUrl is on an IP address (${host}); browsers make passkeys only for a domain name (use localhost in development)`,
    );
  }
  const rpName = given.rpName ?? title;
  if (typeof rpName !== 'string' || rpName === '' || rpName.length > 100) {
    throw new ElicitationConfigError('passkeys.rpName', 'must be a non-empty string of at most 100 characters', { value: rpName });
  }
  const origins = given.origins ?? [base.origin];
  if (!Array.isArray(origins) || origins.length === 0 || origins.some((o) => typeof o !== 'string' || !isOrigin(o))) {
    throw new ElicitationConfigError('passkeys.origins', 'must be a non-empty list of origins (scheme://host[:port])', { value: origins });
  }
  if (given.canRegister !== undefined && typeof given.canRegister !== 'function') {
    throw new ElicitationConfigError('passkeys.canRegister', 'must be a function (user, req) => boolean | string', {
      value: given.canRegister,
    });
  }
  return Object.freeze({
    rpId,
    rpName,
    origins: Object.freeze([...(origins as string[])]),
    maxPerUser: positiveCount('passkeys.maxPerUser', given.maxPerUser, 10),
    ...(given.canRegister && { canRegister: given.canRegister }),
    identified,
    listed: raw !== undefined,
  });
}

function isOrigin(value: string): boolean {
  try {
    return new URL(value).origin === value;
  } catch {
    return false;
  }
}
