/**
 * A sealed value (a stored answer, a record in a shared store, a `requestState`), or a page's CSRF token, was made
 * under a key that this instance's `encryptionKey` ring does not hold: another instance made it with another
 * `encryptionKey`, or the key was rotated out. Thrown inside a tool it becomes a readable tool error, a page answers
 * a readable 503 page, and a `requestState` is refused (`RequestStateError` reason `key`). The message names key
 * ids (fingerprints derived from the keys, never key material) and `encryptionKey`.
 */
export class ElicitationKeyError extends Error {
  override readonly name = 'ElicitationKeyError';

  constructor(
    /** The id of the key the value was sealed under (8 hex characters, a fingerprint of that key). */
    readonly keyId: string,
    /** The ids of this instance's keys, the first (sealing) key's first. */
    readonly ringKeyIds: readonly string[],
    /** What could not be read, for the message. */
    what = 'a value sealed',
  ) {
    super(
      `Cannot read ${what} under key id ${keyId}: this instance's encryptionKey holds key id${ringKeyIds.length > 1 ? 's' : ''} ` +
        `${ringKeyIds.join(', ')} only. Every instance sharing a store needs the same encryptionKey ` +
        '(key ids are fingerprints of the keys, never the keys)',
    );
  }
}
