import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header that carries a webhook notice's signature: `t=<unix seconds>,v1=<hex HMAC-SHA256>`. */
export const WEBHOOK_SIGNATURE_HEADER = 'elicitation-signature';

/** How far a signature's time may be from the receiver's clock by default, in seconds (replays older than this fail). */
export const DEFAULT_WEBHOOK_TOLERANCE_S = 300;

/** The signature of `body` sent at `timestamp` (unix seconds): HMAC-SHA256 of `<timestamp>.<body>` under `secret`, hex. */
export function webhookSignature(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/** The signature header's value for `body` sent at `timestamp` (unix seconds). */
export function webhookSignatureHeader(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${webhookSignature(secret, timestamp, body)}`;
}

/** What `verifyWebhookSignature` checks against. */
export interface VerifyWebhookOptions {
  /** The secret the notifier was given (`webhookNotifier({ secret })`). */
  secret: string;
  /** The request body exactly as received (the raw text, before any JSON parsing). */
  body: string | Buffer;
  /** The `Elicitation-Signature` header as received. */
  header: string | string[] | undefined;
  /** The receiver's clock, epoch milliseconds. @default Date.now() */
  now?: number;
  /** How far the signature's time may be from `now`, in seconds. @default 300 */
  toleranceS?: number;
}

/**
 * Checks a webhook notice on the receiving side: the header's HMAC-SHA256 of `<t>.<body>` under `secret` matches (a
 * constant-time comparison) and its time `t` is within `toleranceS` of `now`, so that a captured request cannot be
 * replayed later. Resolves nothing; returns `true` or `false` (a header that is absent or malformed is `false`).
 * De-duplicate on the `Idempotency-Key` header (the notice's `id`): a notice may arrive more than once.
 */
export function verifyWebhookSignature({
  secret,
  body,
  header,
  now = Date.now(),
  toleranceS = DEFAULT_WEBHOOK_TOLERANCE_S,
}: VerifyWebhookOptions): boolean {
  const value = Array.isArray(header) ? header[0] : header;
  const match = typeof value === 'string' ? /^t=(\d{1,12}),v1=([0-9a-f]{64})$/.exec(value.trim()) : null;
  if (!match) return false;
  const timestamp = Number(match[1]);
  if (Math.abs(now / 1000 - timestamp) > toleranceS) return false;
  const expected = Buffer.from(webhookSignature(secret, timestamp, typeof body === 'string' ? body : body.toString('utf8')), 'hex');
  return timingSafeEqual(expected, Buffer.from(match[2], 'hex'));
}
