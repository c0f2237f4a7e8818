import { createRequire } from 'node:module';
import type { FieldIssue } from '../errors/elicitation-validation.error.js';
import { FormSchemaError } from '../errors/form-schema.error.js';
import type { FieldSchema, FormSchema } from './form-schema.js';
import type { ElicitationValidationResult } from './form-validator.js';
import type { StandardSchemaV1, StandardSchemaV1Issue } from './standard-schema.js';

/**
 * Zod forms: a Zod 4 `z.object({...})` read as a restricted form schema (through Zod's own JSON Schema output),
 * and its own checks (refinements) run after the compiled validator. zod is never imported here: schemas are
 * recognised by their shape, their JSON Schema comes from the schema itself (Standard JSON Schema, zod 4.2+)
 * or from `zod/v4/core`, loaded at first use.
 */

/**
 * A Zod 4 object schema used as a form. Typed structurally (Standard Schema, plus Zod's `_zod` internals), so
 * this library's types need no zod import; `Output` is `z.infer<typeof schema>`.
 */
export interface ZodFormSchema<Output = Record<string, unknown>> extends StandardSchemaV1<unknown, Output> {
  /** Zod's internals, present on every Zod 4 schema (classic and mini). */
  readonly _zod: object;
}

type Json = Record<string, unknown>;
type ToJsonSchema = (schema: unknown, params: Json) => Json;

/** The parts of a Zod schema's definition read here. */
interface ZodDef {
  type?: string;
  shape?: Record<string, unknown>;
  checks?: readonly unknown[];
  innerType?: unknown;
  in?: unknown;
  out?: unknown;
  element?: unknown;
  options?: readonly unknown[];
  fn?: unknown;
  transform?: unknown;
}

/** An option of a select, as Zod describes it (`title` from `.meta({ title })` on a literal). */
interface Option {
  const: string;
  title?: string;
}

const TARGET = 'draft-2020-12';
/** Unrepresentable types and cycles fail; reused schemas are inlined (a form is flat). */
const LIBRARY_OPTIONS = { unrepresentable: 'throw', cycles: 'throw', reused: 'inline' } as const;
/** JSON Schema annotations Zod may emit that carry no rule a form could check: dropped. */
const ANNOTATIONS = new Set(['$schema', '$id', '$comment', 'id', 'examples', 'readOnly', 'writeOnly', 'deprecated']);
/** The option keys a union member may carry: the value, and its title. */
const OPTION_KEYS = new Set(['type', 'const', 'enum', 'title']);
const NULLABLE = 'can be null (.nullable(), .nullish()), and form mode has no null: use .optional()';
const UNION = 'is a union of other things than string literals: form mode offers selects of string options only (z.enum, z.literal)';

/** Whether a value is a Zod 4 schema (classic or mini), recognised by its shape. */
export function isZodSchema(value: unknown): value is ZodFormSchema<unknown> {
  if (!value || typeof value !== 'object' || !('_zod' in value) || !('~standard' in value)) return false;
  const standard = (value as StandardSchemaV1)['~standard'];
  return !!standard && standard.vendor === 'zod' && typeof standard.validate === 'function';
}

function defOf(schema: unknown): ZodDef {
  const internals = (schema as { _zod?: { def?: ZodDef } } | null | undefined)?._zod;
  return internals?.def ?? {};
}

function fail(field: string, problem: string): never {
  throw new FormSchemaError(field, problem);
}

let coreToJsonSchema: ToJsonSchema | undefined;

/** zod 4's own `toJSONSchema` (`zod/v4/core`, works on classic and mini schemas), loaded at first use. */
function zodToJsonSchema(): ToJsonSchema {
  if (coreToJsonSchema) return coreToJsonSchema;
  let loaded: unknown;
  try {
    loaded = (createRequire(import.meta.url)('zod/v4/core') as { toJSONSchema?: unknown }).toJSONSchema;
  } catch {
    loaded = undefined;
  }
  if (typeof loaded !== 'function')
    fail('(schema)', 'is a Zod schema, but zod 4 could not be loaded to read it: install zod 4 (npm install zod@^4)');
  return (coreToJsonSchema = loaded as ToJsonSchema);
}

/**
 * The JSON Schema of a Zod schema's input (so optional and defaulted fields are not required, and defaults
 * appear): through Standard JSON Schema when the schema offers it (zod 4.2+ classic), else `zod/v4/core`.
 */
