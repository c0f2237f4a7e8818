import type {
  ElicitationLimits,
  ElicitationModuleOptions,
  ElicitationTaskOptions,
  ElicitationThrottle,
} from './elicitation-options.interface.js';
import { ElicitationConfigError } from '../errors/elicitation-config.error.js';
import type { ElicitationFallback } from './client-ladder.js';
import type { ElicitationOAuthOptions, OAuthProviderOptions } from './oauth-options.js';
import type { ExternalUrlPolicy } from '../security/url-policy.js';
import { nearestKey } from './nearest-key.js';
import type { ElicitationOutboxOptions } from './notify-options.js';

/** Every key of `T`, checked by the compiler both ways: a key missing here or one `T` lacks fails the build. */
function keysOf<T>(keys: Record<keyof Required<T>, true>): readonly string[] {
  return Object.freeze(Object.keys(keys));
}

const MODULE_KEYS = keysOf<ElicitationModuleOptions>({
  baseUrl: true,
  ttlMs: true,
  retentionMs: true,
  cleanupIntervalMs: true,
  extendMs: true,
  requestStateTtlMs: true,
  pendingRetryWaitMs: true,
  pendingRetryRounds: true,
  callWaitMs: true,
  store: true,
  title: true,
  primaryColor: true,
  logoUrl: true,
  templatesDir: true,
  defaultLocale: true,
  resolveLocale: true,
  messages: true,
  resolvePageUser: true,
  loginUrl: true,
  allowUnverifiedPages: true,
  encryptionKey: true,
  limits: true,
  tasks: true,
  uploadSink: true,
  throttle: true,
  externalUrlPolicy: true,
  oauth: true,
  fallback: true,
  clientPolicy: true,
  clientProfiles: true,
  urlRequired: true,
  instantDeclineMs: true,
  keepAliveMs: true,
  resolveMcpUser: true,
  audit: true,
  passkeys: true,
  notify: true,
  resolveContact: true,
  reminders: true,
  escalateTo: true,
  outbox: true,
});
const LIMIT_KEYS = keysOf<ElicitationLimits>({
  createPerMinute: true,
  maxPendingPerUser: true,
  maxPending: true,
  maxBodyBytes: true,
  maxMetadataBytes: true,
  maxResultBytes: true,
  maxFormAttempts: true,
  maxUploadBytes: true,
  uploadBufferBytes: true,
  maxCallsInFlightPerSession: true,
  maxCallsInFlightPerUser: true,
  maxStepResultBytes: true,
});
const THROTTLE_KEYS = keysOf<ElicitationThrottle>({ limit: true, ttlMs: true });
const TASK_KEYS = keysOf<ElicitationTaskOptions>({
  ttlMs: true,
  pollIntervalMs: true,
  maxOpenPerUser: true,
  leaseMs: true,
  maxListenersPerUser: true,
  maxTasksPerListener: true,
  allowAnonymous: true,
  maxOpenAnonymous: true,
  createPerMinute: true,
  maxFinishedPerUser: true,
  maxFinished: true,
});
const FALLBACK_KEYS = keysOf<ElicitationFallback>({ page: true, form: true });
const URL_POLICY_KEYS = keysOf<ExternalUrlPolicy>({ allowedHosts: true, allowHttpLoopback: true, resolveHost: true });
const OAUTH_KEYS = keysOf<ElicitationOAuthOptions>({ providers: true, retentionMs: true, refreshBeforeMs: true });
const PROVIDER_KEYS = keysOf<OAuthProviderOptions>({
  issuer: true,
  authorizationEndpoint: true,
  tokenEndpoint: true,
  userinfoEndpoint: true,
  revocationEndpoint: true,
  clientId: true,
  clientSecret: true,
  scopes: true,
  authorizationParams: true,
  displayName: true,
});
const OUTBOX_KEYS = keysOf<ElicitationOutboxOptions>({
  pollIntervalMs: true,
  batchSize: true,
  leaseMs: true,
  sendTimeoutMs: true,
  maxAttempts: true,
  retryBaseMs: true,
  retryMaxMs: true,
  createdDelayMs: true,
  healthMaxAgeMs: true,
});
/**
 * The extras (`ElicitationModuleExtras`), which `forRootAsync` takes beside the factory: a factory's result that
 * holds one is never read for it (`forRoot` takes them out before the options reach the module).
 */
