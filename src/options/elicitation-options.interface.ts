import type { ClientPolicy, ElicitationFallback } from './client-ladder.js';
import type { ClientProfileSwitches, UrlRequiredOption } from './client-profiles.js';
import type { ElicitationOAuthOptions } from './oauth-options.js';
import type { ElicitationAuditOption } from './audit-record.js';
import type { PageMessagesOverride } from '../messages/locales.js';
import type { ExternalUrlPolicy } from '../security/url-policy.js';
import type { ElicitationStore } from '../stores/elicitation-store.js';
import type { ElicitationNotifyOptions } from './notify-options.js';
import type { ElicitationPasskeyOptions } from './passkey-options.js';
import type {
  ElicitationLimits,
  ElicitationTaskOptions,
  UploadSink,
  ElicitationThrottle,
  ResolvePageUser,
  ResolveMcpUser,
  ResolveLocale,
} from './option-groups.js';

export type {
  ElicitationLimits,
  ElicitationTaskOptions,
  ElicitationUpload,
  UploadSink,
  ElicitationThrottle,
  ResolvePageUser,
  ResolveMcpUser,
  ResolveLocale,
} from './option-groups.js';

/** Options of `ElicitationModule.forRoot()` / `forRootAsync()`. */
export interface ElicitationModuleOptions extends ElicitationNotifyOptions {
  /**
   * Public origin (and path prefix, if the app has a global or `RouterModule` prefix) under which the
   * browser reaches this app, e.g. `https://mcp.example.com` or `https://example.com/api`.
   * Elicitation URLs are `${baseUrl}/${routePrefix}/:id/<page>`. Plain http is accepted (with a
   * warning off loopback hosts); a query, a fragment or credentials are refused.
   * @default none (required)
   */
  baseUrl: string;
  /**
   * Lifetime of a pending elicitation, in milliseconds. A page opened later answers 410.
   * @default 600000 (10 minutes)
   */
  ttlMs?: number;
  /**
   * How long a finished record (and a completed record's data) stays readable after it finished,
   * in milliseconds, for `getResult`, `findByUserAndType` and the 409/410 pages.
   * @default the value of `ttlMs`
   */
  retentionMs?: number;
  /**
   * Interval of the expiry sweep, in milliseconds; `0` disables the scheduler (expiry then happens
   * lazily on read).
   * @default 60000 (1 minute)
   */
  cleanupIntervalMs?: number;
  /**
   * How much time "Need more time?" adds to a pending elicitation, once, in milliseconds; never past twice its
   * original lifetime.
   * @default the elicitation's own lifetime
   */
  extendMs?: number;
  /**
   * Lifetime of a sealed `requestState` (protocol 2026-07-28): how long a client may take to retry a
   * tool call that answered `input_required`. Each retry gets a fresh state, so this bounds one round,
   * not the whole conversation.
   * @default 600000 (10 minutes)
   */
  requestStateTtlMs?: number;
  /**
   * Protocol 2026-07-28, URL mode: when a client retries while the user is still on the page, how long
   * the retry waits for the page to be submitted before it answers `input_required` again (with only a
   * fresh `requestState`, so the client retries once more): a long poll, well under the 60 s most clients wait for
   * an answer. In milliseconds; `0` answers at once.
   * @default 20000 (20 seconds)
   */
  pendingRetryWaitMs?: number;
  /**
   * Protocol 2026-07-28: retries of one unanswered page question (each held `pendingRetryWaitMs`) before the call
   * ends with the link result, the question still open for a later call of the tool, instead of answering
   * `input_required` again. SDK 2.x clients give up after 10 rounds; halfway, the page's URL request goes out again.
   * A whole number of at least 1.
   * @default 8
   */
  pendingRetryRounds?: number;
  /**
   * Protocol 2025-11-25: how long a tool call whose request carries no `progressToken` waits inside the call for a
   * person (on a page, or the form bridge) before it ends with the link result, the question still open for the tool's
   * next call. Such a call cannot be kept alive by progress notifications, and most clients cancel a request after
   * 60 s, which would cancel the question too. Keep it below your clients' request timeout. In milliseconds; `0`: no
   * limit (the call waits until the question ends or the client cancels).
   * @default 50000 (50 seconds)
   */
  callWaitMs?: number;
  /**
   * Where elicitations live. Pass an instance of any `ElicitationStore` implementation.
   * @default a new `MemoryElicitationStore`
   */
  store?: ElicitationStore;
  /**
   * Page title shown in the header and the browser tab, at most 200 characters.
   * @default 'Authorization request'
   */
  title?: string;
  /**
   * Accent colour of the pages: a CSS hex colour (`#rgb`, `#rrggbb`) or a CSS colour name. Button text on it is
   * white or near black, whichever reaches WCAG AA's 4.5:1; a colour that reaches it with neither fails start-up.
   * @default '#2563eb'
   */
  primaryColor?: string;
  /**
   * Logo shown in the page header: an absolute `https:`/`http:` URL or a path starting with `/`.
   * @default none
   */
  logoUrl?: string;
  /**
   * A folder with your own `.hbs` templates; any file there replaces the built-in one of the same name
   * (`layout`, `api-key`, `confirm`, `form`, `oauth`, `file`, `done`, `error`), and so do `page.css` and `page.js`,
   * the pages' stylesheet and script (served under `<routePrefix>/assets/`, named by a fingerprint of their content).
   * @default the package's `templates/` folder
   */
  templatesDir?: string;
  /**
   * The language of pages when neither `resolveLocale` nor the browser's `Accept-Language` names one with a
   * catalog: `en`, `de`, `ar` (built in) or a locale `messages` adds.
   * @default 'en'
   */
  defaultLocale?: string;
  /**
   * Picks a page's language from the request (see `ResolveLocale`); without it, or when it names none with a
   * catalog, the `Accept-Language` header decides, then `defaultLocale`.
   * @default none (Accept-Language)
   */
  resolveLocale?: ResolveLocale;
  /**
   * Texts of the pages per locale, laid over the built-in catalogs (`en`, `de`, `ar`) key by key, or adding a
   * locale (its missing texts come from `defaultLocale`'s catalog). The keys are those of `PageMessages`; a key
   * that is not there, or a text where the catalog has a function, fails start-up naming it.
   * @default none
   */
  messages?: Record<string, PageMessagesOverride>;
  /**
   * Identifies the browser user on every page request. Pages refuse (403) a user who is not the one
   * the elicitation was created for, and (401) a browser without a user. Without this option pages
   * are not identity-checked and the module logs a warning at start-up.
   * @default none
   */
  resolvePageUser?: ResolvePageUser;
  /**
   * Where to send a browser that has no user (resolvePageUser returned nothing) on a page GET: the browser
   * is redirected to `loginUrl` with `returnTo` set to the page's own path (never anything else, so it is
   * no open redirect). An absolute http(s) URL or a path starting with `/`.
   * @default none (the page answers 401)
   */
  loginUrl?: string;
  /**
   * With `NODE_ENV=production`, start-up fails when `resolvePageUser` is missing, because unverified pages
   * let anyone who obtains a link answer it (phishing). Set `true` to accept that risk explicitly.
   * @default false
   */
  allowUnverifiedPages?: boolean;
  /**
   * Key(s) for the AES-256-GCM encryption of every stored answer, the sealed `requestState` (protocol
   * 2026-07-28, with a key derived from each) and the pages' CSRF tokens (signed with the first key, accepted
   * under any): 32 bytes as a Buffer, or as a base64 or hex string. Pass an array to rotate: the first key
   * encrypts, all keys decrypt. Every instance sharing a store needs the same keys: on a store shared between
   * processes (`ElicitationStore.shared`, e.g. Redis) start-up fails without it in every environment, and an
   * instance whose keys share none with the running instances' refuses to start (key ids are compared, never
   * keys). Also required when `NODE_ENV=production`; otherwise a random per-process key is used (with a warning).
   * @default none (a random per-process key outside production, on a store of its own)
   */
  encryptionKey?: string | Buffer | Array<string | Buffer>;
  /**
   * Abuse limits; each field defaults on its own (see `ElicitationLimits`).
   * @default { createPerMinute: 10, maxPendingPerUser: 20, maxPending: 100000, maxBodyBytes: 16384, maxMetadataBytes: 4096, maxResultBytes: 1048576, maxFormAttempts: 3, maxUploadBytes: 5242880, uploadBufferBytes: 67108864, maxCallsInFlightPerSession: 16, maxCallsInFlightPerUser: 64, maxStepResultBytes: 8192 }
   */
  limits?: ElicitationLimits;
  /**
   * Tool calls that run as tasks (the MCP Tasks extension); each field defaults on its own (see `ElicitationTaskOptions`).
   * @default { ttlMs: 86400000, pollIntervalMs: 2000, maxOpenPerUser: 20, leaseMs: 30000, maxListenersPerUser: 10, maxTasksPerListener: 50, allowAnonymous: false, maxOpenAnonymous: 100, createPerMinute: 30, maxFinishedPerUser: 100, maxFinished: 10000 }
   */
  tasks?: ElicitationTaskOptions;
  /**
   * Where the files of file pages (`kind: 'file'`) go: called with each file's stream once its size and type passed,
   * resolves the reference the answer carries instead of the content (see `UploadSink`).
   * @default none (the content is sealed in the store, up to `limits.maxUploadBytes`)
   */
  uploadSink?: UploadSink;
  /**
   * Per-IP throttling of the pages and the status route, to stop id guessing; `false` disables it.
   * Counted by the module in the store (see `ElicitationThrottle`).
   * @default { limit: 300, ttlMs: 60000 }
   */
  throttle?: ElicitationThrottle | false;
  /**
   * The policy external elicitation URLs must pass (`createUrlElicitation({ kind: 'external', url })`).
   * @default https only, no private or reserved addresses (DNS pre-resolved), no secrets in the query
   */
  externalUrlPolicy?: ExternalUrlPolicy;
  /**
   * Connecting third-party accounts (`kind: 'oauth'`): the OAuth 2 / OpenID Connect providers by name, each
   * `{ issuer } | { authorizationEndpoint, tokenEndpoint, userinfoEndpoint? }` with `clientId`, `clientSecret?`,
   * `scopes` and `authorizationParams?` (see `ElicitationOAuthOptions`). Their endpoints pass `externalUrlPolicy`;
   * register `${baseUrl}/${routePrefix}/oauth/callback` at each. Needs the `openid-client` package.
   * @default none (kind 'oauth' is refused)
   */
  oauth?: ElicitationOAuthOptions;
  /**
   * How a question reaches a client that cannot take it the first way (MCP binding): an ordered list of
   * rungs per kind of question, the first that fits the client is used (see "Clients" in the README). Each
   * ask may give its own list (`fallback` on `requireAnswer`, `requestUrl`, `elicit`).
   * @default { page: ['url', 'form-bridge', 'link'], form: ['form', 'url', 'link'] }
   */
  fallback?: ElicitationFallback;
  /**
   * Decides which elicitation capabilities to act on for a client (MCP binding): receives
   * `{ name, version, era, declared }` and returns the capabilities to use, e.g. drops `url` for a client
   * known to decline every URL request. See "Clients" in the README for recipes.
   * @default the declared capabilities, as declared
   */
  clientPolicy?: ClientPolicy;
  /**
   * The built-in profiles of clients known to declare what they cannot do, each on unless turned off here by its id
   * (`{ 'mcp-remote': false }`); `clientPolicy` receives what they left. The profiles and the evidence behind each:
   * the Clients guide.
   * @default every profile on
   */
  clientProfiles?: ClientProfileSwitches;
  /**
   * Protocol 2025-11-25: how `requireAnswer` asks on the `url` rung. `'error'`: the call ends with -32042
   * (`URLElicitationRequiredError`) naming the page, and the client calls again once the person has finished;
   * `'request'`: a URL-mode request on the call's stream, awaited as `requestUrl`'s is (`callWaitMs`, then the link).
   * A function decides per client (`undefined`: the built-in profiles decide).
   * @default 'error', and 'request' for the clients of a built-in profile that pass -32042 to the app (mcp-use, Mastra)
   */
  urlRequired?: UrlRequiredOption;
  /**
   * A decline that arrives sooner than this many milliseconds after the question was sent is taken for
   * "this client cannot ask" (some clients decline every request at once): the question moves down the
   * ladder to the rungs that need no client dialog (`link`, `model`) instead of ending as `declined`. `0`: off.
   * @default 0 (off)
   */
  instantDeclineMs?: number;
  /**
   * Protocol 2025-11-25, while a call waits for a person (`requestUrl`, `elicit`, the form bridge): every this
   * many milliseconds a `notifications/progress` for the call's `progressToken` (when the client sent one),
   * so clients that reset their request timeout on progress keep waiting. `0`: off.
   * @default 15000 (15 seconds)
   */
  keepAliveMs?: number;
  /**
   * Identifies the verified user of an MCP tool call (MCP binding).
   * @default `extra.authInfo.extra.userId`, else `extra.authInfo.extra.sub`, else `extra.authInfo.clientId`
   */
  resolveMcpUser?: ResolveMcpUser;
  /**
   * The audit log: one structured record (`ElicitationAuditRecord`) per security-relevant event (created, page
   * opened or refused, answered, declined, cancelled, expired, answer consumed, `requestState` refused), never an
   * answer or a secret. `'log'`: one JSON line per record through Nest's `Logger` (context `ElicitationAudit`); a
   * function: called with each record (a sink that throws or rejects is logged, never disturbs the request);
   * `false`: off.
   * @default false
   */
  audit?: ElicitationAuditOption;
  /**
   * Passkeys, for pages that ask for one (`presence: 'passkey'`) and the passkey page (`/<routePrefix>/passkeys`): the
   * relying party's id and name, the origins, how many per user, who may add one (see docs/passkeys.md).
   * @default the relying party is `baseUrl`'s host, named by `title`; 10 passkeys per user; every signed-in user may add one
   */
  passkeys?: ElicitationPasskeyOptions;
}

/** What a `useClass` options factory implements. */
export interface ElicitationOptionsFactory {
  createElicitationOptions(): ElicitationModuleOptions | Promise<ElicitationModuleOptions>;
}
