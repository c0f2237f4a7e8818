import type { FieldIssue } from '../errors/elicitation-validation.error.js';
import type { FieldSchema, FormSchema, StringFormat } from '../forms/form-schema.js';
import { compileValidator, type ValidationResult } from '../forms/form-validator.js';

/**
 * The hosted form page (`kind: 'form'`): the schema → view-model mapping, and the urlencoded post → typed
 * content conversion. The template only loops over the prepared fields; every value it prints is escaped.
 *
 * Wire conventions of the page (what a browser posts):
 * - one control per field, named after the field, except names a form post cannot carry as they are
 *   (`action`, names starting with `_`, names with `[` or `]`), which post as `_f<index>`;
 * - a checkbox posts `true`, after a hidden `false` of the same name, so an unchecked box posts `false`;
 * - a multi-select posts a hidden empty value, then one value per checked option (repeated keys), so
 *   nothing checked is `[]`, not "absent";
 * - an empty input is an absent field (so the validator applies the field's default, or says it is required);
 * - `date-time`: `<input type="datetime-local">` has no time zone. Its `YYYY-MM-DDTHH:MM[:SS[.sss]]` is read
 *   as UTC and sent on as ISO 8601 with `Z` (seconds added when missing); a default is shown in UTC. The
 *   page says the time is in UTC.
 */

/** How a field is rendered and read. */
type FieldKind = 'text' | 'number' | 'boolean' | 'select' | 'multi';

interface Option {
  value: string;
  title: string;
}

interface PlannedField {
  name: string;
  /** The form control name (the field name, or `_f<index>`). */
  control: string;
  index: number;
  kind: FieldKind;
  schema: FieldSchema;
  format: StringFormat | undefined;
  required: boolean;
  secret: boolean;
  label: string;
  options: Option[];
}

/** A form schema compiled once for the page: its fields in schema order and its validator. */
export interface FormPlan {
  readonly fields: readonly PlannedField[];
  validate(content: unknown): ValidationResult<Record<string, unknown>>;
}

/** What the user entered, kept as posted (strings) to show the form again. Secret fields are never kept. */
export type KeptInput = Record<string, string | string[] | boolean | undefined>;

/** A submission read from a post: the typed content for the validator, and the input to show again. */
export interface Submission {
  content: Record<string, unknown>;
  kept: KeptInput;
}

/** One field as the template sees it: flags per control kind and every attribute prepared (strict mode). */
export interface FieldView {
  id: string;
  name: string;
  label: string;
  isInput: boolean;
  isCheckbox: boolean;
  isSelect: boolean;
  isMulti: boolean;
  inputType: string | null;
  value: string | null;
  checked: boolean;
  options: Array<{ id: string; value: string; title: string; selected: boolean; checked: boolean }>;
  required: boolean;
  minLength: string | null;
  maxLength: string | null;
  min: string | null;
  max: string | null;
  step: string | null;
  autocomplete: string | null;
  inputMode: string | null;
  help: string | null;
  helpId: string;
  error: string | null;
  errorId: string;
  describedBy: string | null;
}

const INPUT_TYPES: Record<StringFormat, string> = { email: 'email', uri: 'url', date: 'date', 'date-time': 'datetime-local' };
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const LOCAL_DATE_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2}(\.\d{1,9})?)?$/;

/** `<input type="datetime-local">` value → ISO 8601 in UTC (`Z`); anything else is returned as it is. */
export function fromDateTimeLocal(value: string): string {
  const m = LOCAL_DATE_TIME.exec(value);
  return m ? `${m[1]}T${m[2]}${m[3] ?? ':00'}Z` : value;
}

/** ISO 8601 with a time zone → a `datetime-local` value in UTC, or '' when it cannot be shown. */
export function toDateTimeLocal(iso: string): string {
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return '';
  const utc = new Date(time).toISOString();
  return /^\d{4}-/.test(utc) ? utc.slice(0, 19) : '';
}

function kindOf(field: FieldSchema): FieldKind {
  switch (field.type) {
    case 'string':
      return 'enum' in field || 'oneOf' in field ? 'select' : 'text';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'array':
      return 'multi';
    default:
      throw new Error(
        `nestjs-mcp-elicitation: the hosted form cannot render a field of type ${JSON.stringify((field as { type?: unknown }).type)}`,
      );
  }
}

function optionsOf(field: FieldSchema): Option[] {
  if ('enum' in field) {
    const names = 'enumNames' in field ? field.enumNames : undefined;
    return field.enum.map((value, i) => ({ value, title: names?.[i] ?? value }));
  }
  if ('oneOf' in field) return field.oneOf.map((o) => ({ value: o.const, title: o.title }));
  if (field.type === 'array') {
    const items = field.items;
    return 'enum' in items
      ? items.enum.map((value) => ({ value, title: value }))
      : items.anyOf.map((o) => ({ value: o.const, title: o.title }));
  }
  return [];
}

