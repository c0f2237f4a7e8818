import ipaddr from 'ipaddr.js';
import type { ElicitationModuleOptions } from './elicitation-options.interface.js';
import { ElicitationConfigError } from '../errors/elicitation-config.error.js';
import type { Resolved } from './option-values.js';

/** An absolute http(s) URL without spaces, quotes or angle brackets. */
export const HTTP_URL = /^https?:\/\/[^\s"'<>]+$/;
const BASE_URL_EXAMPLE = 'e.g. "https://mcp.example.com"';

/** `baseUrl`: an absolute http(s) URL without query, fragment or credentials; warns on plain http off loopback. */
export function resolveUrls(raw: ElicitationModuleOptions, warnings: string[]): Resolved<'baseUrl'> {
  const value: unknown = raw.baseUrl;
  const got = { value: typeof value === 'string' ? urlText(value) : value, hint: baseUrlHint(value) };
  let base: URL;
  try {
    base = new URL(String(value));
  } catch {
    throw new ElicitationConfigError('baseUrl', `must be the absolute public URL browsers use to reach this app, ${BASE_URL_EXAMPLE}`, got);
  }
  if (typeof value !== 'string' || (base.protocol !== 'https:' && base.protocol !== 'http:')) {
    throw new ElicitationConfigError('baseUrl', `must be an http: or https: URL, ${BASE_URL_EXAMPLE}`, got);
  }
  if (base.search || base.hash || base.username || base.password) {
    throw new ElicitationConfigError('baseUrl', 'must not carry a query, a fragment or credentials', got);
  }
  if (base.protocol === 'http:' && !isLoopbackHost(base.hostname)) {
    warnings.push(`baseUrl ${base.origin} is plain http on a non-loopback host: elicitation pages collect secrets, serve them over https.`);
  }
  return { baseUrl: base.href.replace(/\/+$/, '') };
}

/** `logoUrl` and `loginUrl`: an http(s) URL or a path on this origin (`/…`, not `//…`). */
export function checkPageUrl(option: 'logoUrl' | 'loginUrl', value: unknown, path: RegExp): void {
  if (value === undefined || (typeof value === 'string' && (path.test(value) || HTTP_URL.test(value)))) return;
  throw new ElicitationConfigError(option, 'must be an http(s) URL or a path starting with "/"', {
    value: typeof value === 'string' ? urlText(value) : value,
  });
}

/**
 * What `baseUrl` was probably meant to be: the URL with the scheme it lacks (`localhost:3000` →
 * `http://localhost:3000`: http on a loopback host, https elsewhere), or a reminder when it is empty.
 */
function baseUrlHint(value: unknown): string | undefined {
  if (value === undefined || value === '') return 'is the environment variable it is read from set?';
  if (typeof value !== 'string' || /^[a-z][a-z0-9+.-]*:\/\//i.test(value.trim())) return undefined;
  const rest = value.trim().replace(/^\/\//, '');
  const host = rest.startsWith('[') ? rest.slice(0, rest.indexOf(']') + 1) : rest.split(/[/:?#]/)[0];
  if (!host || /^[^/?#]*@/.test(rest)) return undefined; // no URL with credentials is a fix
  const candidate = `${isLoopbackHost(host) ? 'http' : 'https'}://${rest}`;
  try {
    if (!new URL(candidate).hostname) return undefined;
  } catch {
    return undefined;
  }
  return `did you mean "${urlText(candidate)}"?`;
}

/** A URL as an error may show it: credentials, query and fragment replaced by `<redacted>` (they may hold secrets). */
export function urlText(text: string): string {
  return text
    .replace(/^([^/?#@]*?\/\/)?[^/?#@]*@/, (_match, scheme: string | undefined) => `${scheme ?? ''}<redacted>@`)
    .replace(/[?#][\s\S]*$/, (rest) => `${rest[0]}<redacted>`);
}

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (!ipaddr.isValid(host)) return false;
  return ipaddr.process(host).range() === 'loopback';
}
