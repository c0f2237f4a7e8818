import type { FieldIssue } from '../errors/elicitation-validation.error.js';
import { englishProblem, type FieldRule } from '../core/form-rules.js';
import type { FieldSchema, FormSchema, FormValue, StringFormat, TitledOption } from './form-schema.js';

/** What validating an answer gives: the content (defaults applied) or the field problems. */
export type ElicitationValidationResult<T> = { ok: true; value: T } | { ok: false; issues: FieldIssue[] };

type Check = (value: unknown) => FieldRule | undefined;

/**
 * A problem with a field: the rule's English text, and the rule itself as a property that is not enumerated, so that
 * an issue's JSON (tool errors, results) keeps its two fields while a page can say the problem in its own language.
 */
function issue(field: string, rule: FieldRule): FieldIssue {
  return Object.defineProperty({ field, message: englishProblem(rule) }, 'rule', { value: rule, enumerable: false });
}

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

/**
 * The `httpUrlFields` rule, on top of `uri`: an absolute `http:` or `https:` URL (any case) with a host, written
 * without spaces or control characters, so that a tool may turn it into a link; `javascript:`, `data:`, `file:` and
 * every other scheme are refused, and so is a value with leading spaces.
 */
export function isHttpUrl(s: string): boolean {
  // eslint-disable-next-line no-control-regex -- control characters are refused
  if (!/^https?:\/\/[^\s\u0000-\u001F\u007F]+$/i.test(s) || !FORMAT_CHECKS.uri(s)) return false;
  const url = new URL(s);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}

/** What `compileValidator` checks beyond the schema (rules kept beside it: a form's options, stored with it). */
export interface ValidatorRules {
  /** String fields with `format: 'uri'` that must be `http(s)` URLs (`isHttpUrl`). @default [] */
  httpUrlFields?: readonly string[];
}

/** The options of a select field (single or multi), or undefined for other fields. */
export function optionsOf(field: FieldSchema): string[] | undefined {
  if ('enum' in field) return [...field.enum];
  if ('oneOf' in field) return field.oneOf.map((o: TitledOption) => o.const);
  if (field.type === 'array') return 'enum' in field.items ? [...field.items.enum] : field.items.anyOf.map((o) => o.const);
  return undefined;
}

function compileField(field: FieldSchema, httpUrl: boolean): Check {
  const options = optionsOf(field);
  switch (field.type) {
    case 'boolean':
      return (v) => (typeof v === 'boolean' ? undefined : { code: 'boolean' });
    case 'number':
    case 'integer': {
      const { minimum, maximum } = field;
      const integer = field.type === 'integer';
      return (v) => {
        if (typeof v !== 'number' || !Number.isFinite(v)) return { code: 'number' };
        if (integer && !Number.isInteger(v)) return { code: 'integer' };
        if (minimum !== undefined && v < minimum) return { code: 'minimum', limit: minimum };
        if (maximum !== undefined && v > maximum) return { code: 'maximum', limit: maximum };
        return undefined;
      };
    }
    case 'array': {
      const allowed = new Set(options);
      const { minItems, maxItems } = field;
      return (v) => {
        if (!Array.isArray(v)) return { code: 'list' };
        const seen = new Set<unknown>();
        for (const item of v) {
          if (typeof item !== 'string' || !allowed.has(item)) return { code: 'not-offered' };
          if (seen.has(item)) return { code: 'twice' };
          seen.add(item);
        }
        if (minItems !== undefined && v.length < minItems) return { code: 'min-items', limit: minItems };
        if (maxItems !== undefined && v.length > maxItems) return { code: 'max-items', limit: maxItems };
        return undefined;
      };
    }
    default: {
      if (options) {
        const allowed = new Set(options);
        return (v) => (typeof v === 'string' && allowed.has(v) ? undefined : { code: 'option' });
      }
      const { minLength, maxLength, format } = field as { minLength?: number; maxLength?: number; format?: StringFormat };
      const formatCheck = format && FORMAT_CHECKS[format];
      return (v) => {
        if (typeof v !== 'string') return { code: 'text' };
        if (minLength !== undefined && v.length < minLength) return { code: 'min-length', limit: minLength };
        if (maxLength !== undefined && v.length > maxLength) return { code: 'max-length', limit: maxLength };
        if (formatCheck && !formatCheck(v)) return { code: 'format', format };
        if (httpUrl && !isHttpUrl(v)) return { code: 'http-url' };
        return undefined;
      };
    }
  }
}

/**
 * A validator compiled once per schema (one closure per field): required fields present, no unknown
 * keys, types, formats, bounds, options and item counts, and the `rules` kept beside the schema (`httpUrlFields`).
 * Missing optional fields get their `default` when `applyDefaults` is on. Messages name the field and the rule,
 * never the value.
 */
export function compileValidator<T>(
  schema: FormSchema,
  rules: ValidatorRules = {},
): (content: unknown, applyDefaults?: boolean) => ElicitationValidationResult<T> {
  const names = Object.keys(schema.properties);
  const known = new Set(names);
  const required = new Set(schema.required ?? []);
  const httpUrls = new Set(rules.httpUrlFields ?? []);
  const checks = names.map((name) => ({
    name,
    check: compileField(schema.properties[name], httpUrls.has(name)),
    required: required.has(name),
    default: schema.properties[name].default as FormValue | undefined,
  }));
  return (content, applyDefaults = true) => {
    if (content === null || typeof content !== 'object' || Array.isArray(content)) {
      return { ok: false, issues: [issue('(answer)', { code: 'object' })] };
    }
    const input = content as Record<string, unknown>;
    const issues: FieldIssue[] = [];
    const value: Record<string, unknown> = {};
    for (const key in input) {
      if (!known.has(key)) issues.push(issue(key, { code: 'unknown-field' }));
    }
    for (const c of checks) {
      const v = input[c.name];
      if (v === undefined) {
        if (c.required) issues.push(issue(c.name, { code: 'required' }));
        else if (applyDefaults && c.default !== undefined) value[c.name] = Array.isArray(c.default) ? [...c.default] : c.default;
        continue;
      }
      const problem = c.check(v);
      if (problem) issues.push(issue(c.name, problem));
      else value[c.name] = v;
    }
    return issues.length ? { ok: false, issues } : { ok: true, value: value as T };
  };
}
