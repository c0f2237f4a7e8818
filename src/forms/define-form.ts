import { ElicitationValidationError } from '../errors/elicitation-validation.error.js';
import { lintFormSchema, type ElicitationLintOptions } from './form-lint.js';
import type { FormContent, FormSchema } from './form-schema.js';
import { compileValidator, type ElicitationValidationResult } from './form-validator.js';
import type { InferStandardOutput } from './standard-schema.js';
import { isZodSchema, zodAnswerCheck, zodFormSchema, type ZodFormSchema } from './zod-form.js';

/** Options of `defineForm` / `formFromClass`. */
export interface ElicitationFormOptions extends ElicitationLintOptions {
  /**
   * Fill missing optional fields from their `default` (SEP-1034) when validating an answer. A Zod form's own
   * check applies its `.default()`s in any case. @default true
   */
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
  /** Fields with `format: 'uri'` whose answer must be an `http:` or `https:` URL (`httpUrlFields`), kept beside the schema. */
  readonly httpUrlFields: readonly string[];
  /** Checks an answer; the value has defaults applied (unless `applyDefaults: false`). */
  validate(content: unknown): ElicitationValidationResult<T>;
  /** The checked answer, or an `ElicitationValidationError` listing the field problems. */
  parse(content: unknown): T;
}

/** Whether a value is a declared form (rather than a raw schema). */
export function isFormDefinition(value: unknown): value is FormDefinition<unknown> {
  return !!value && typeof value === 'object' && 'schema' in value && typeof (value as FormDefinition).validate === 'function';
}

/** Definitions whose `validate` checks more than their schema says (a Zod form's refinements). */
const checkedBeyondSchema = new WeakSet<FormDefinition<unknown>>();

/** Whether a form's `validate` checks more than its wire schema (so a page that has only the schema must ask it). */
export function checksBeyondSchema(form: FormDefinition<unknown>): boolean {
  return checkedBeyondSchema.has(form);
}

/**
 * Builds a FormDefinition from a schema, linted here. `recheck`, when given, runs on what the compiled validator
 * accepted (defaults applied) and has the last word (a Zod form's own check).
 */
export function buildForm<T>(
  schema: FormSchema,
  options: ElicitationFormOptions = {},
  recheck?: (value: T) => ElicitationValidationResult<T>,
): FormDefinition<T> {
  lintFormSchema(schema, options);
  const wire = JSON.parse(JSON.stringify(schema)) as FormSchema;
  const httpUrlFields = Object.freeze([...(options.httpUrlFields ?? [])]);
  const validator = compileValidator<T>(wire, { httpUrlFields });
  const applyDefaults = options.applyDefaults ?? true;
  const validate = (content: unknown): ElicitationValidationResult<T> => {
    const result = validator(content, applyDefaults);
    return result.ok && recheck ? recheck(result.value) : result;
  };
  const definition: FormDefinition<T> = Object.freeze({
    schema: wire,
    secretFields: Object.freeze([...(options.secretFields ?? [])]),
    httpUrlFields,
    validate,
    parse(content: unknown): T {
      const result = validate(content);
      if (!result.ok) throw new ElicitationValidationError(result.issues);
      return result.value;
    },
  });
  if (recheck) checkedBeyondSchema.add(definition);
  return definition;
}

/** A Zod object as a form: its converted schema (linted), checked by the validator, then by Zod itself. */
function buildZodForm<T>(schema: ZodFormSchema<T>, options?: ElicitationFormOptions): FormDefinition<T> {
  return buildForm<T>(zodFormSchema(schema), options, zodAnswerCheck(schema));
}

/** Zod forms given where a form is accepted (`elicit`, hosted forms) without `defineForm`, declared once each. */
const declaredZodForms = new WeakMap<object, FormDefinition<unknown>>();

/**
 * A form as accepted anywhere a form is (`elicit`, `createUrlElicitation`): a declared form as it is; a Zod
 * object or a raw schema declared (and linted) now, a given Zod object once.
 */
export function asFormDefinition<T>(form: FormDefinition<T> | ZodFormSchema<T> | FormSchema): FormDefinition<T> {
  if (isFormDefinition(form)) return form;
  if (!isZodSchema(form)) return buildForm<T>(form);
  let definition = declaredZodForms.get(form);
  if (!definition) declaredZodForms.set(form, (definition = buildZodForm(form)));
  return definition as FormDefinition<T>;
}

/**
 * Declares a form from a Zod 4 object. It is converted to the restricted schema (through Zod's JSON Schema) and
 * linted now; answers are checked by the compiled validator, then by the Zod schema itself (refinements), and
 * typed as `z.infer<typeof schema>`. See "Form mode" in the README for what converts to what.
 *
 * ```ts
 * const profile = defineForm(z.object({ name: z.string().min(1), age: z.number().int().min(0).optional() }));
 * // answers are { name: string; age?: number }
 * ```
 */
export function defineForm<S extends ZodFormSchema<Record<string, unknown>>>(
  schema: S,
  options?: ElicitationFormOptions,
): FormDefinition<InferStandardOutput<S>>;
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
export function defineForm<const S extends FormSchema>(schema: S, options?: ElicitationFormOptions): FormDefinition<FormContent<S>>;
export function defineForm(
  schema: FormSchema | ZodFormSchema<Record<string, unknown>>,
  options?: ElicitationFormOptions,
): FormDefinition<unknown> {
  return isZodSchema(schema) ? buildZodForm(schema, options) : buildForm(schema, options);
}
