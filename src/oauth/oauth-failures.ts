// How a request to a provider failed, told without a body or a token.

/** The provider's OAuth error code of a refused request (`invalid_grant`, ...), if it was one. */
export function oauthErrorCode(error: unknown): string | undefined {
  const code = (error as { error?: unknown } | null)?.error;
  return typeof code === 'string' && /^[\x20-\x7E]{1,64}$/.test(code) ? code : undefined;
}

/** An error code such as Node's and openid-client's (`ECONNREFUSED`, `OAUTH_TIMEOUT`): never a value. */
const ERROR_CODE = /^[A-Z][A-Z0-9_]{1,40}$/;
/** Codes of requests that got no usable answer: timeouts, aborts, connections refused or cut, names unresolved. */
const UNREACHABLE_CODES = new Set([
  'OAUTH_TIMEOUT',
  'OAUTH_ABORT',
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EPIPE',
]);

/** What went wrong, for a log or an error message: a code or a status, never a body or a token. */
export function describeFailure(error: unknown): string {
  const code = oauthErrorCode(error);
  const status = (error as { status?: unknown } | null)?.status;
  if (code) return typeof status === 'number' ? `${code}, HTTP ${status}` : code;
  if (typeof status === 'number') return `HTTP ${status}`;
  for (const link of causeChain(error)) {
    const linkCode = (link as { code?: unknown }).code;
    if (typeof linkCode === 'string' && ERROR_CODE.test(linkCode)) return linkCode;
  }
  const name = (error as { name?: unknown } | null)?.name;
  return typeof name === 'string' && /^\w{1,64}$/.test(name) ? name : 'no answer';
}

/**
 * Whether a failed request never got a usable answer: no connection, a timeout, an abort, or a 5xx (as the
 * provider's error body, or as a response `openid-client` could not read: its cause is the response). Looks
 * through the causes: `openid-client` wraps timeouts (`OAUTH_TIMEOUT`) and aborts, and, in another realm (Jest),
 * a failed `fetch`.
 */
export function providerUnreachable(error: unknown): boolean {
  for (const link of causeChain(error)) {
    const e = link as { name?: unknown; code?: unknown; status?: unknown };
    if (link instanceof TypeError || e.name === 'TypeError' || e.name === 'TimeoutError' || e.name === 'AbortError') return true;
    if (typeof e.code === 'string' && (UNREACHABLE_CODES.has(e.code) || e.code.startsWith('UND_ERR_'))) return true;
    if (typeof e.status === 'number' && e.status >= 500) return true;
  }
  return false;
}

/** `error` and its causes, at most four deep (objects only). */
function causeChain(error: unknown): object[] {
  const chain: object[] = [];
  for (let link = error; typeof link === 'object' && link !== null && chain.length < 4; link = (link as { cause?: unknown }).cause) {
    chain.push(link);
  }
  return chain;
}
