import type { CreateUrlElicitationInput } from '../elicitation.service.js';
import type { ElicitationData, WaitOutcome } from '../elicitation.types.js';
import type { FormDefinition } from '../forms/define-form.js';
import type { FormSchema } from '../forms/form-schema.js';

/** What a tool asks for through the URL pages. The user (and session) come from the request. */
export type UrlElicitationAsk = Omit<CreateUrlElicitationInput, 'userId' | 'session'>;

/** The answer of `elicit`: accepted content is validated and typed; decline and cancel carry nothing. */
export type ElicitResult<T> = { action: 'accept'; content: T } | { action: 'decline' } | { action: 'cancel' };

/** What `elicit` does when the client cannot show forms. */
export type FormFallback = 'error' | 'hosted';

/** Options of `elicit`. */
export interface ElicitOptions {
  /** How long the user has to answer, in milliseconds (2025-11-25, where the call waits). @default 600000 (10 minutes) */
  timeoutMs?: number;
  /** Aborting cancels the question (the tool call's own signal is always honoured too). */
  signal?: AbortSignal;
  /**
   * For a client without form support: `'error'` fails the tool (2025-11-25: a readable tool error;
   * 2026-07-28: `-32021` missing capability) — the default; `'hosted'` asks through the hosted form page
   * (URL mode) when the client supports URL mode. Forms with `secretFields` always use the hosted page:
   * the spec forbids secrets in form mode.
   * @default 'error'
   */
  fallback?: FormFallback;
  /**
   * 2026-07-28: the `inputRequests` key this question is sent under.
   * @default `elicitation-<n>`, n counting the tool's questions from 1
   */
  key?: string;
}

/**
 * Elicitation inside one tool call, the same for both protocol eras. Under 2025-11-25 the questions are
 * pushed to the client and awaited inside the call (`requireAnswer` suspends with -32042 instead).
 * Under 2026-07-28 an unanswered question ends the call with `input_required`; the client retries and
 * the tool runs again from the top, finding the answers of earlier rounds: **work done before a
 * question must be safe to repeat.**
 */
export interface ToolElicitation {
  /** The protocol revision this call is served under. */
  readonly era: '2025-11-25' | '2026-07-28';
  /** The verified user of this call. Throws `ElicitationIdentityError` when there is none. */
  readonly userId: string;
  /** Whether the client declared this mode (`elicitation: {}` means form only; URL needs `url`). */
  isSupported(mode: 'form' | 'url'): boolean;
  /**
   * Asks the user to fill a form; resolves the answer validated and typed (`accept` with the content,
   * defaults applied), or `decline` / `cancel`. A client without form support gets `options.fallback`.
   */
  elicit<T>(message: string, form: FormDefinition<T> | FormSchema, options?: ElicitOptions): Promise<ElicitResult<T>>;
  /**
   * Resolves the user's latest answer of `ask.type` (default: the kind) when there is one; otherwise asks
   * for it on a hosted page (URL mode) and resumes once the user has submitted it.
   */
  requireAnswer<T extends ElicitationData = ElicitationData>(ask: UrlElicitationAsk): Promise<T>;
  /** Asks through a hosted page (URL mode) and resolves how it ended (`completed` with the data, `declined`, ...). */
  requestUrl<T extends ElicitationData = ElicitationData>(ask: UrlElicitationAsk & { timeoutMs?: number }): Promise<WaitOutcome<T>>;
}
