/** Default lifetime of a pending elicitation: 10 minutes. */
export const DEFAULT_TTL_MS = 10 * 60_000;
/** Default interval of the expiry sweep: 60 seconds. */
export const DEFAULT_CLEANUP_INTERVAL_MS = 60_000;
/** Default lifetime of a sealed `requestState` (protocol 2026-07-28): 10 minutes. */
export const DEFAULT_REQUEST_STATE_TTL_MS = 10 * 60_000;
/** Default bounded wait of a 2026-07-28 retry on a URL elicitation still pending: 5 seconds. */
export const DEFAULT_PENDING_RETRY_WAIT_MS = 5_000;
/** Default URL segment the pages and status route are mounted under. */
export const DEFAULT_ROUTE_PREFIX = 'elicit';
/** Default page title. */
export const DEFAULT_TITLE = 'Authorization request';
/** Default accent colour of the pages. */
export const DEFAULT_PRIMARY_COLOR = '#2563eb';
/** Longest API key the api-key page accepts, in characters. */
export const MAX_API_KEY_LENGTH = 4096;

/** Longest timer Node accepts (2^31-1 ms, about 24.8 days): the ceiling of every millisecond option and wait. */
export const MAX_TIMER_MS = 2_147_483_647;

/** Injection token of the validated, defaulted options (services inject these, never the raw ones). */
export const ELICITATION_RESOLVED_OPTIONS = Symbol('ElicitationResolvedOptions');

/**
 * Elicitation ids are v4 UUIDs (122 random bits from `crypto.randomUUID`). Anything else is refused
 * before the store is touched.
 */
export const ELICITATION_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** Injection token of the URL segment the routes are mounted under. */
export const ELICITATION_ROUTE_PREFIX = Symbol('ElicitationRoutePrefix');
