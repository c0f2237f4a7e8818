import dns from 'node:dns';
import ipaddr from 'ipaddr.js';
import { UnsafeUrlError } from '../errors/unsafe-url.error.js';

/**
 * Which external URLs `assertSafeExternalUrl` accepts. Every field is optional: the default policy accepts any
 * `https:` URL without credentials whose host is, and resolves only to, public unicast addresses.
 */
export interface ExternalUrlPolicy {
  /**
   * Hosts the URL may point at: exact host names (`auth.example.com`) or `*.example.com` wildcards, which match
   * subdomains at any depth but not the apex `example.com` itself. Entries and URL hosts are both normalised by
   * the WHATWG URL parser (lower case, IDNA/punycode, trailing dot ignored) before an exact comparison.
   * The address checks still apply to allowed hosts. An entry that is not a host name throws a `TypeError`.
   * @default undefined (any host passing the address checks)
   */
  allowedHosts?: string[];

  /**
   * Local development only: permits plain `http:` when the host is loopback (`localhost`, `*.localhost`,
   * `127.0.0.0/8`, `[::1]`), and then accepts loopback addresses (for `https:` too). Other non-public
   * addresses and local-only names such as `*.internal` stay refused.
   * @default false
   */
  allowHttpLoopback?: boolean;

  /**
   * Resolves a host name to its IP addresses (strings) before the address checks. Injectable for tests or for
   * a custom resolver; an empty result or a rejection refuses the URL as `unresolvable`.
   * @default (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true }) mapped to the addresses
   */
  resolveHost?: (hostname: string) => Promise<string[]>;
}

/** IANA's only global unicast allocation for IPv6; `ipaddr.js` calls everything it has no name for `unicast`. */
const IPV6_GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');
/** Deprecated IPv4-compatible addresses (RFC 4291 §2.5.5.1), e.g. `[::7f00:1]`: `ipaddr.js` says `unicast`. */
const IPV6_IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');

/** Local-only DNS suffixes, refused by name (RFC 6762 `.local`, ICANN `.internal`, RFC 8375 `home.arpa`). */
const LOCAL_SUFFIXES = ['local', 'internal', 'localdomain', 'home.arpa'];

const SENSITIVE_NAMES = new Set([
  'session',
  'sessionid',
  'session_id',
  'sid',
  'jsessionid',
  'phpsessid',
  'token',
  'access_token',
  'id_token',
  'refresh_token',
  'auth',
  'authorization',
  'api_key',
  'apikey',
  'key',
  'secret',
  'password',
  'passwd',
  'pwd',
  'code_verifier',
  'client_secret',
]);

