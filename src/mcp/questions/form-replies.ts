import { ElicitationValidationError, type FieldIssue } from '../../errors/elicitation-validation.error.js';
import type { FormDefinition } from '../../forms/define-form.js';
import type { ElicitResult } from '../tool-elicitation.js';

/**
 * What a client's reply to a form-mode question decides, the same in every era and in tasks:
 * - `done`: answered (validated content, or a decline or cancel);
 * - `again`: invalid content, asked again naming the fields (`invalidAnswers` counted so far);
 * - `cannot-ask`: a decline sooner than `instantDeclineMs` after the first time it went out (the client shows no
 *   form: the ladder passes the question on);
 * - `none`: no usable reply (asked again as asked).
 */
export type FormVerdict<T> = { done: ElicitResult<T> } | { again: readonly FieldIssue[]; invalidAnswers: number } | 'cannot-ask' | 'none';

/** How the question stood when the reply came. */
export interface FormReplyContext {
  /** Invalid answers before this one. */
  invalidAnswers: number;
  /** `limits.maxFormAttempts`: answers one question takes in all. */
  maxFormAttempts: number;
  /** The reply came sooner than `instantDeclineMs` after the question went out. */
  instant: boolean;
}

/**
 * Judges a client's reply to a form-mode question. Past `limits.maxFormAttempts` answers, invalid content throws
 * `ElicitationValidationError` naming the fields (as `docs/options.md` promises for every era and for tasks): never a
 * silent pass, and never a decline the person did not give.
 */
export function judgeFormReply<T>(reply: unknown, definition: FormDefinition<T>, context: FormReplyContext): FormVerdict<T> {
  if (!reply || typeof reply !== 'object' || Array.isArray(reply)) return 'none';
  const { action, content } = reply as { action?: unknown; content?: unknown };
  if (action === 'decline' && context.instant && context.invalidAnswers === 0) return 'cannot-ask';
  if (action === 'decline') return { done: { action: 'decline', via: 'form' } };
  if (action === 'cancel') return { done: { action: 'cancel', via: 'form' } };
  if (action !== 'accept') return 'none';
  const checked = definition.validate(content);
  if (checked.ok) return { done: { action: 'accept', content: checked.value, via: 'form' } };
  const invalidAnswers = context.invalidAnswers + 1;
  if (invalidAnswers >= context.maxFormAttempts) throw new ElicitationValidationError(checked.issues);
  return { again: checked.issues, invalidAnswers };
}
