/** A provider that cannot be used now (its URL refused, discovery failed): the flow answers 502/503 with it. */
export class OAuthProviderError extends Error {
  override readonly name = 'OAuthProviderError';

  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`OAuth provider: ${field} ${problem}.`);
  }
}
