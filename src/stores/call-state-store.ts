/**
 * The call half of a store: what a tool call that ended before its tool ran (protocol 2025-11-25: with -32042, or
 * with a link) leaves for its continuation, the next call of the same tool by the same user with the same arguments:
 * the results of the steps it ran (`elicitation.step`), so that the continuation does not run them again. The value is
 * opaque to the store (the MCP binding seals it) and the key a digest (of the user, the tool and its arguments).
 */
export interface ElicitationCallStateStore {
  /** Keeps `value` under `key` until `expiresAt` (epoch milliseconds), replacing what was there. */
  keepCallState(key: string, value: string, expiresAt: number): Promise<void>;
  /**
   * The value under `key`, removed in the same atomic step (of two callers, one gets it), or `undefined`: none, or its
   * `expiresAt` is at or before `now`.
   */
  takeCallState(key: string, now: number): Promise<string | undefined>;
}
