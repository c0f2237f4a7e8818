/**
 * Why `assertSafeExternalUrl` refused a URL:
 * - `invalid`: not an absolute URL;
 * - `not-https`: a scheme other than `https:` (plain `http:` only passes to a loopback host with `allowHttpLoopback`);
 * - `credentials`: a user name or password in the URL;
 * - `host-not-allowed`: the host is not on the `allowedHosts` list;
 * - `private-address`: the host is, or resolves to, a non-public address (loopback, private, link-local, ...)
 *   or is a local-only name such as `localhost` or `*.internal`;
 * - `unresolvable`: the host name did not resolve to any address;
 * - `sensitive-query`: the query or fragment looks like it carries a secret (token, session id, e-mail, JWT).
 */
export type UnsafeUrlReason =
  'invalid' | 'not-https' | 'credentials' | 'host-not-allowed' | 'private-address' | 'unresolvable' | 'sensitive-query';

/**
 * A URL refused by the external-URL policy (see `assertSafeExternalUrl`). The message names the problem and
 * the fix; it may name the host but never repeats query values, the fragment or credentials, which may be secrets.
 */
export class UnsafeUrlError extends Error {
  override readonly name = 'UnsafeUrlError';

  constructor(
    /** Machine-readable cause, e.g. `private-address`. */
    readonly reason: UnsafeUrlReason,
    problem: string,
    fix: string,
    options?: { cause?: unknown },
  ) {
    super(`Refused external URL: ${problem}. ${fix}`, options);
  }
}
