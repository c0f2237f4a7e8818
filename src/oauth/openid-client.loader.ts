import { ElicitationConfigError } from '../errors/elicitation-config.error.js';

/** `openid-client` (panva), the optional peer the OAuth flow is built on: an ES module, loaded at first use. */
export type OpenIdClient = typeof import('openid-client');

let loading: Promise<OpenIdClient> | undefined;

/**
 * The `openid-client` module, imported once. Fails with an `ElicitationConfigError` naming the `oauth` option
 * when the package is not installed (it is needed only with `oauth` providers).
 */
export function loadOpenIdClient(): Promise<OpenIdClient> {
  loading ??= import('openid-client').catch((error: unknown) => {
    loading = undefined;
    throw Object.assign(new ElicitationConfigError('oauth', 'needs the openid-client package (npm install openid-client@6)'), {
      cause: error,
    });
  });
  return loading;
}
