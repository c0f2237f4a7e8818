import { Inject } from '@nestjs/common';
import type { ResolvedElicitationOptions } from './resolved-options.js';

/**
 * The slice of the resolved options the OAuth feature (`oauth/`: `OAuthProviders`, `OAuthFlow`, `OAuthGrants`)
 * reads: the `oauth` option (the providers, with the client secrets their code exchange needs, and the vault's
 * `retentionMs` and `refreshBeforeMs`), the external URL policy the providers' endpoints pass, and where the callback
 * is (`baseUrl`, `routePrefix`: the redirect URI). No `encryptionKey` ring: the `state` is sealed by the
 * `OAuthStateCodec` and the grants by the `AnswerBox` the module builds from it, each provided on its own; no store.
 */
export interface ElicitationOAuthFeatureOptions {
  readonly baseUrl: ResolvedElicitationOptions['baseUrl'];
  readonly routePrefix: ResolvedElicitationOptions['routePrefix'];
  readonly externalUrlPolicy: ResolvedElicitationOptions['externalUrlPolicy'];
  readonly oauth?: ResolvedElicitationOptions['oauth'];
}

/** Injection token of the OAuth feature's slice of the options (`ElicitationOAuthFeatureOptions`). */
export const ELICITATION_OAUTH_FEATURE_OPTIONS = Symbol('ElicitationOAuthFeatureOptions');

/** Injects the OAuth feature's slice of the options (`ELICITATION_OAUTH_FEATURE_OPTIONS`), as `@InjectPageOptions()` does. */
export const InjectOAuthFeatureOptions = (): PropertyDecorator & ParameterDecorator => Inject(ELICITATION_OAUTH_FEATURE_OPTIONS);

/** The OAuth feature's slice, copied field by field out of the resolved options (so nothing else comes along). */
export function oauthFeatureOptionsOf(options: ResolvedElicitationOptions): ElicitationOAuthFeatureOptions {
  return Object.freeze({
    baseUrl: options.baseUrl,
    routePrefix: options.routePrefix,
    externalUrlPolicy: options.externalUrlPolicy,
    oauth: options.oauth,
  });
}