function jsonSchemaOf(schema: unknown): Json {
  const standard = (schema as { '~standard'?: { jsonSchema?: { input?: (params: Json) => Json } } })['~standard'];
  const input = standard?.jsonSchema?.input;
  if (typeof input === 'function') return input({ target: TARGET, libraryOptions: LIBRARY_OPTIONS });
  return zodToJsonSchema()(schema, { target: TARGET, io: 'input', ...LIBRARY_OPTIONS });
}

const TRANSFORM =
  'has a transform (.transform(), z.preprocess, a codec such as z.stringbool()), which a form cannot carry: the answer is the JSON the user sent, so transform it in your tool';

function unrepresentable(error: unknown): string {
  const reason = error instanceof Error ? error.message : String(error);
  if (/transform/i.test(reason)) return TRANSFORM;
  return `has a type a form cannot carry (Zod: ${reason}): use z.string(), z.number(), z.boolean(), z.enum() or z.array(z.enum())`;
}

/** The JSON Schema of the whole form; when Zod cannot describe it, a `FormSchemaError` naming the field at fault. */
function describeForm(schema: unknown, fields: readonly [string, unknown][]): Json {
  try {
    return jsonSchemaOf(schema);
  } catch (error) {
    if (error instanceof FormSchemaError) throw error;
    for (const [name, field] of fields) {
      try {
        jsonSchemaOf(field);
      } catch (inner) {
        fail(name, unrepresentable(inner));
      }
    }
    return fail('(schema)', unrepresentable(error));
  }
}

const propertiesOf = (json: Json) => (json.properties && typeof json.properties === 'object' ? json.properties : {}) as Json;
const defsOf = (json: Json) => (json.$defs && typeof json.$defs === 'object' ? json.$defs : {}) as Json;

const isAsync = (fn: unknown) => typeof fn === 'function' && Object.prototype.toString.call(fn) === '[object AsyncFunction]';

/** Whether a schema, or one it wraps (optional, default, pipe, array, union...), satisfies `test`. */
function anyWrapped(schema: unknown, test: (def: ZodDef) => boolean, seen = new Set<unknown>()): boolean {
  if (!schema || typeof schema !== 'object' || seen.has(schema)) return false;
  seen.add(schema);
  const def = defOf(schema);
  if (test(def)) return true;
  const wrapped = [def.innerType, def.in, def.out, def.element, ...(def.options ?? [])];
  return wrapped.some((inner) => anyWrapped(inner, test, seen));
}

/** An `async` check function (`.refine(async ...)`, `.superRefine(async ...)`). */
const asyncCheck = (def: ZodDef) => isAsync(def.fn) || !!def.checks?.some((check) => isAsync(defOf(check).fn));
/** A transform: `.transform()`, `z.preprocess` (a transform piped in), a codec (a pipe with its own transform). */
const transform = (def: ZodDef) => def.type === 'transform' || (def.type === 'pipe' && typeof def.transform === 'function');

/** A node with its `$ref` inlined (from the document's `$defs`) and its annotations dropped. */
function resolved(name: string, node: unknown, defs: Json, depth = 0): Json {
  if (!node || typeof node !== 'object' || Array.isArray(node)) fail(name, 'has a schema Zod could not describe');
  let out: Json = { ...(node as Json) };
  if (typeof out.$ref === 'string') {
    const ref = out.$ref;
    const target = ref.startsWith('#/$defs/') ? defs[ref.slice('#/$defs/'.length)] : undefined;
    if (target === undefined || depth > 8) fail(name, `refers to ${ref}, which cannot be inlined`);
    delete out.$ref;
    out = { ...resolved(name, target, defs, depth + 1), ...out };
  }
  for (const key of Object.keys(out)) if (ANNOTATIONS.has(key)) delete out[key];
  return out;
}