const EXTRA_KEYS = ['isGlobal', 'controllers', 'routePrefix'];
const ASYNC_KEYS = ['useFactory', 'useClass', 'useExisting', 'inject', 'imports', 'provideInjectionTokensFrom'];

/** An option group whose keys are checked: its known keys, and the groups inside it. */
interface KeyGroup {
  keys: readonly string[];
  inner?: Record<string, KeyGroup>;
  /** A record of names (the OAuth providers): every value is this group. */
  each?: KeyGroup;
}

const OPTIONS_GROUP: KeyGroup = {
  keys: MODULE_KEYS,
  inner: {
    limits: { keys: LIMIT_KEYS },
    tasks: { keys: TASK_KEYS },
    throttle: { keys: THROTTLE_KEYS },
    fallback: { keys: FALLBACK_KEYS },
    externalUrlPolicy: { keys: URL_POLICY_KEYS },
    outbox: { keys: OUTBOX_KEYS },
    oauth: { keys: OAUTH_KEYS, inner: { providers: { keys: [], each: { keys: PROVIDER_KEYS } } } },
  },
};

/** One unknown key: where it is and what it most likely meant. */
interface UnknownKey {
  path: string;
  advice: string;
}

/**
 * Refuses keys the options do not have, at every level with a fixed set of keys (`limits.maxUploadByte`,
 * `oauth.providers.github.clientSecrte`), each named with the key it most likely meant, all in one error: a
 * mistyped key would otherwise be ignored and its option left at its default. A key whose value is `undefined`
 * counts too (it is still a misspelling). `messages` checks its own keys (`overrideProblem`).
 */
export function checkOptionKeys(raw: object): void {
  const unknown: UnknownKey[] = [];
  collect(raw, OPTIONS_GROUP, '', unknown);
  if (unknown.length === 0) return;
  const [first, ...rest] = unknown;
  const others = rest.map((u) => `"${u.path}" (${u.advice})`);
  const more = others.length === 0 ? '' : `, and so ${others.length === 1 ? 'is' : 'are'} ${listed(others)}`;
  throw new ElicitationConfigError(first.path, `is unknown (${first.advice})${more}`);
}

function collect(value: object, group: KeyGroup, prefix: string, unknown: UnknownKey[]): void {
  for (const key of Object.keys(value)) {
    const path = `${prefix}${key}`;
    const inner = group.each ?? group.inner?.[key];
    const child: unknown = (value as Record<string, unknown>)[key];
    if (group.each || group.keys.includes(key)) {
      if (inner && isPlainObject(child)) collect(child, inner, `${path}.`, unknown);
      continue;
    }
    unknown.push({ path, advice: adviceFor(key, group, prefix) });
  }
}

function adviceFor(key: string, group: KeyGroup, prefix: string): string {
  if (prefix === '' && EXTRA_KEYS.includes(key)) {
    return `${key} is given beside the factory, not in its result: forRootAsync({ ${key}, useFactory })`;
  }
  if (prefix === '' && ASYNC_KEYS.includes(key)) return `${key} belongs to forRootAsync, not to the options`;
  const near = nearestKey(key, group.keys);
  if (near) return `did you mean "${prefix}${near}"${/Ms$/.test(near) && !/ms$/i.test(key) ? ', in milliseconds' : ''}?`;
  if (prefix === '') return 'ElicitationModuleOptions lists every option';
  return `${prefix.slice(0, -1)} takes ${group.keys.join(', ')}`;
}

function listed(items: string[]): string {
  return items.length === 1 ? items[0] : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function isPlainObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
