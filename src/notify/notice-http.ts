/** A POST of JSON to `url` that throws unless the answer is a 2xx, within `timeoutMs` (what the webhook and Slack notifiers send). */
export async function postJson(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'nestjs-mcp-elicitation', ...headers },
    body,
    redirect: 'error',
    signal: AbortSignal.timeout(timeoutMs),
  });
  // Read (and drop) the body so the connection can be reused.
  await response.arrayBuffer().catch(() => undefined);
  if (!response.ok) throw new NoticeDeliveryError(`the receiver answered HTTP ${response.status}`);
}

/** A notice a receiver refused or did not take: its message names what happened, never a URL or a secret. */
export class NoticeDeliveryError extends Error {
  override readonly name = 'NoticeDeliveryError';
}

/** An http(s) URL without credentials, or an error naming `option` and the problem (never the URL: it may hold a token). */
export function checkedNoticeUrl(option: string, value: unknown): string {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password) {
    throw new TypeError(
      `${option} must be an http(s) URL without credentials, got ${typeof value === 'string' ? 'a string that is not one' : typeof value}`,
    );
  }
  return url.href;
}
