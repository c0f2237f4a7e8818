/** Why a callback could not finish the flow. `status` is the page's HTTP status. */
export class OAuthCallbackError extends Error {
  override readonly name = 'OAuthCallbackError';

  constructor(
    readonly reason:
      'state-malformed' | 'state-expired' | 'state-used' | 'state-user' | 'provider-error' | 'exchange-refused' | 'provider-unavailable',
    readonly status: number,
    /** The provider's error code, when it sent one (`invalid_grant`, ...): printable ASCII only. */
    readonly code?: string,
  ) {
    super(`OAuth callback refused: ${reason}${code ? ` (${code})` : ''}`);
  }
}
