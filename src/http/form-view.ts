import type { FieldIssue } from '../errors/elicitation-validation.error.js';
import type { StringFormat } from '../forms/form-schema.js';
import type { FormPlan, KeptInput, PlannedField } from './form-plan.js';
import type { PageMessages } from '../messages/page-messages.js';
import { displayText, MAX_FIELD_TITLE_LENGTH } from '../security/display-text.js';

/**
 * The hosted form page's fields as the template renders them (from the form's plan, see `form-plan.ts`).
 * The template only loops over the prepared fields; every value it prints is escaped, and every text the
 * form's author wrote (titles, descriptions, option titles) went through `displayText` here.
 */

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

/** ISO 8601 with a time zone → a `datetime-local` value in UTC, or '' when it cannot be shown. */
export function toDateTimeLocal(iso: string): string {
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return '';
  const utc = new Date(time).toISOString();
  return /^\d{4}-/.test(utc) ? utc.slice(0, 19) : '';
}

/** The values a fresh form starts with: the defaults, never for a secret field. */
export function initialInput(plan: FormPlan): KeptInput {
  const kept: KeptInput = {};
  for (const f of plan.fields) {
    const d = f.schema.default;
    if (f.secret || d === undefined) continue;
    if (f.kind === 'boolean') kept[f.name] = d === true;
    else if (f.kind === 'multi') kept[f.name] = Array.isArray(d) ? d.map(String) : [];
    else if (f.format === 'date-time') kept[f.name] = toDateTimeLocal(String(d));
    else kept[f.name] = String(d);
  }
  return kept;
}

function hints(f: PlannedField, again: boolean, catalog: PageMessages): string[] {
  const out: string[] = [];
  const messages = catalog.form;
  if (again && f.secret) out.push(messages.enterSecretAgain);
  if (f.format === 'date-time') out.push(messages.timeInUtc);
  if (f.kind === 'multi') {
    const { minItems, maxItems } = f.schema as { minItems?: number; maxItems?: number };
    if (minItems !== undefined && maxItems !== undefined) out.push(messages.chooseBetween(minItems, maxItems));
    else if (minItems !== undefined) out.push(messages.chooseAtLeast(minItems));
    else if (maxItems !== undefined) out.push(messages.chooseAtMost(maxItems));
  }
  return out;
}

/** A field or option title as the page shows it: one line, capped (`displayText`). */
const titleText = (title: string): string => displayText(title, 'line', MAX_FIELD_TITLE_LENGTH);

/**
 * The fields as the template renders them, with `input` shown (the defaults on a fresh form, what the
 * user entered on a failed post; never a secret) and the validator's `issues` next to their fields.
 */
export function fieldViews(plan: FormPlan, input: KeptInput, messages: PageMessages, issues: readonly FieldIssue[] = []): FieldView[] {
  const errors = new Map<string, string>();
  // The validator's rule in the page's language; a message without a rule (a Zod refinement's own) as it is.
  for (const issue of issues)
    if (!errors.has(issue.field)) errors.set(issue.field, issue.rule ? messages.validation.problem(issue.rule) : issue.message);
  return plan.fields.map((f) => {
    const id = `f${f.index}`;
    const schema = f.schema as Partial<Record<'minLength' | 'maxLength' | 'minimum' | 'maximum', number>>;
    const kept = f.secret ? undefined : input[f.name];
    const text = typeof kept === 'string' ? kept : null;
    const chosen = new Set(Array.isArray(kept) ? kept : []);
    const problem = errors.get(f.name);
    // A title that shows nothing falls back to the field name, then its position (each field needs a label).
    const label = titleText(f.label) || titleText(f.name) || String(f.index + 1);
    const description = f.schema.description && displayText(f.schema.description, 'line');
    const help = [description, ...hints(f, issues.length > 0, messages)].filter(Boolean).join(' ') || null;
    const error = problem ? messages.form.fieldError(label, problem) : null;
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
        title: titleText(o.title) || titleText(o.value),
        selected: o.value === selected,
        checked: false,
      }));
      // Without a default, an empty first option: "(none)" for an optional field, a placeholder the browser
      // refuses for a required one (so no option is ever picked for the user silently).
      if (!hasDefault) {
        options.unshift({
          id: `${id}-none`,
          value: '',
          title: f.required ? messages.form.choosePlaceholder : messages.form.noChoice,
          selected: !options.some((o) => o.selected),
          checked: false,
        });
      }
    } else if (f.kind === 'multi') {
      options = f.options.map((o, i) => ({
        id: `${id}-o${i}`,
        value: o.value,
        title: titleText(o.title) || titleText(o.value),
        selected: false,
        checked: chosen.has(o.value),
      }));
    }
    return {
      id,
      name: f.control,
      label,
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