/** Something shaped like an e-mail address: `local@domain.tld` (domain labels may be non-ASCII). */
const EMAIL = /[^\s@<>()[\]\\,;:"/?#&=]+@[^\s@<>()[\]\\,;:"/?#&=.]+(?:\.[^\s@<>()[\]\\,;:"/?#&=.]+)+/u;
/** Something shaped like a JWT/JWS: three base64url segments separated by dots, the header starting `eyJ` (`{"`). */
const JWT = /eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/;

const SECRET_FIX =
  'Keep tokens, session ids and personal data out of URLs (they end up in logs, history and Referer headers): ' +
  'send them in headers or keep them server-side and pass an opaque, single-use reference instead';

/**
 * Checks a URL that the application is about to show to a user or fetch on their behalf (SSRF and leak guard)
 * and returns it parsed. Refuses, with an `UnsafeUrlError` whose `reason` says why:
 * - anything the WHATWG URL parser rejects (`invalid`);
 * - a scheme other than `https:`; plain `http:` only to a loopback host with `allowHttpLoopback` (`not-https`);
 * - a user name or password (`credentials`);
 * - a host missing from `policy.allowedHosts`, when given (`host-not-allowed`);
 * - a query or fragment that looks like it carries a secret, see `lintUrlQuery` (`sensitive-query`);
 * - a literal IP host (any WHATWG IPv4 spelling: `2130706433`, `0177.0.0.1`, `0x7f.1`, `127.1`; or bracketed
 *   IPv6, IPv4-mapped/-compatible, NAT64, 6to4, Teredo...) whose `ipaddr.js` range is not `unicast`, or an IPv6
 *   address outside the global unicast block `2000::/3` (`private-address`);
 * - `localhost`, `*.localhost`, and names under `.local`, `.internal`, `.localdomain`, `home.arpa`, with or
 *   without a trailing dot (`private-address`; the loopback names pass with `allowHttpLoopback`);
 * - a host name that does not resolve (`unresolvable`) or of which ANY resolved address is not public unicast
 *   (`private-address`).
 *
 * The DNS check is a pre-resolution: it cannot stop DNS rebinding between this check and a later fetch, so a
 * server-side fetch should also pin the checked addresses or re-check the connected peer.
 *
 * @param input the URL as received (absolute).
 * @param policy optional allow-list, loopback switch and resolver, see `ExternalUrlPolicy`.
 * @returns the parsed URL, to use instead of re-parsing `input`.
 * @throws UnsafeUrlError when the URL is refused; TypeError when `policy.allowedHosts` holds a non-host entry.
 */
export async function assertSafeExternalUrl(input: string, policy: ExternalUrlPolicy = {}): Promise<URL> {
  let url: URL;
  try {
    if (typeof input !== 'string') throw new TypeError('not a string');
    url = new URL(input);
  } catch {
    throw new UnsafeUrlError(
      'invalid',
      'the value is not an absolute URL',
      'Pass a complete https:// URL, e.g. "https://example.com/path"',
    );
  }

  const allowLoopback = policy.allowHttpLoopback === true;
  const hostname = url.hostname;
  const name = stripTrailingDots(hostname);
  const literal = literalAddress(hostname);
  const literalRange = literal === undefined ? undefined : classifyAddress(literal);
  const isLoopbackHost = literal === undefined ? isLoopbackName(name) : literalRange === 'loopback';

  if (url.protocol !== 'https:') {
    const devLoopback = url.protocol === 'http:' && allowLoopback && isLoopbackHost;
    if (!devLoopback) {
      throw url.protocol === 'http:'
        ? new UnsafeUrlError(
            'not-https',
            `plain http to "${hostname}" is not allowed`,
            'Use an https:// URL (plain http is only accepted for a loopback host with allowHttpLoopback, for local development)',
          )
        : new UnsafeUrlError('not-https', `the scheme "${url.protocol}" is not allowed`, 'Use an https:// URL');
    }
  }

  if (url.username || url.password) {
    throw new UnsafeUrlError(
      'credentials',
      `the URL to "${hostname}" embeds a user name or password`,
      'Remove the "user:password@" part; authenticate with headers or a server-side session instead',
    );
  }

  if (policy.allowedHosts !== undefined && !hostAllowed(name, policy.allowedHosts)) {
    throw new UnsafeUrlError(
      'host-not-allowed',
      `the host "${hostname}" is not on the allowedHosts list`,
      'Use a URL on an allowed host, or add the host (or a "*.domain" wildcard) to allowedHosts',
    );
  }

  lintUrlQuery(url);

  const accept = (range: string): boolean =>
    url.protocol === 'http:' ? range === 'loopback' : range === 'unicast' || (allowLoopback && range === 'loopback');

  if (literal !== undefined) {
    if (literalRange === undefined || !accept(literalRange)) {
      throw privateAddress(hostname, `is a ${literalRange ?? 'malformed'} IP address`);
    }
    return url;
  }

  if (isLoopbackName(name) ? !allowLoopback : isLocalOnlyName(name)) {
    throw privateAddress(hostname, 'is a local-only host name');
  }

  const resolve = policy.resolveHost ?? defaultResolveHost;
  let addresses: unknown;
  try {
    addresses = await resolve(hostname);
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    throw new UnsafeUrlError(
      'unresolvable',
      `the host "${hostname}" could not be resolved${typeof code === 'string' ? ` (${code})` : ''}`,
      'Check the host name for typos and that it has public DNS records',
      { cause: error },
    );
  }
  if (!Array.isArray(addresses) || addresses.length === 0) {
    throw new UnsafeUrlError(
      'unresolvable',
      `the host "${hostname}" resolved to no address`,
      'Check the host name for typos and that it has public DNS records',
    );
  }
  for (const address of addresses) {
    const range = typeof address === 'string' ? classifyAddress(address) : undefined;
    if (range === undefined) {
      throw new UnsafeUrlError(
        'unresolvable',
        `the host "${hostname}" resolved to something that is not an IP address`,
        'Check the resolveHost function of the policy: it must return IP address strings',
      );
    }
    if (!accept(range)) {
      throw privateAddress(hostname, `resolves to ${address}, a ${range} address`);
    }
  }
  return url;
}

/**
 * Refuses a URL whose query (or fragment) looks like it carries a secret. Throws `UnsafeUrlError` with reason
 * `sensitive-query` when:
 * - a parameter NAME, compared case-insensitively with `-` read as `_`, is a session id or credential name
 *   (`session`, `sessionid`, `sid`, `jsessionid`, `phpsessid`, `token`, `access_token`, `id_token`,
 *   `refresh_token`, `auth`, `authorization`, `api_key`, `apikey`, `key`, `secret`, `password`, `passwd`,
 *   `pwd`, `code_verifier`, `client_secret`) or ends in `_token` or `_secret`; fragment parameters such as
 *   `#access_token=...` (OAuth implicit flow) count too;
 * - any parameter name or value, or the fragment, contains an e-mail address or a JWT-looking value
 *   (three base64url segments separated by dots, the first starting with `eyJ`).
 *
 * The usual OAuth consent parameters (`client_id`, `redirect_uri`, `state`, `scope`, `response_type`,
 * `code_challenge`, `code_challenge_method`) pass. The error message may name the parameter but never its value.
 *
 * @param url an already parsed URL.
 * @throws UnsafeUrlError (`sensitive-query`).
 */
export function lintUrlQuery(url: URL): void {
  checkParams(url.searchParams, 'query parameter');

  const fragment = url.hash.slice(1);
  if (!fragment) return;
  let decoded = fragment;
  try {
    decoded = decodeURIComponent(fragment);
  } catch {
    // Malformed escapes: check the raw text.
  }
  if (looksSecret(fragment) || looksSecret(decoded)) {
    throw sensitiveQuery('the URL fragment contains an e-mail address or a token (JWT)');
  }
  checkParams(new URLSearchParams(fragment), 'fragment parameter');
  const queryInFragment = fragment.indexOf('?');
  if (queryInFragment >= 0) checkParams(new URLSearchParams(fragment.slice(queryInFragment + 1)), 'fragment parameter');
}

function checkParams(params: URLSearchParams, what: string): void {
  for (const [name, value] of params) {
    const key = name.toLowerCase().replace(/-/g, '_');
    if (SENSITIVE_NAMES.has(key) || key.endsWith('_token') || key.endsWith('_secret')) {
      throw sensitiveQuery(`the ${what} ${quoteName(name)} looks like a token, session id or credential`);
    }
    if (looksSecret(name) || looksSecret(value)) {
      throw sensitiveQuery(`the ${what} ${quoteName(name)} contains an e-mail address or a token (JWT)`);
    }
  }
}

function looksSecret(text: string): boolean {
  return EMAIL.test(text) || JWT.test(text);
}

/** Names a parameter only when the name itself cannot be the secret. */
function quoteName(name: string): string {
  return /^[A-Za-z0-9_.[\]-]{1,40}$/.test(name) && !looksSecret(name) ? `"${name}"` : '(name withheld)';
}

function sensitiveQuery(problem: string): UnsafeUrlError {
  return new UnsafeUrlError('sensitive-query', problem, SECRET_FIX);
}

function privateAddress(hostname: string, problem: string): UnsafeUrlError {
  return new UnsafeUrlError(
    'private-address',
    `the host "${hostname}" ${problem}`,
    'Only public hosts are allowed: use a URL whose host resolves to public addresses ' +
      '(loopback is only accepted with allowHttpLoopback, for local development)',
  );
}

async function defaultResolveHost(hostname: string): Promise<string[]> {
  const results = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return results.map((result) => result.address);
}

function stripTrailingDots(hostname: string): string {
  return hostname.replace(/\.+$/, '');
}

/** The IP address of a literal host, as normalised by WHATWG URL (`[v6]` or dotted-quad v4); else undefined. */
function literalAddress(hostname: string): string | undefined {
  if (hostname.startsWith('[') && hostname.endsWith(']')) return hostname.slice(1, -1);
  return ipaddr.IPv4.isValidFourPartDecimal(hostname) ? hostname : undefined;
}

/**
 * The `ipaddr.js` range of an address, IPv4-mapped IPv6 unwrapped first (`ipaddr.process`); IPv6 addresses it
 * calls `unicast` but that lie outside `2000::/3` get a range of their own. Undefined when not an IP address.
 */
function classifyAddress(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return undefined;
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  if (range === 'unicast' && parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.match(IPV6_IPV4_COMPATIBLE)) return 'ipv4Compatible';
    if (!v6.match(IPV6_GLOBAL_UNICAST)) return 'nonGlobalUnicast';
  }
  return range;
}

