import { Inject } from '@nestjs/common';
import type { ResolvedElicitationOptions } from './resolved-options.js';
import type { ResolvedOAuthProvider } from './oauth-options.js';

/**
 * What the creation checks of an `oauth` ask read of the `oauth` option: each provider's name and scopes. No client
 * id or secret: those stay with `oauth/` (`ElicitationOAuthFeatureOptions`).
 */
export interface OAuthAskOptions {
  readonly providers: ReadonlyMap<string, Readonly<Pick<ResolvedOAuthProvider, 'name' | 'scopes'>>>;
}

/** The limits the lifecycle enforces: creation's quota and sizes, an answer's size, a hosted form's attempts. */
type LifecycleLimits = Pick<
  ResolvedElicitationOptions['limits'],
  'createPerMinute' | 'maxPendingPerUser' | 'maxPending' | 'maxMetadataBytes' | 'maxResultBytes' | 'maxUploadBytes' | 'maxFormAttempts'
>;

/**
 * The slice of the resolved options the lifecycle (`lifecycle/`: `ElicitationService`, `ElicitationRecords`,
 * `ElicitationTransitions`) reads: where the pages are (page URLs), how long a record lives and is retained, what
 * "Need more time?" gives, the creation checks' limits, the external URL policy and the `oauth` providers' names and
 * scopes. Never a secret: no `encryptionKey` ring (answers are sealed in the `AnswerBox` the module builds from it,
 * provided on its own), no OAuth client credential, no store.
 */
export interface ElicitationLifecycleOptions {
  readonly baseUrl: ResolvedElicitationOptions['baseUrl'];
  readonly routePrefix: ResolvedElicitationOptions['routePrefix'];
  readonly ttlMs: ResolvedElicitationOptions['ttlMs'];
  readonly retentionMs: ResolvedElicitationOptions['retentionMs'];
  readonly extendMs?: ResolvedElicitationOptions['extendMs'];
  readonly limits: Readonly<LifecycleLimits>;
  readonly externalUrlPolicy: ResolvedElicitationOptions['externalUrlPolicy'];
  readonly oauth?: OAuthAskOptions;
}

/** Injection token of the lifecycle's slice of the options (`ElicitationLifecycleOptions`). */
export const ELICITATION_LIFECYCLE_OPTIONS = Symbol('ElicitationLifecycleOptions');

/** Injects the lifecycle's slice of the options (`ELICITATION_LIFECYCLE_OPTIONS`), as `@InjectPageOptions()` does. */
export const InjectLifecycleOptions = (): PropertyDecorator & ParameterDecorator => Inject(ELICITATION_LIFECYCLE_OPTIONS);

/** The lifecycle's slice, copied field by field out of the resolved options (so nothing else comes along). */
export function lifecycleOptionsOf(options: ResolvedElicitationOptions): ElicitationLifecycleOptions {
  const { createPerMinute, maxPendingPerUser, maxPending, maxMetadataBytes, maxResultBytes, maxUploadBytes, maxFormAttempts } =
    options.limits;
  return Object.freeze({
    baseUrl: options.baseUrl,
    routePrefix: options.routePrefix,
    ttlMs: options.ttlMs,
    retentionMs: options.retentionMs,
    extendMs: options.extendMs,
    limits: Object.freeze({
      createPerMinute,
      maxPendingPerUser,
      maxPending,
      maxMetadataBytes,
      maxResultBytes,
      maxUploadBytes,
      maxFormAttempts,
    }),
    externalUrlPolicy: options.externalUrlPolicy,
    oauth: options.oauth && oauthAskOptionsOf(options.oauth.providers),
  });
}

/** Each provider's name and scopes, copied (its client id and secret left behind). */
function oauthAskOptionsOf(providers: ReadonlyMap<string, ResolvedOAuthProvider>): OAuthAskOptions {
  const asks = new Map([...providers].map(([key, { name, scopes }]) => [key, Object.freeze({ name, scopes })] as const));
  return Object.freeze({ providers: asks });
}
