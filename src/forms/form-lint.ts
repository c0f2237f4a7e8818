import { FormSchemaError } from '../errors/form-schema.error.js';
import type { FieldSchema, FormSchema, StringFormat } from './form-schema.js';
import { FORMAT_CHECKS, isHttpUrl, optionsOf } from './form-validator.js';

const BASE_KEYS = ['type', 'title', 'description', 'default'];
const ALLOWED_KEYS: Record<string, string[]> = {
  string: [...BASE_KEYS, 'minLength', 'maxLength', 'format'],
  enum: [...BASE_KEYS, 'enum', 'enumNames'],
  oneOf: [...BASE_KEYS, 'oneOf'],
  number: [...BASE_KEYS, 'minimum', 'maximum'],
  boolean: BASE_KEYS,
  array: [...BASE_KEYS, 'items', 'minItems', 'maxItems'],
};
const FORMATS = Object.keys(FORMAT_CHECKS);

/** Field names that look like secrets, which the spec forbids asking for in form mode. */
const SECRET_NAME =
  /(pass(word|wd|phrase)?|pwd|secret|token|api[-_ ]?key|apikey|access[-_ ]?key|private[-_ ]?key|credential|card[-_ ]?(number|no)|cc[-_ ]?num|cvv|cvc|security[-_ ]?code|ssn|iban|pin[-_ ]?code|^pin$|otp|one[-_ ]?time)/i;

/** Whether a field name or title looks like it asks for a secret. */
function looksSecret(name: string, field: FieldSchema): boolean {
  return SECRET_NAME.test(name) || (field.title !== undefined && SECRET_NAME.test(field.title));
}

const isCount = (v: unknown) => Number.isInteger(v) && (v as number) >= 0;

/** `Array.isArray` without its `any[]`: the items stay `unknown` until checked. */
const isList = (v: unknown): v is readonly unknown[] => Array.isArray(v);

function fail(field: string, problem: string): never {
  throw new FormSchemaError(field, problem);
}

function kindOf(name: string, field: FieldSchema): keyof typeof ALLOWED_KEYS {
  if (field.type === 'string') return 'enum' in field ? 'enum' : 'oneOf' in field ? 'oneOf' : 'string';
  if (field.type === 'number' || field.type === 'integer') return 'number';
  if (field.type === 'boolean') return 'boolean';
  if (field.type === 'array') return 'array';
  if ((field as { type?: unknown }).type === 'object') fail(name, 'is a nested object: form mode carries flat fields of primitives only');
  return fail(
    name,
    `has type ${JSON.stringify((field as { type?: unknown }).type)}: use string, number, integer, boolean or array (multi-select)`,
  );
}

function lintTitledOptions(name: string, options: unknown): void {
  if (!isList(options) || options.length === 0) fail(name, 'needs a non-empty list of { const, title } options');
  const seen = new Set<string>();
  for (const item of options) {
    const o = item as { const?: unknown; title?: unknown } | null | undefined;
    if (!o || typeof o.const !== 'string' || typeof o.title !== 'string' || Object.keys(o).some((k) => k !== 'const' && k !== 'title')) {
      fail(name, 'has an option that is not { const: string, title: string }');
    }
    if (seen.has(o.const)) fail(name, `offers the option "${o.const}" twice`);
    seen.add(o.const);
  }
}

