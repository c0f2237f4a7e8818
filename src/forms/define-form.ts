import { ElicitationValidationError } from '../errors/elicitation-validation.error.js';
import { lintFormSchema, type ElicitationLintOptions } from './form-lint.js';
import type { FormContent, FormSchema } from './form-schema.js';
import { compileValidator, type ElicitationValidationResult } from './form-validator.js';

/** Options of `defineForm` / `formFromClass`. */
export interface ElicitationFormOptions extends ElicitationLintOptions {
  /** Fill missing optional fields from their `default` (SEP-1034) when validating an answer. @default true */
  applyDefaults?: boolean;
}

/**
 * A declared form: its wire schema (linted once, at declaration), its validator (compiled once), and the
 * TypeScript type `T` of an accepted answer.
 */
export interface FormDefinition<T = Record<string, unknown>> {
  /** The `requestedSchema` sent on the wire (a plain JSON copy). */
  readonly schema: FormSchema;
  /** Fields that are secrets: the form is then for the hosted page (URL mode) only. */
  readonly secretFields: readonly string[];
  /** Checks an answer; the value has defaults applied (unless `applyDefaults: false`). */
  validate(content: unknown): ElicitationValidationResult<T>;
  /** The checked answer, or an `ElicitationValidationError` listing the field problems. */
  parse(content: unknown): T;
}

/** Whether a value is a declared form (rather than a raw schema). */
export function isFormDefinition(value: unknown): value is FormDefinition<unknown> {
  return !!value && typeof value === 'object' && 'schema' in value && typeof (value as FormDefinition).validate === 'function';
}

/** Builds a FormDefinition from an already-linted schema. */
export function buildForm<T>(schema: FormSchema, options: ElicitationFormOptions = {}): FormDefinition<T> {
  lintFormSchema(schema, options);
  const wire = JSON.parse(JSON.stringify(schema)) as FormSchema;
  const validator = compileValidator<T>(wire);
  const applyDefaults = options.applyDefaults ?? true;
  return Object.freeze({
    schema: wire,
    secretFields: Object.freeze([...(options.secretFields ?? [])]),
    validate: (content: unknown) => validator(content, applyDefaults),
    parse(content: unknown): T {
      const result = validator(content, applyDefaults);
      if (!result.ok) throw new ElicitationValidationError(result.issues);
      return result.value;
    },
  });
}

/**
 * Declares a form from a plain schema. Write the schema inline (or `as const`) so that the answer's type
 * follows from it:
 *
 * ```ts
 * const profile = defineForm({
 *   type: 'object',
 *   properties: { name: { type: 'string', minLength: 1 }, age: { type: 'integer', minimum: 0 } },
 *   required: ['name'],
 * });
 * // answers are { name: string; age?: number }
 * ```
 */
export function defineForm<const S extends FormSchema>(schema: S, options?: ElicitationFormOptions): FormDefinition<FormContent<S>> {
  return buildForm<FormContent<S>>(schema, options);
}
