/** How a request to a provider failed, told without a body or a token. */

/** The provider's OAuth error code of a refused request (`invalid_grant`, ...), if it was one. */
export function oauthErrorCode(error: unknown): string | undefined {
  const code = (error as { error?: unknown } | null)?.error;
  return typeof code === 'string' && /^[\x20-\x7E]{1,64}$/.test(code) ? code : undefined;
}

/** What went wrong, for a log or an error message: a code or a status, never a body or a token. */
export function describeFailure(error: unknown): string {
  const code = oauthErrorCode(error);
  const status = (error as { status?: unknown } | null)?.status;
  if (code) return typeof status === 'number' ? `${code}, HTTP ${status}` : code;
  if (typeof status === 'number') return `HTTP ${status}`;
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  if (typeof cause === 'string') return cause;
  const name = (error as { name?: unknown } | null)?.name;
  return typeof name === 'string' && /^\w{1,64}$/.test(name) ? name : 'no answer';
}

/**
 * Whether a failed request never got a usable answer: no connection, a timeout, or a 5xx (as the provider's error
 * body, or as a response `openid-client` could not read: its cause is the response).
 */
export function providerUnreachable(error: unknown): boolean {
  if (error instanceof TypeError) return true;
  const e = error as { name?: unknown; status?: unknown; cause?: { status?: unknown } } | null;
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return true;
  const status = typeof e?.status === 'number' ? e.status : e?.cause?.status;
  return typeof status === 'number' && status >= 500;
}