function lintField(name: string, field: FieldSchema): void {
  if (!field || typeof field !== 'object' || Array.isArray(field)) fail(name, 'must be a field schema object');
  const kind = kindOf(name, field);
  for (const key of Object.keys(field)) {
    if (!ALLOWED_KEYS[kind].includes(key)) {
      const hint = key === 'pattern' ? ' (the MCP schema has no "pattern": check it in your tool instead)' : '';
      fail(name, `has "${key}", which MCP form mode cannot carry${hint}`);
    }
  }
  for (const key of ['title', 'description'] as const) {
    if (field[key] !== undefined && typeof field[key] !== 'string') fail(name, `has a ${key} that is not a string`);
  }
  // Read only after the shape checks of each case (a malformed select must fail with a FormSchemaError).
  const options = () => optionsOf(field)!;
  const d = field.default as unknown;
  switch (kind) {
    case 'string': {
      const f = field as { minLength?: unknown; maxLength?: unknown; format?: unknown };
      if (f.minLength !== undefined && !isCount(f.minLength)) fail(name, 'has a minLength that is not a whole number >= 0');
      if (f.maxLength !== undefined && !isCount(f.maxLength)) fail(name, 'has a maxLength that is not a whole number >= 0');
      if (isCount(f.minLength) && isCount(f.maxLength) && (f.minLength as number) > (f.maxLength as number))
        fail(name, 'has minLength above maxLength');
      if (f.format !== undefined && !FORMATS.includes(f.format as string)) {
        fail(name, `has format ${JSON.stringify(f.format)}: use one of ${FORMATS.join(', ')}`);
      }
      const format = f.format as StringFormat | undefined; // one of FORMATS, checked just above
      if (d !== undefined) {
        if (typeof d !== 'string') fail(name, 'has a default that is not a string');
        if ((isCount(f.minLength) && d.length < (f.minLength as number)) || (isCount(f.maxLength) && d.length > (f.maxLength as number))) {
          fail(name, 'has a default outside its length bounds');
        }
        if (format && !FORMAT_CHECKS[format](d)) fail(name, `has a default that is not a valid ${format}`);
      }
      break;
    }
    case 'enum': {
      const f = field as { enum: unknown; enumNames?: unknown };
      if (!Array.isArray(f.enum) || f.enum.length === 0 || f.enum.some((v) => typeof v !== 'string'))
        fail(name, 'needs a non-empty enum of strings');
      if (new Set(f.enum).size !== f.enum.length) fail(name, 'has an enum with duplicates');
      if (
        f.enumNames !== undefined &&
        (!Array.isArray(f.enumNames) || f.enumNames.length !== f.enum.length || f.enumNames.some((v) => typeof v !== 'string'))
      ) {
        fail(name, 'has enumNames that do not match its enum one to one');
      }
      if (d !== undefined && !options().includes(d as string)) fail(name, 'has a default that is not one of its options');
      break;
    }
    case 'oneOf':
      lintTitledOptions(name, (field as { oneOf: unknown }).oneOf);
      if (d !== undefined && !options().includes(d as string)) fail(name, 'has a default that is not one of its options');
      break;
    case 'number': {
      const f = field as { minimum?: unknown; maximum?: unknown };
      for (const k of ['minimum', 'maximum'] as const) {
        if (f[k] !== undefined && (typeof f[k] !== 'number' || !Number.isFinite(f[k])))
          fail(name, `has a ${k} that is not a finite number`);
      }
      if (typeof f.minimum === 'number' && typeof f.maximum === 'number' && f.minimum > f.maximum) fail(name, 'has minimum above maximum');
      if (d !== undefined) {
        if (typeof d !== 'number' || !Number.isFinite(d)) fail(name, 'has a default that is not a number');
        if (field.type === 'integer' && !Number.isInteger(d)) fail(name, 'has a default that is not a whole number');
        if ((typeof f.minimum === 'number' && d < f.minimum) || (typeof f.maximum === 'number' && d > f.maximum))
          fail(name, 'has a default outside its bounds');
      }
      break;
    }
    case 'boolean':
      if (d !== undefined && typeof d !== 'boolean') fail(name, 'has a default that is not true or false');
      break;
    case 'array': {
      const f = field as { items?: Record<string, unknown>; minItems?: unknown; maxItems?: unknown };
      const items = f.items;
      if (!items || typeof items !== 'object') fail(name, 'needs items ({ type: "string", enum } or { anyOf })');
      if ((items as { type?: unknown }).type === 'object' || 'properties' in items)
        fail(name, 'is a list of objects: form mode carries lists of options only');
      if ('enum' in items) {
        if (Object.keys(items).some((k) => k !== 'type' && k !== 'enum') || items.type !== 'string')
          fail(name, 'has items that are not { type: "string", enum }');
        const e = items.enum;
        if (!Array.isArray(e) || e.length === 0 || e.some((v) => typeof v !== 'string') || new Set(e).size !== e.length) {
          fail(name, 'needs a non-empty enum of distinct strings in items');
        }
      } else if ('anyOf' in items) {
        if (Object.keys(items).some((k) => k !== 'anyOf')) fail(name, 'has items that are not { anyOf }');
        lintTitledOptions(name, items.anyOf);
      } else {
        fail(name, 'is a list of free values: form mode carries multi-selects (items.enum or items.anyOf) only');
      }
      if (f.minItems !== undefined && !isCount(f.minItems)) fail(name, 'has a minItems that is not a whole number >= 0');
      if (f.maxItems !== undefined && !isCount(f.maxItems)) fail(name, 'has a maxItems that is not a whole number >= 0');
      if (isCount(f.minItems) && isCount(f.maxItems) && (f.minItems as number) > (f.maxItems as number))
        fail(name, 'has minItems above maxItems');
      if (d !== undefined) {
        if (!isList(d) || d.some((v) => typeof v !== 'string' || !options().includes(v)) || new Set(d).size !== d.length) {
          fail(name, 'has a default that is not a list of distinct offered options');
        }
        if ((isCount(f.minItems) && d.length < (f.minItems as number)) || (isCount(f.maxItems) && d.length > (f.maxItems as number))) {
          fail(name, 'has a default outside its item-count bounds');
        }
      }
      break;
    }
  }
}

