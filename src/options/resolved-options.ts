import type { ClientPolicy, FallbackRung, McpClientProfile, PageFallbackRung, UrlRequiredMode } from './client-ladder.js';
import type { ElicitationModuleOptions } from './elicitation-options.interface.js';
import type { PageMessagesOverride } from '../messages/locales.js';
import type { ResolvedNotifyOptions, ElicitationNotifyOptions } from './notify-options.js';
import type { ResolvedOAuthOptions } from './oauth-options.js';
import type {
  ElicitationLimits,
  ElicitationTaskOptions,
  ElicitationThrottle,
  ResolveLocale,
  ResolvePageUser,
  UploadSink,
} from './option-groups.js';
import type { ResolvedPasskeyOptions } from './passkey-options.js';
import type { ExternalUrlPolicy } from '../security/url-policy.js';

// The options as the module holds them once checked and defaulted (`resolveElicitationOptions`): what the slices are
// copied from. The options an app writes are `elicitation-options.interface.ts`'s.

/** Options after validation and defaults: what services inject (`ELICITATION_RESOLVED_OPTIONS`). */
export interface ResolvedElicitationOptions extends Required<
  Omit<
    ElicitationModuleOptions,
    | 'store'
    | 'logoUrl'
    | 'templatesDir'
    | 'resolveLocale'
    | 'messages'
    | 'resolvePageUser'
    | 'loginUrl'
    | 'encryptionKey'
    | 'limits'
    | 'tasks'
    | 'throttle'
    | 'externalUrlPolicy'
    | 'oauth'
    | 'fallback'
    | 'clientPolicy'
    | 'clientProfiles'
    | 'urlRequired'
    | 'extendMs'
    | 'uploadSink'
    | 'passkeys'
    | keyof ElicitationNotifyOptions
  >
> {
  /** `passkeys`, checked and defaulted. */
  passkeys: ResolvedPasskeyOptions;
  /** `notify`, `resolveContact`, `reminders`, `escalateTo` and `outbox`, checked and defaulted. */
  notifications: ResolvedNotifyOptions;
  /** As given; file contents are sealed in the store when unset. */
  uploadSink?: UploadSink;
  /** As given; each elicitation's own lifetime when unset. */
  extendMs?: number;
  /** Both ladders, defaulted. */
  fallback: { page: readonly PageFallbackRung[]; form: readonly FallbackRung[] };
  /** The built-in client profiles that are on, then the app's policy; unset when neither changes anything. */
  clientPolicy?: ClientPolicy;
  /** Whether a client's declared extension is acted on as absent (a built-in profile that is on hides it). */
  hiddenExtension?: (client: { name?: string; version?: string }, extension: string) => boolean;
  /** How `requireAnswer` asks a 2025-11-25 client on the `url` rung; unset: `'error'` for every client. */
  urlRequired?: (client: McpClientProfile) => UrlRequiredMode;
  /** As given; none by default. */
  logoUrl?: string;
  /** As given; the package's `templates/` folder when unset. */
  templatesDir?: string;
  /** The text colour drawn on `primaryColor` (white or near black, whichever reaches 4.5:1). */
  primaryTextColor: string;
  /** As given; the `Accept-Language` header decides when unset. */
  resolveLocale?: ResolveLocale;
  /** As given (checked); none by default. */
  messages: Readonly<Record<string, PageMessagesOverride>>;
  /** As given; pages are not identity-checked when unset. */
  resolvePageUser?: ResolvePageUser;
  /** As given; a browser without a user gets 401 when unset. */
  loginUrl?: string;
  /** The key ring: 32-byte keys, the first one encrypts. */
  encryptionKeys: Buffer[];
  /** Every limit, defaulted. */
  limits: Required<ElicitationLimits>;
  /** The task settings, defaulted. */
  tasks: Required<ElicitationTaskOptions>;
  /** The throttle, defaulted, or `false` when disabled. */
  throttle: Required<ElicitationThrottle> | false;
  /** As given, or `{}` (the built-in policy). */
  externalUrlPolicy: ExternalUrlPolicy;
  /** The providers, checked and defaulted; none when unset. */
  oauth?: ResolvedOAuthOptions;
  /** `baseUrl` without a trailing slash. */
  baseUrl: string;
  /** The URL segment the routes are mounted under (from the `routePrefix` extra). */
  routePrefix: string;
}
