/**
 * Why a `requestState` was refused (only for logs: the client always gets the same error). `key`: sealed under a
 * key this instance's `encryptionKey` ring lacks (the error's `cause` is the `ElicitationKeyError` naming it).
 */
export type RequestStateRejection = 'malformed' | 'tampered' | 'key' | 'expired' | 'user' | 'method' | 'tool' | 'arguments' | 'replayed';

/**
 * A `requestState` that must not be honoured. The message is the same for every reason (it may reach the
 * client); `reason` is for server logs only.
 */
export class RequestStateError extends Error {
  override readonly name = 'RequestStateError';

  constructor(
    readonly reason: RequestStateRejection,
    options?: { cause?: unknown },
  ) {
    super('Invalid or expired requestState', options);
  }
}