/** `httpUrlFields`: a list of the schema's text fields with `format: 'uri'`, a default among them an http(s) URL. */
function lintHttpUrlFields(schema: FormSchema, httpUrlFields: unknown): void {
  if (httpUrlFields === undefined) return;
  if (!isList(httpUrlFields) || httpUrlFields.some((name) => typeof name !== 'string'))
    fail('(schema)', 'has httpUrlFields that are not a list of field names');
  for (const name of httpUrlFields as readonly string[]) {
    const field = Object.hasOwn(schema.properties, name) ? (schema.properties[name] as { format?: unknown; default?: unknown }) : undefined;
    if (!field) fail(name, 'is listed in httpUrlFields but is not a field');
    if (field.format !== 'uri') fail(name, 'is listed in httpUrlFields but is not a text field with format "uri"');
    if (typeof field.default === 'string' && !isHttpUrl(field.default)) fail(name, 'has a default that is not an http(s) URL');
  }
}

/** Options of the lint. */
export interface ElicitationLintOptions {
  /** Fields that are secrets on purpose (allowed only on the hosted form page, URL mode). */
  secretFields?: readonly string[];
  /** Fields whose secret-looking name is not a secret (e.g. "token count"). @default [] */
  notSecret?: readonly string[];
  /**
   * Fields with `format: 'uri'` whose answer must be an `http:` or `https:` URL (a `uri` alone takes any scheme,
   * `javascript:` and `data:` included). Checked by the module in form mode and on the hosted page; the wire
   * schema keeps `format: 'uri'`, which is all MCP form mode can carry. @default []
   */
  httpUrlFields?: readonly string[];
}

/**
 * Checks a schema once, when the form is declared: anything MCP form mode cannot carry (nested objects,
 * arrays of objects, `pattern`, unknown formats, a default outside its options or bounds, unknown keys)
 * and secret-looking fields that are neither declared secret nor cleared raise a `FormSchemaError` naming
 * the field.
 */
export function lintFormSchema(schema: FormSchema, options: ElicitationLintOptions = {}): void {
  if (!schema || typeof schema !== 'object' || schema.type !== 'object') fail('(schema)', 'must be { type: "object", properties: {...} }');
  if (!schema.properties || typeof schema.properties !== 'object' || Array.isArray(schema.properties)) fail('(schema)', 'needs properties');
  for (const key of Object.keys(schema)) {
    if (!['$schema', 'type', 'properties', 'required'].includes(key)) fail('(schema)', `has "${key}", which MCP form mode cannot carry`);
  }
  const names = Object.keys(schema.properties);
  if (names.length === 0) fail('(schema)', 'has no fields');
  const secret = new Set(options.secretFields ?? []);
  const cleared = new Set(options.notSecret ?? []);
  for (const name of names) {
    if (!name.trim() || name.length > 100) fail(name, 'has an empty or overlong name');
    lintField(name, schema.properties[name]);
    if (looksSecret(name, schema.properties[name]) && !secret.has(name) && !cleared.has(name)) {
      fail(
        name,
        'looks like a secret (password, token, API key, card number...): the MCP spec forbids asking for secrets in form mode. ' +
          'Collect it on a URL-mode page (kind "api-key", or a hosted form listing it in secretFields), or list it in notSecret if it is not one',
      );
    }
  }
  for (const name of [...secret, ...cleared])
    if (!names.includes(name)) fail(name, 'is listed in secretFields/notSecret but is not a field');
  lintHttpUrlFields(schema, options.httpUrlFields);
  if (schema.required !== undefined) {
    if (!isList(schema.required)) fail('(schema)', 'has a required that is not a list of field names');
    for (const name of schema.required) if (!names.includes(name)) fail(name, 'is required but is not a field');
    if (new Set(schema.required).size !== schema.required.length) fail('(schema)', 'lists a required field twice');
  }
}
