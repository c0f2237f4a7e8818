/** Why a creation was refused by the abuse limits. */
export type ElicitationQuotaReason = 'rate-limited' | 'user-pending-limit' | 'pending-limit';

const TEXT: Record<ElicitationQuotaReason, string> = {
  'rate-limited': 'Too many requests for your input in the last minute. Wait a moment, then try again.',
  'user-pending-limit': 'You have too many open requests for input. Answer or wait for some of them first.',
  'pending-limit': 'The service has too many open requests for input right now. Try again later.',
};

/**
 * An abuse limit refused a new elicitation (nothing was stored). Thrown inside a tool, it becomes a
 * readable tool error for the MCP client; the message names the limit, never the user's data.
 */
export class ElicitationQuotaError extends Error {
  override readonly name = 'ElicitationQuotaError';

  constructor(readonly reason: ElicitationQuotaReason) {
    super(TEXT[reason]);
  }
}
