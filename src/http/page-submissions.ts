import { MAX_API_KEY_LENGTH } from '../options/elicitation.constants.js';
import type { PageMessages } from '../messages/page-messages.js';

/** A form post read into what the page needs, or the one message the page shows instead. */
export type Submission<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * The api-key page's post (`application/x-www-form-urlencoded`): `action` absent or `submit` / `cancel`, and an
 * `apiKey` that is one non-empty string (trimmed) of at most `MAX_API_KEY_LENGTH` characters. A repeated field
 * arrives as an array and is refused like any other non-string. Checked by hand rather than through a
 * class-validator DTO: the same rules and messages (in the page's language) at a tenth of the cost of a post's hottest step.
 */
export function readApiKeySubmission(
  body: { action?: unknown; apiKey?: unknown } | undefined,
  messages: PageMessages,
): Submission<{ apiKey: string }> {
  const action = body?.action;
  if (action !== undefined && action !== null && action !== 'submit' && action !== 'cancel') {
    return { ok: false, message: messages.apiKey.unknownAction };
  }
  const apiKey = typeof body?.apiKey === 'string' ? body.apiKey.trim() : undefined;
  if (!apiKey) return { ok: false, message: messages.apiKey.enterKey };
  if (apiKey.length > MAX_API_KEY_LENGTH) return { ok: false, message: messages.apiKey.tooLong(MAX_API_KEY_LENGTH) };
  return { ok: true, value: { apiKey } };
}

/** The confirm page's post: `action` is `confirm` or `cancel`. */
export function readConfirmSubmission(
  body: { action?: unknown } | undefined,
  messages: PageMessages,
): Submission<{ action: 'confirm' | 'cancel' }> {
  const action = body?.action;
  if (action === 'confirm' || action === 'cancel') return { ok: true, value: { action } };
  return { ok: false, message: messages.confirm.chooseAction };
}
