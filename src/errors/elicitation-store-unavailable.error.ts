/** The `Retry-After` (seconds) of a route's 503 when the store could not be reached: a pause, then the same request. */
export const STORE_RETRY_AFTER_S = 5;

/**
 * The store could not be reached (e.g. Redis is down). Nothing was changed by the failed call; pages and the
 * status route answer 503 for it. The underlying error is kept as `cause` (it never holds user input).
 */
export class ElicitationStoreUnavailableError extends Error {
  override readonly name = 'ElicitationStoreUnavailableError';

  constructor(operation: string, cause?: unknown) {
    super(`The elicitation store is unavailable (${operation}): ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}
