/**
 * The vocabulary of a form field's rules, shared by the forms (`forms/`), their validation error (`errors/`) and the
 * pages' catalogs (`messages/`): the string formats a field may require, and which rule an answer broke. A leaf:
 * it imports nothing, so that `errors/` can name a rule without importing `forms/`, which throws its errors.
 */

/** `format` values the spec allows on string fields. */
export type StringFormat = 'email' | 'uri' | 'date' | 'date-time';

/**
 * Which rule of a form field an answer broke, with the rule's own bound: what a page needs to say the problem in
 * its own language (`PageMessages.validation.problem`). Never the value given.
 */
export type FieldRule =
  | { code: 'object' }
  | { code: 'unknown-field' }
  | { code: 'required' }
  | { code: 'boolean' }
  | { code: 'number' }
  | { code: 'integer' }
  | { code: 'minimum'; limit: number }
  | { code: 'maximum'; limit: number }
  | { code: 'list' }
  | { code: 'not-offered' }
  | { code: 'twice' }
  | { code: 'min-items'; limit: number }
  | { code: 'max-items'; limit: number }
  | { code: 'option' }
  | { code: 'text' }
  | { code: 'min-length'; limit: number }
  | { code: 'max-length'; limit: number }
  | { code: 'format'; format: StringFormat }
  /** A field listed in a form's `httpUrlFields`: a `uri` whose scheme is not `http` or `https`. */
  | { code: 'http-url' };

/** The English text of a broken rule: what the validator's `FieldIssue.message` says (MCP form mode, logs, errors). */
export function englishProblem(rule: FieldRule): string {
  switch (rule.code) {
    case 'object':
      return 'must be an object of field values';
    case 'unknown-field':
      return 'is not a field of this form';
    case 'required':
      return 'is required';
    case 'boolean':
      return 'must be true or false';
    case 'number':
      return 'must be a number';
    case 'integer':
      return 'must be a whole number';
    case 'minimum':
      return `must be at least ${rule.limit}`;
    case 'maximum':
      return `must be at most ${rule.limit}`;
    case 'list':
      return 'must be a list of options';
    case 'not-offered':
      return 'contains an option that is not offered';
    case 'twice':
      return 'contains an option twice';
    case 'min-items':
      return `needs at least ${rule.limit} option(s)`;
    case 'max-items':
      return `allows at most ${rule.limit} option(s)`;
    case 'option':
      return 'must be one of the offered options';
    case 'text':
      return 'must be text';
    case 'min-length':
      return `must be at least ${rule.limit} character(s)`;
    case 'max-length':
      return `must be at most ${rule.limit} character(s)`;
    case 'format':
      return {
        email: 'must be an e-mail address',
        uri: 'must be a URL',
        date: 'must be a date (YYYY-MM-DD)',
        'date-time': 'must be a date and time (ISO 8601 with a time zone)',
      }[rule.format];
    case 'http-url':
      return 'must be a web address starting with https:// or http://';
  }
}
