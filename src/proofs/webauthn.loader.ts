import { ElicitationConfigError } from '../errors/elicitation-config.error.js';

/** `@simplewebauthn/server`, the optional peer passkeys are verified with: loaded at first use. */
export type WebAuthnServer = typeof import('@simplewebauthn/server');

let loading: Promise<WebAuthnServer> | undefined;

/**
 * The `@simplewebauthn/server` module, imported once. Fails with an `ElicitationConfigError` naming the `passkeys`
 * option when the package is not installed (it is needed only for passkeys: `presence: 'passkey'` and the passkey page).
 */
export function loadWebAuthn(): Promise<WebAuthnServer> {
  loading ??= import('@simplewebauthn/server').catch((error: unknown) => {
    loading = undefined;
    throw Object.assign(
      new ElicitationConfigError('passkeys', 'need the @simplewebauthn/server package (npm install @simplewebauthn/server@14)'),
      {
        cause: error,
      },
    );
  });
  return loading;
}
