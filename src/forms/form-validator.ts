import type { FieldIssue } from '../errors/elicitation-validation.error.js';
import type { FieldSchema, FormSchema, FormValue, StringFormat, TitledOption } from './form-schema.js';

/** What validating an answer gives: the content (defaults applied) or the field problems. */
export type ElicitationValidationResult<T> = { ok: true; value: T } | { ok: false; issues: FieldIssue[] };

type Check = (value: unknown) => string | undefined;

const EMAIL = /^[^\s@"<>()[\]\\,;:]+@[^\s@"<>()[\]\\,;:]+\.[^\s@"<>()[\]\\,;:.]{2,}$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/** Format checks: the same in form mode and on the hosted form page. */
export const FORMAT_CHECKS: Record<StringFormat, (s: string) => boolean> = {
  email: (s) => s.length <= 254 && EMAIL.test(s),
  uri: (s) => {
    if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(s)) return false;
    try {
      new URL(s);
      return true;
    } catch {
      return false;
    }
  },
  date: (s) => {
    const m = DATE.exec(s);
    return !!m && validDate(+m[1], +m[2], +m[3]);
  },
  'date-time': (s) => {
    const m = DATE_TIME.exec(s);
    return !!m && validDate(+m[1], +m[2], +m[3]) && +m[4] < 24 && +m[5] < 60 && +m[6] < 61;
  },
};

const FORMAT_MESSAGES: Record<StringFormat, string> = {
  email: 'must be an e-mail address',
  uri: 'must be a URL',
  date: 'must be a date (YYYY-MM-DD)',
  'date-time': 'must be a date and time (ISO 8601 with a time zone)',
};

/** The options of a select field (single or multi), or undefined for other fields. */
export function optionsOf(field: FieldSchema): string[] | undefined {
  if ('enum' in field) return [...field.enum];
  if ('oneOf' in field) return field.oneOf.map((o: TitledOption) => o.const);
  if (field.type === 'array') return 'enum' in field.items ? [...field.items.enum] : field.items.anyOf.map((o) => o.const);
  return undefined;
}

function compileField(field: FieldSchema): Check {
  const options = optionsOf(field);
  switch (field.type) {
    case 'boolean':
      return (v) => (typeof v === 'boolean' ? undefined : 'must be true or false');
    case 'number':
    case 'integer': {
      const { minimum, maximum } = field;
      const integer = field.type === 'integer';
      return (v) => {
        if (typeof v !== 'number' || !Number.isFinite(v)) return 'must be a number';
        if (integer && !Number.isInteger(v)) return 'must be a whole number';
        if (minimum !== undefined && v < minimum) return `must be at least ${minimum}`;
        if (maximum !== undefined && v > maximum) return `must be at most ${maximum}`;
        return undefined;
      };
    }
    case 'array': {
      const allowed = new Set(options);
      const { minItems, maxItems } = field;
      return (v) => {
        if (!Array.isArray(v)) return 'must be a list of options';
        const seen = new Set<unknown>();
        for (const item of v) {
          if (typeof item !== 'string' || !allowed.has(item)) return 'contains an option that is not offered';
          if (seen.has(item)) return 'contains an option twice';
          seen.add(item);
        }
        if (minItems !== undefined && v.length < minItems) return `needs at least ${minItems} option(s)`;
        if (maxItems !== undefined && v.length > maxItems) return `allows at most ${maxItems} option(s)`;
        return undefined;
      };
    }
    default: {
      if (options) {
        const allowed = new Set(options);
        return (v) => (typeof v === 'string' && allowed.has(v) ? undefined : 'must be one of the offered options');
      }
      const { minLength, maxLength, format } = field as { minLength?: number; maxLength?: number; format?: StringFormat };
      const formatCheck = format && FORMAT_CHECKS[format];
      return (v) => {
        if (typeof v !== 'string') return 'must be text';
        if (minLength !== undefined && v.length < minLength) return `must be at least ${minLength} character(s)`;
        if (maxLength !== undefined && v.length > maxLength) return `must be at most ${maxLength} character(s)`;
        if (formatCheck && !formatCheck(v)) return FORMAT_MESSAGES[format];
        return undefined;
      };
    }
  }
}

/**
 * A validator compiled once per schema (one closure per field): required fields present, no unknown
 * keys, types, formats, bounds, options and item counts. Missing optional fields get their `default`
 * when `applyDefaults` is on. Messages name the field and the rule, never the value.
 */
export function compileValidator<T>(schema: FormSchema): (content: unknown, applyDefaults?: boolean) => ElicitationValidationResult<T> {
  const names = Object.keys(schema.properties);
  const known = new Set(names);
  const required = new Set(schema.required ?? []);
  const checks = names.map((name) => ({
    name,
    check: compileField(schema.properties[name]),
    required: required.has(name),
    default: schema.properties[name].default as FormValue | undefined,
  }));
  return (content, applyDefaults = true) => {
    if (content === null || typeof content !== 'object' || Array.isArray(content)) {
      return { ok: false, issues: [{ field: '(answer)', message: 'must be an object of field values' }] };
    }
    const input = content as Record<string, unknown>;
    const issues: FieldIssue[] = [];
    const value: Record<string, unknown> = {};
    for (const key in input) {
      if (!known.has(key)) issues.push({ field: key, message: 'is not a field of this form' });
    }
    for (const c of checks) {
      const v = input[c.name];
      if (v === undefined) {
        if (c.required) issues.push({ field: c.name, message: 'is required' });
        else if (applyDefaults && c.default !== undefined) value[c.name] = Array.isArray(c.default) ? [...c.default] : c.default;
        continue;
      }
      const problem = c.check(v);
      if (problem) issues.push({ field: c.name, message: problem });
      else value[c.name] = v;
    }
    return issues.length ? { ok: false, issues } : { ok: true, value: value as T };
  };
}