/** The options of a select node (`z.enum`, `z.literal`, a union of them), in order. */
function selectOptions(name: string, node: Json, defs: Json): Option[] {
  if (Array.isArray(node.enum)) {
    const values: unknown[] = node.enum;
    if (values.some((v) => typeof v !== 'string'))
      fail(name, 'offers options that are not all strings: form mode selects offer strings (z.enum([...]))');
    return values.map((v) => ({ const: v as string }));
  }
  if ('const' in node) {
    if (typeof node.const !== 'string') fail(name, 'is a literal that is not a string: form mode selects offer strings');
    return [{ const: node.const }];
  }
  const members = node.anyOf ?? node.oneOf;
  if (!Array.isArray(members)) return fail(name, UNION);
  return members.flatMap((m): Option[] => {
    const member = resolved(name, m, defs);
    if (member.type === 'null') fail(name, NULLABLE);
    if (!('const' in member) && !Array.isArray(member.enum)) fail(name, UNION);
    const extra = Object.keys(member).find((key) => !OPTION_KEYS.has(key));
    if (extra) fail(name, `has an option with "${extra}": an option carries its value and a title (.meta({ title })) only`);
    const { title, ...value } = member;
    const options = selectOptions(name, value, defs);
    if (title === undefined) return options;
    if (typeof title !== 'string' || !('const' in member))
      fail(name, 'has a title on a group of options: title each z.literal(...) instead');
    return [{ const: options[0].const, title }];
  });
}

/** A single-select: titled (`oneOf`) when any option has a title (the others are titled by their value). */
function singleSelect(rest: Json, options: Option[]): FieldSchema {
  const titled = options.some((o) => o.title !== undefined);
  return titled
    ? { type: 'string', ...rest, oneOf: options.map((o) => ({ const: o.const, title: o.title ?? o.const })) }
    : { type: 'string', ...rest, enum: options.map((o) => o.const) };
}

function stringField(node: Json): Json {
  const out = { ...node };
  // Several patterns (a .regex() beside a format's own pattern): still a pattern, which the lint refuses.
  const allOf: unknown = out.allOf;
  if (Array.isArray(allOf) && allOf.every((p) => !!p && typeof p === 'object' && Object.keys(p as object).join() === 'pattern')) {
    out.pattern = (allOf[0] as Json).pattern;
    delete out.allOf;
    delete out.format;
  }
  // A format's own pattern (z.email(), z.iso.date()...) is Zod's spelling of the format, which Zod checks again
  // after the validator; a pattern beside `uri` (which has none of its own) is a .regex() and stays, for the lint.
  if (out.format !== undefined && out.format !== 'uri' && out.pattern !== undefined) delete out.pattern;
  return out;
}

function numberField(node: Json): Json {
  const out = { ...node };
  const integer = out.type === 'integer';
  // Exclusive bounds (.gt(), .positive()...) are exact for integers; for numbers the bound itself passes the
  // validator and Zod refuses it afterwards, as a field issue.
  if (typeof out.exclusiveMinimum === 'number') {
    const bound = integer ? Math.floor(out.exclusiveMinimum) + 1 : out.exclusiveMinimum;
    out.minimum = typeof out.minimum === 'number' ? Math.max(out.minimum, bound) : bound;
    delete out.exclusiveMinimum;
  }
  if (typeof out.exclusiveMaximum === 'number') {
    const bound = integer ? Math.ceil(out.exclusiveMaximum) - 1 : out.exclusiveMaximum;
    out.maximum = typeof out.maximum === 'number' ? Math.min(out.maximum, bound) : bound;
    delete out.exclusiveMaximum;
  }
  // z.int() states the safe-integer range; not sent (clients would show it), and Zod checks it again.
  if (integer && out.minimum === -Number.MAX_SAFE_INTEGER) delete out.minimum;
  if (integer && out.maximum === Number.MAX_SAFE_INTEGER) delete out.maximum;
  return out;
}

function arrayField(name: string, node: Json, defs: Json): Json {
  const out = { ...node };
  if (!out.items || typeof out.items !== 'object' || Array.isArray(out.items)) return out;
  const item = resolved(name, out.items, defs);
  if (!Array.isArray(item.enum) && !('const' in item) && !Array.isArray(item.anyOf) && !Array.isArray(item.oneOf)) {
    out.items = item; // a list of objects or of free values: the lint says which
    return out;
  }
  const extra = Object.keys(item).find((key) => !['type', 'enum', 'const', 'anyOf', 'oneOf'].includes(key));
  if (extra)
    fail(name, `has list items with "${extra}", which a multi-select cannot carry (put title, description and default on the z.array)`);
  const options = selectOptions(name, item, defs);
  out.items = options.some((o) => o.title !== undefined)
    ? { anyOf: options.map((o) => ({ const: o.const, title: o.title ?? o.const })) }
    : { type: 'string', enum: options.map((o) => o.const) };
  return out;
}

