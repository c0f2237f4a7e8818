import type { FieldSchema, FormSchema, StringFormat } from '../forms/form-schema.js';
import { compileValidator, type ElicitationValidationResult } from '../forms/form-validator.js';

/**
 * The hosted form page (`kind: 'form'`): the plan of a form schema, and the urlencoded post → typed content
 * conversion. The page's fields are prepared from the plan in `form-view.ts`.
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
export type FieldKind = 'text' | 'number' | 'boolean' | 'select' | 'multi';

interface Option {
  value: string;
  title: string;
}

/** One field of a plan: how it is rendered, posted and read. */
export interface PlannedField {
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
  validate(content: unknown): ElicitationValidationResult<Record<string, unknown>>;
}

/** What the user entered, kept as posted (strings) to show the form again. Secret fields are never kept. */
export type KeptInput = Record<string, string | string[] | boolean | undefined>;

/** A submission read from a post: the typed content for the validator, and the input to show again. */
export interface Submission {
  content: Record<string, unknown>;
  kept: KeptInput;
}

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const LOCAL_DATE_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2}(\.\d{1,9})?)?$/;

/** `<input type="datetime-local">` value → ISO 8601 in UTC (`Z`); anything else is returned as it is. */
export function fromDateTimeLocal(value: string): string {
  const m = LOCAL_DATE_TIME.exec(value);
  return m ? `${m[1]}T${m[2]}${m[3] ?? ':00'}Z` : value;
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

function compilePlan(form: { schema: FormSchema; secretFields: readonly string[]; httpUrlFields: readonly string[] }): FormPlan {
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
  const validator = compileValidator<Record<string, unknown>>(schema, { httpUrlFields: form.httpUrlFields });
  return Object.freeze({ fields: Object.freeze(fields), validate: (content: unknown) => validator(content) });
}

const MAX_CACHED_PLANS = 200;
const plans = new Map<string, FormPlan>();

/** A record's `metadata.form` as the service stores it: at least a schema with its properties. */
interface StoredForm {
  schema: FormSchema;
  secretFields?: unknown;
  httpUrlFields?: unknown;
}

function isStoredForm(value: unknown): value is StoredForm {
  if (!value || typeof value !== 'object' || !('schema' in value)) return false;
  const schema = value.schema;
  return !!schema && typeof schema === 'object' && 'properties' in schema && !!schema.properties && typeof schema.properties === 'object';
}

/** The strings of a list (a stored `secretFields` or `httpUrlFields`); nothing when it is not a list. */
function stringsOf(list: unknown): string[] {
  return Array.isArray(list) ? list.filter((item): item is string => typeof item === 'string') : [];
}

/**
 * The plan of a record's `metadata.form` (`{ schema, secretFields, httpUrlFields? }`), compiled once per distinct form
 * (a small LRU keyed by the form's JSON). Throws when the record carries no usable form.
 */
export function formPlanOf(metadata: Record<string, unknown>): FormPlan {
  const form = metadata.form;
  if (!isStoredForm(form)) throw new Error('nestjs-mcp-elicitation: a form elicitation has no form schema in its metadata');
  const secretFields = [...stringsOf(form.secretFields), ...stringsOf(metadata.secretFields)];
  const httpUrlFields = stringsOf(form.httpUrlFields);
  const key = JSON.stringify([form.schema, secretFields, httpUrlFields]);
  let plan = plans.get(key);
  if (plan) {
    plans.delete(key);
  } else {
    plan = compilePlan({ schema: form.schema, secretFields, httpUrlFields });
    if (plans.size >= MAX_CACHED_PLANS) plans.delete(plans.keys().next().value!);
  }
  plans.set(key, plan);
  return plan;
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