/** Whether a field name can be a form control name as it is (see the wire conventions above). */
function postsAsIs(name: string): boolean {
  return name !== 'action' && !name.startsWith('_') && !/[[\]]/.test(name);
}

function compilePlan(form: { schema: FormSchema; secretFields: readonly string[] }): FormPlan {
  const { schema } = form;
  const secret = new Set(form.secretFields);
  const required = new Set(schema.required ?? []);
  const fields = Object.keys(schema.properties).map((name, index): PlannedField => {
    const field = schema.properties[name];
    const kind = kindOf(field);
    return {
      name,
      control: postsAsIs(name) ? name : `_f${index}`,
      index,
      kind,
      schema: field,
      format: kind === 'text' ? (field as { format?: StringFormat }).format : undefined,
      required: required.has(name),
      secret: secret.has(name),
      label: field.title || name,
      options: optionsOf(field),
    };
  });
  // The same compiled validator as form mode (the schema was linted when the elicitation was created).
  const validator = compileValidator<Record<string, unknown>>(schema);
  return Object.freeze({ fields: Object.freeze(fields), validate: (content: unknown) => validator(content) });
}

const MAX_CACHED_PLANS = 200;
const plans = new Map<string, FormPlan>();

/**
 * The plan of a record's `metadata.form` (`{ schema, secretFields }`), compiled once per distinct form
 * (a small LRU keyed by the form's JSON). Throws when the record carries no usable form.
 */
export function formPlanOf(metadata: Record<string, unknown>): FormPlan {
  const form = metadata.form as { schema?: FormSchema; secretFields?: unknown } | undefined;
  if (!form || typeof form !== 'object' || !form.schema || typeof form.schema.properties !== 'object' || !form.schema.properties) {
    throw new Error('nestjs-mcp-elicitation: a form elicitation has no form schema in its metadata');
  }
  const extraSecrets = metadata.secretFields;
  const secretFields = [form.secretFields, extraSecrets]
    .flatMap((list) => (Array.isArray(list) ? list : []))
    .filter((f): f is string => typeof f === 'string');
  const key = JSON.stringify([form.schema, secretFields]);
  let plan = plans.get(key);
  if (plan) {
    plans.delete(key);
  } else {
    plan = compilePlan({ schema: form.schema, secretFields });
    if (plans.size >= MAX_CACHED_PLANS) plans.delete(plans.keys().next().value!);
  }
  plans.set(key, plan);
  return plan;
}

/** The values a fresh form starts with: the defaults, never for a secret field. */
export function initialInput(plan: FormPlan): KeptInput {
  const kept: KeptInput = {};
  for (const f of plan.fields) {
    const d = f.schema.default as unknown;
    if (f.secret || d === undefined) continue;
    if (f.kind === 'boolean') kept[f.name] = d === true;
    else if (f.kind === 'multi') kept[f.name] = Array.isArray(d) ? d.map(String) : [];
    else if (f.format === 'date-time') kept[f.name] = toDateTimeLocal(String(d));
    else kept[f.name] = String(d);
  }
  return kept;
}

const lastOf = (v: unknown): unknown => (Array.isArray(v) ? v[v.length - 1] : v);

/**
 * Reads a urlencoded post into typed content: numbers parsed, checkboxes as booleans, multi-selects as
 * arrays (repeated keys, Express's parser gives an array), `date-time` from `datetime-local`, empty inputs
 * absent. A value the page cannot have sent (an object, a repeated single field, a non-number) is passed
 * on as it is, for the validator to refuse. Keys that are not fields are ignored.
 */
export function readSubmission(plan: FormPlan, body: Record<string, unknown>): Submission {
  const content: Record<string, unknown> = {};
  const kept: KeptInput = {};
  for (const f of plan.fields) {
    if (!Object.hasOwn(body, f.control)) continue;
    const posted = body[f.control];
    let value: unknown = posted;
    switch (f.kind) {
      case 'boolean': {
        const last = lastOf(posted);
        value = last === 'true' ? true : last === 'false' ? false : posted;
        if (typeof value === 'boolean') kept[f.name] = value;
        break;
      }
      case 'multi': {
        const list = Array.isArray(posted) ? posted : [posted];
        value = list.every((v) => typeof v === 'string') ? list.filter((v) => v !== '') : posted;
        if (Array.isArray(value)) kept[f.name] = value as string[];
        break;
      }
      default: {
        if (typeof posted !== 'string') break;
        kept[f.name] = posted;
        if (f.secret ? posted === '' : posted.trim() === '') {
          value = undefined;
        } else if (f.kind === 'number') {
          const text = posted.trim();
          value = NUMBER.test(text) ? Number(text) : posted;
        } else if (f.format === 'date-time') {
          value = fromDateTimeLocal(posted.trim());
        } else if (f.format) {
          value = posted.trim();
        }
      }
    }
    if (f.secret) delete kept[f.name];
    if (value !== undefined) content[f.name] = value;
  }
  return { content, kept };
}

