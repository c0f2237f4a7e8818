import type { ElicitationContact, ElicitationNotice, ElicitationNotifier } from '../core/notice.js';
import { checkedNoticeUrl, postJson } from './notice-http.js';
import { WEBHOOK_SIGNATURE_HEADER, webhookSignatureHeader } from './webhook-signature.js';

/** Options of `webhookNotifier`. */
export interface WebhookNotifierOptions {
  /** Where each notice is posted. */
  url: string;
  /** The signing secret, at least 32 characters (share it with the receiver, which checks with `verifyWebhookSignature`). */
  secret: string;
  /** The notifier's name (unique among the module's notifiers). @default 'webhook' */
  name?: string;
  /** How long one post may take, in milliseconds. @default 8000 */
  timeoutMs?: number;
}

/** The JSON body of a webhook notice: `type` is `elicitation.<event>`, `data` the notice and the contact. */
export interface WebhookNoticeBody {
  id: string;
  type: `elicitation.${ElicitationNotice['event']}`;
  data: ElicitationNotice & { contact: ElicitationContact };
}

/**
 * Posts each notice as signed JSON (`WebhookNoticeBody`) to `url`, as Stripe and GitHub sign theirs: the
 * `Elicitation-Signature` header carries `t=<unix seconds>,v1=<HMAC-SHA256 of "<t>.<body>", hex>`, the
 * `Idempotency-Key` header the notice's id. Any answer but a 2xx is retried with backoff by the outbox.
 */
export function webhookNotifier(options: WebhookNotifierOptions): ElicitationNotifier {
  const url = checkedNoticeUrl('webhookNotifier({ url })', options?.url);
  if (typeof options.secret !== 'string' || options.secret.length < 32) {
    throw new TypeError(
      `webhookNotifier({ secret }) must be a string of at least 32 characters, got ${typeof options.secret === 'string' ? `${options.secret.length} characters` : typeof options.secret}`,
    );
  }
  const { secret } = options;
  const timeoutMs = options.timeoutMs ?? 8_000;
  return {
    name: options.name ?? 'webhook',
    async send(notice, contact) {
      const body: WebhookNoticeBody = { id: notice.id, type: `elicitation.${notice.event}`, data: { ...notice, contact } };
      const text = JSON.stringify(body);
      const signature = webhookSignatureHeader(secret, Math.floor(Date.now() / 1000), text);
      await postJson(url, text, { [WEBHOOK_SIGNATURE_HEADER]: signature, 'idempotency-key': notice.id }, timeoutMs);
    },
  };
}
