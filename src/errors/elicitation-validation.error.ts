import type { FieldRule } from '../core/form-rules.js';

/** One problem with an answer: the field and what is wrong with it (never the value itself). */
export interface FieldIssue {
  field: string;
  message: string;
  /**
   * Which rule was broken, on the form validator's own issues (not enumerated: an issue's JSON is `field` and
   * `message`), for a page that says the problem in its own language.
   */
  readonly rule?: FieldRule;
}

/**
 * An accepted form answer did not match its schema (missing required field, unknown key, wrong type,
 * format, bounds, option). Thrown inside a tool it becomes a readable tool error listing the fields.
 */
export class ElicitationValidationError extends Error {
  override readonly name = 'ElicitationValidationError';

  constructor(readonly issues: FieldIssue[]) {
    super(`The answer does not match the form: ${issues.map((i) => `${i.field} ${i.message}`).join('; ')}.`);
  }
}