function hints(f: PlannedField, again: boolean): string[] {
  const out: string[] = [];
  if (again && f.secret) out.push('Enter it again: a secret is never sent back to the page.');
  if (f.format === 'date-time') out.push('The time is in UTC.');
  if (f.kind === 'multi') {
    const { minItems, maxItems } = f.schema as { minItems?: number; maxItems?: number };
    if (minItems !== undefined && maxItems !== undefined) out.push(`Choose ${minItems} to ${maxItems}.`);
    else if (minItems !== undefined) out.push(`Choose at least ${minItems}.`);
    else if (maxItems !== undefined) out.push(`Choose at most ${maxItems}.`);
  }
  return out;
}

/**
 * The fields as the template renders them, with `input` shown (the defaults on a fresh form, what the
 * user entered on a failed post; never a secret) and the validator's `issues` next to their fields.
 */
export function fieldViews(plan: FormPlan, input: KeptInput, issues: readonly FieldIssue[] = []): FieldView[] {
  const errors = new Map<string, string>();
  for (const issue of issues) if (!errors.has(issue.field)) errors.set(issue.field, issue.message);
  return plan.fields.map((f) => {
    const id = `f${f.index}`;
    const schema = f.schema as Partial<Record<'minLength' | 'maxLength' | 'minimum' | 'maximum', number>>;
    const kept = f.secret ? undefined : input[f.name];
    const text = typeof kept === 'string' ? kept : null;
    const chosen = new Set(Array.isArray(kept) ? kept : []);
    const problem = errors.get(f.name);
    const help = [f.schema.description, ...hints(f, issues.length > 0)].filter(Boolean).join(' ') || null;
    const error = problem ? `${f.label} ${problem}.` : null;
    const describedBy = [help && `${id}-help`, error && `${id}-error`].filter(Boolean).join(' ') || null;
    const isInput = f.kind === 'text' || f.kind === 'number';
    const secretInput = f.secret && isInput;
    let options: FieldView['options'] = [];
    if (f.kind === 'select') {
      const selected = text ?? '';
      const hasDefault = f.schema.default !== undefined && !f.secret;
      options = f.options.map((o, i) => ({
        id: `${id}-o${i}`,
        value: o.value,
        title: o.title,
        selected: o.value === selected,
        checked: false,
      }));
      // Without a default, an empty first option: "(none)" for an optional field, a placeholder the browser
      // refuses for a required one (so no option is ever picked for the user silently).
      if (!hasDefault) {
        options.unshift({
          id: `${id}-none`,
          value: '',
          title: f.required ? 'Choose…' : '(none)',
          selected: !options.some((o) => o.selected),
          checked: false,
        });
      }
    } else if (f.kind === 'multi') {
      options = f.options.map((o, i) => ({
        id: `${id}-o${i}`,
        value: o.value,
        title: o.title,
        selected: false,
        checked: chosen.has(o.value),
      }));
    }
    return {
      id,
      name: f.control,
      label: f.label,
      isInput,
      isCheckbox: f.kind === 'boolean',
      isSelect: f.kind === 'select',
      isMulti: f.kind === 'multi',
      inputType: secretInput
        ? 'password'
        : f.kind === 'number'
          ? 'number'
          : f.kind === 'text'
            ? f.format
              ? INPUT_TYPES[f.format]
              : 'text'
            : null,
      value: isInput ? text : null,
      checked: f.kind === 'boolean' && kept === true,
      options,
      // A checkbox always answers true or false, so it is never "required" (that would force it on).
      required: f.required && f.kind !== 'boolean',
      minLength: f.kind === 'text' && schema.minLength !== undefined ? String(schema.minLength) : null,
      maxLength: f.kind === 'text' && schema.maxLength !== undefined ? String(schema.maxLength) : null,
      min: f.kind === 'number' && !secretInput && schema.minimum !== undefined ? String(schema.minimum) : null,
      max: f.kind === 'number' && !secretInput && schema.maximum !== undefined ? String(schema.maximum) : null,
      step:
        f.kind === 'number' && !secretInput
          ? f.schema.type === 'integer'
            ? '1'
            : 'any'
          : f.format === 'date-time' && !secretInput
            ? '1'
            : null,
      autocomplete: f.secret ? 'off' : null,
      inputMode: secretInput && f.kind === 'number' ? (f.schema.type === 'integer' ? 'numeric' : 'decimal') : null,
      help,
      helpId: `${id}-help`,
      error,
      errorId: `${id}-error`,
      describedBy,
    };
  });
}
