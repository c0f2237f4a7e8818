/**
 * An OAuth provider could not be used just now: unreachable, answering 5xx, or its configuration refused at first
 * use. Nothing the user entered or any token is in the message. Tools may let it fail the call (a readable tool
 * error) or retry later; the grant the user gave is kept.
 */
export class ElicitationOAuthError extends Error {
  override readonly name = 'ElicitationOAuthError';

  constructor(
    /** The provider's name in `oauth.providers`. */
    readonly provider: string,
    problem: string,
    options?: { cause?: unknown },
  ) {
    super(`The ${provider} account could not be used: ${problem}.`, options);
  }
}
