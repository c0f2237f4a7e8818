import type { ElicitationLimits, ElicitationThrottle, ResolveMcpUser } from './elicitation-options.interface.js';

/** Default lifetime of a pending elicitation: 10 minutes. */
export const DEFAULT_TTL_MS = 10 * 60_000;
/** Default interval of the expiry sweep: 60 seconds. */
export const DEFAULT_CLEANUP_INTERVAL_MS = 60_000;
/** Default lifetime of a sealed `requestState` (protocol 2026-07-28): 10 minutes. */
export const DEFAULT_REQUEST_STATE_TTL_MS = 10 * 60_000;

/** A task's lifetime (`tasks.ttlMs`): a person may take a day. */
export const DEFAULT_TASK_TTL_MS = 24 * 60 * 60_000;
/** How often a client should poll a task (`tasks.pollIntervalMs`). */
export const DEFAULT_TASK_POLL_INTERVAL_MS = 2_000;
/** Open tasks per user (`tasks.maxOpenPerUser`). */
export const DEFAULT_TASK_MAX_OPEN_PER_USER = 20;
/** An instance's claim on a running task (`tasks.leaseMs`). */
export const DEFAULT_TASK_LEASE_MS = 30_000;
/** `subscriptions/listen` streams for tasks one user may hold open at once in a process (`tasks.maxListenersPerUser`). */
export const DEFAULT_TASK_MAX_LISTENERS_PER_USER = 10;
/** Tasks one such stream may follow (`tasks.maxTasksPerListener`). */
export const DEFAULT_TASK_MAX_TASKS_PER_LISTENER = 50;
/** Open tasks bound to no user, all together (`tasks.maxOpenAnonymous`, with `tasks.allowAnonymous`). */
export const DEFAULT_TASK_MAX_OPEN_ANONYMOUS = 100;
/** Finished tasks kept per user until they expire (`tasks.maxFinishedPerUser`). */
export const DEFAULT_TASK_MAX_FINISHED_PER_USER = 100;
/** Finished tasks kept in all (`tasks.maxFinished`). */
export const DEFAULT_TASK_MAX_FINISHED = 10_000;
/** Tasks one user may create in a minute (`tasks.createPerMinute`). */
export const DEFAULT_TASK_CREATE_PER_MINUTE = 30;
/** Default time a user has to answer a form pushed inside a 2025-11-25 tool call (`elicit`, `elicitForm`): 10 minutes. */
export const DEFAULT_FORM_TIMEOUT_MS = 10 * 60_000;
/** Default bounded wait of a 2026-07-28 retry on a URL elicitation still pending: 5 seconds. */
export const DEFAULT_PENDING_RETRY_WAIT_MS = 20_000;
/**
 * How long a 2025-11-25 call without a progress token waits inside the call for a person (`callWaitMs`): under the
 * 60 s after which most clients cancel a request they cannot keep alive.
 */
export const DEFAULT_CALL_WAIT_MS = 50_000;
/**
 * Retries of one unanswered page question before the call leaves for the link rung (`pendingRetryRounds`): SDK 2.x
 * clients stop after 10 rounds, so the question stays open for a later call well before that.
 */
export const DEFAULT_PENDING_RETRY_ROUNDS = 8;
/** Interval of the progress notifications sent while a person answers inside a call (2025-11-25). */
export const DEFAULT_KEEP_ALIVE_MS = 15_000;
/**
 * How long a key ring an instance announced in a shared store counts as live without being announced again (a
 * running instance announces it every `KEY_RING_REFRESH_MS`, and withdraws it on shutdown): 60 seconds.
 */
export const KEY_RING_TTL_MS = 60_000;
/** How often a running instance announces its key ring again: 20 seconds, three times per `KEY_RING_TTL_MS`. */
export const KEY_RING_REFRESH_MS = 20_000;
/** Default URL segment the pages and status route are mounted under. */
export const DEFAULT_ROUTE_PREFIX = 'elicit';
/** Default page title. */
export const DEFAULT_TITLE = 'Authorization request';
/** Default accent colour of the pages. */
export const DEFAULT_PRIMARY_COLOR = '#2563eb';
/** Default of `allowUnverifiedPages`: without `resolvePageUser`, start-up fails in production (`NODE_ENV=production`). */
export const DEFAULT_ALLOW_UNVERIFIED_PAGES = false;
/** Default abuse limits (counts; sizes in bytes). */
export const DEFAULT_LIMITS: Readonly<Required<ElicitationLimits>> = Object.freeze({
  createPerMinute: 10,
  maxPendingPerUser: 20,
  maxPending: 100_000,
  maxBodyBytes: 16 * 1024,
  maxMetadataBytes: 4 * 1024,
  maxResultBytes: 1024 * 1024,
  maxFormAttempts: 3,
  maxUploadBytes: 5 * 1024 * 1024,
  uploadBufferBytes: 64 * 1024 * 1024,
  maxCallsInFlightPerSession: 16,
  maxCallsInFlightPerUser: 64,
  maxStepResultBytes: 8 * 1024,
});
/** Default per-IP throttle of the pages and the status route: 300 requests per 60-second window. */
export const DEFAULT_THROTTLE: Readonly<Required<ElicitationThrottle>> = Object.freeze({ limit: 300, ttlMs: 60_000 });

/**
 * Default MCP identity: the verified auth info the transport put on the request, `authInfo.extra.userId`,
 * else `authInfo.extra.sub`, else `authInfo.clientId` (non-empty strings only).
 */
export const defaultResolveMcpUser: ResolveMcpUser = (extra: { authInfo?: McpAuthInfo } | null | undefined) => {
  const auth = extra?.authInfo;
  if (!auth) return undefined;
  const fromExtra = auth.extra?.userId ?? auth.extra?.sub;
  if (typeof fromExtra === 'string' && fromExtra) return fromExtra;
  return typeof auth.clientId === 'string' && auth.clientId ? auth.clientId : undefined;
};

/** The part of the MCP SDK's `authInfo` the default identity reads (any value may be missing or mistyped). */
interface McpAuthInfo {
  clientId?: unknown;
  extra?: { userId?: unknown; sub?: unknown } | null;
}

/** Longest API key the api-key page accepts, in characters. */
export const MAX_API_KEY_LENGTH = 4096;

/** Longest timer Node accepts (2^31-1 ms, about 24.8 days): the ceiling of every millisecond option and wait. */
export const MAX_TIMER_MS = 2_147_483_647;

/** Injection token of the validated, defaulted options (services inject these, never the raw ones). */
export const ELICITATION_RESOLVED_OPTIONS = Symbol('ElicitationResolvedOptions');

/** Injection token of the URL segment the routes are mounted under. */
export const ELICITATION_ROUTE_PREFIX = Symbol('ElicitationRoutePrefix');