function isLoopbackName(name: string): boolean {
  return name === 'localhost' || name.endsWith('.localhost');
}

function isLocalOnlyName(name: string): boolean {
  return isLoopbackName(name) || LOCAL_SUFFIXES.some((suffix) => name === suffix || name.endsWith(`.${suffix}`));
}

function hostAllowed(name: string, allowedHosts: string[]): boolean {
  if (!Array.isArray(allowedHosts)) {
    throw new TypeError('ExternalUrlPolicy.allowedHosts must be an array of host names');
  }
  return allowedHosts.some((entry) => {
    const { host, wildcard } = normaliseAllowedHost(entry);
    return wildcard ? name.endsWith(`.${host}`) : name === host;
  });
}

function normaliseAllowedHost(entry: unknown): { host: string; wildcard: boolean } {
  const invalid = () =>
    new TypeError(
      `ExternalUrlPolicy.allowedHosts entry ${JSON.stringify(entry)} is not a host name: ` +
        'use "example.com" or "*.example.com" (no scheme, port or path)',
    );
  if (typeof entry !== 'string') throw invalid();
  const wildcard = entry.startsWith('*.');
  const raw = wildcard ? entry.slice(2) : entry;
  if (!raw || /[\s/\\?#@*%]/.test(raw) || (/:/.test(raw) && !/^\[[0-9a-fA-F:.]+\]$/.test(raw))) throw invalid();
  let host: string;
  try {
    host = new URL(`https://${raw}/`).hostname;
  } catch {
    throw invalid();
  }
  host = stripTrailingDots(host);
  if (!host) throw invalid();
  return { host, wildcard };
}