/** One field of Zod's JSON Schema as a restricted field; what the lint must judge is passed on as it is. */
function toField(name: string, raw: unknown, defs: Json): FieldSchema {
  const node = resolved(name, raw, defs);
  if (Array.isArray(node.type)) fail(name, (node.type as unknown[]).includes('null') ? NULLABLE : UNION);
  if (node.type === 'null') fail(name, NULLABLE);
  // z.literal(true) ("I agree"): a checkbox; Zod refuses `false` afterwards.
  if (node.type === 'boolean' && typeof node.const === 'boolean') {
    const { const: _const, ...rest } = node;
    return rest as unknown as FieldSchema;
  }
  if (node.type !== 'array' && (Array.isArray(node.enum) || 'const' in node || Array.isArray(node.anyOf) || Array.isArray(node.oneOf))) {
    const { enum: _enum, const: _const, anyOf: _anyOf, oneOf: _oneOf, type, ...rest } = node;
    if (type !== undefined && type !== 'string') fail(name, 'is a select of other things than strings: form mode selects offer strings');
    return singleSelect(rest, selectOptions(name, node, defs));
  }
  if (node.type === undefined) {
    fail(
      name,
      'accepts any value (z.any(), z.unknown(), z.custom()...): use z.string(), z.number(), z.boolean(), z.enum() or z.array(z.enum())',
    );
  }
  if (node.type === 'string') return stringField(node) as unknown as FieldSchema;
  if (node.type === 'number' || node.type === 'integer') return numberField(node) as unknown as FieldSchema;
  if (node.type === 'array') return arrayField(name, node, defs) as unknown as FieldSchema;
  return node as unknown as FieldSchema; // boolean; objects and anything else: the lint refuses them by name
}

/**
 * The restricted form schema of a Zod object, read from Zod's JSON Schema of its input (so optional and
 * defaulted fields are not required, and defaults appear). Not linted here (`buildForm` lints it). Throws a
 * `FormSchemaError` naming the field for what Zod cannot describe, transforms, null, unions other than of
 * string literals, and async refinements.
 */
export function zodFormSchema(schema: ZodFormSchema<unknown>): FormSchema {
  const def = defOf(schema);
  if (def.type !== 'object' || !def.shape || typeof def.shape !== 'object') {
    fail('(schema)', 'must be a z.object({...}) of fields (a transform or pipe on the object cannot be carried either)');
  }
  const fields = Object.entries(def.shape);
  // Zod's JSON Schema of the input shows neither transforms nor async checks: read from the schemas themselves.
  for (const [name, field] of fields) {
    if (anyWrapped(field, transform)) fail(name, TRANSFORM);
    if (anyWrapped(field, asyncCheck)) fail(name, asyncProblem());
  }
  if (asyncCheck(def)) fail('(schema)', asyncProblem());
  const json = describeForm(schema, fields);
  const defs = defsOf(json);
  const described = propertiesOf(json);
  const properties: Record<string, FieldSchema> = {};
  for (const name of Object.keys(described)) properties[name] = toField(name, described[name], defs);
  const required = Array.isArray(json.required) ? json.required.filter((n): n is string => typeof n === 'string') : [];
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}

function asyncProblem(): string {
  return 'has an async refinement: form answers are checked synchronously, so make the check synchronous or run it in your tool';
}

function issueOf(issue: StandardSchemaV1Issue): FieldIssue {
  const first = issue.path?.[0];
  const key = first !== null && typeof first === 'object' ? first.key : first;
  return { field: key === undefined ? '(answer)' : String(key), message: issue.message };
}

/**
 * The Zod schema's own check of an answer the compiled validator has accepted (refinements, Zod's exact
 * formats): Zod's output, or its issues as field issues (`field` is the issue's first path key, `(answer)`
 * for a refinement of the whole object without a `path`). A schema whose check turns out asynchronous (a
 * refinement returning a promise) throws a `FormSchemaError`.
 */
export function zodAnswerCheck<T>(schema: ZodFormSchema<T>): (value: unknown) => ElicitationValidationResult<T> {
  return (value) => {
    const result = schema['~standard'].validate(value);
    if (result instanceof Promise) {
      result.catch(() => undefined); // an async check's rejection must not go unhandled
      fail('(schema)', asyncProblem());
    }
    return result.issues ? { ok: false, issues: result.issues.map(issueOf) } : { ok: true, value: result.value };
  };
}
