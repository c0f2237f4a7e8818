import 'reflect-metadata';
import { getMetadataStorage } from 'class-validator';
import { FormSchemaError } from '../errors/form-schema.error.js';
import { buildForm, type FormDefinition, type ElicitationFormOptions } from './define-form.js';
import type { FieldSchema, FormSchema, StringFormat, TitledOption } from './form-schema.js';

const FIELDS = Symbol('nestjs-mcp-elicitation:form-fields');

/** The `@FormField()` options of a class's properties (`target` is its prototype); `own` skips inherited ones. */
function fieldsOf(target: object, own = false): Map<string, FormFieldOptions> | undefined {
  return (own ? Reflect.getOwnMetadata(FIELDS, target) : Reflect.getMetadata(FIELDS, target)) as Map<string, FormFieldOptions> | undefined;
}

/** What `@FormField()` adds to a property (class-validator decorators supply the constraints). */
export interface FormFieldOptions {
  title?: string;
  description?: string;
  default?: string | number | boolean | readonly string[];
  /** The wire type, when the property's TypeScript type does not tell (e.g. `integer`). */
  type?: 'string' | 'number' | 'integer' | 'boolean' | 'array';
  format?: StringFormat;
  /** Options of a select: strings (untitled) or `{ const, title }` (titled). With `multiple`: a multi-select. */
  options?: readonly (string | TitledOption)[];
  multiple?: boolean;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  /** Required unless `@IsOptional()` or `required: false`. */
  required?: boolean;
  /** A secret: the form can then only be collected on the hosted page (URL mode). */
  secret?: boolean;
  /** The name looks like a secret but is not one (e.g. `tokenCount`). */
  notSecret?: boolean;
  /** The answer must be an `http:` or `https:` URL (`format: 'uri'`, listed in `httpUrlFields`). */
  httpUrl?: boolean;
}

/**
 * Marks a property as a form field. Constraints may come from class-validator decorators on the same
 * property (`@IsEmail`, `@IsUrl`, `@IsISO8601`/`@IsDateString`, `@MinLength`/`@MaxLength`/`@Length`,
 * `@IsInt`, `@Min`/`@Max`, `@IsBoolean`, `@IsIn`/`@IsEnum`, `@ArrayMinSize`/`@ArrayMaxSize`,
 * `@IsOptional`); options given here win.
 */
export function FormField(options: FormFieldOptions = {}): PropertyDecorator {
  return (target, property) => {
    const fields = fieldsOf(target, true) ?? new Map(fieldsOf(target) ?? []);
    fields.set(String(property), { ...(fields.get(String(property)) ?? {}), ...options });
    Reflect.defineMetadata(FIELDS, fields, target);
  };
}

/** Field settings read from class-validator metadata. */
function fromValidators(cls: abstract new (...args: never[]) => unknown, property: string): FormFieldOptions & { optional?: boolean } {
  const out: FormFieldOptions & { optional?: boolean } = {};
  for (const m of getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false)) {
    if (m.propertyName !== property) continue;
    const c = (m.constraints ?? []) as unknown[];
    switch (m.name) {
      case 'isOptional':
        out.optional = true;
        break;
      case 'isEmail':
        out.format = 'email';
        break;
      case 'isUrl':
        out.format = 'uri';
        break;
      case 'isIso8601':
      case 'isDateString':
        out.format ??= 'date-time';
        break;
      case 'minLength':
        out.minLength = c[0] as number;
        break;
      case 'maxLength':
        out.maxLength = c[0] as number;
        break;
      case 'isLength':
        out.minLength = c[0] as number;
        if (c[1] !== undefined) out.maxLength = c[1] as number;
        break;
      case 'isInt':
        out.type = 'integer';
        break;
      case 'isNumber':
        out.type ??= 'number';
        break;
      case 'min':
        out.minimum = c[0] as number;
        break;
      case 'max':
        out.maximum = c[0] as number;
        break;
      case 'isBoolean':
        out.type = 'boolean';
        break;
      case 'isIn':
        out.options = c[0] as string[];
        break;
      case 'isEnum':
        out.options = c[1] as string[];
        break;
      case 'arrayMinSize':
        out.minItems = c[0] as number;
        break;
      case 'arrayMaxSize':
        out.maxItems = c[0] as number;
        break;
    }
  }
  return out;
}

function fieldSchema(name: string, o: FormFieldOptions, designType: unknown): FieldSchema {
  const base = {
    ...(o.title !== undefined ? { title: o.title } : {}),
    ...(o.description !== undefined ? { description: o.description } : {}),
  };
  const type =
    o.type ??
    (o.multiple || designType === Array ? 'array' : designType === Number ? 'number' : designType === Boolean ? 'boolean' : 'string');
  const titled = o.options?.some((x) => typeof x !== 'string');
  const titledOptions = () => o.options!.map((x) => (typeof x === 'string' ? { const: x, title: x } : x));
  const withDefault = <F extends object>(f: F) => (o.default !== undefined ? { ...f, default: o.default } : f) as FieldSchema;
  switch (type) {
    case 'array':
      if (!o.options) throw new FormSchemaError(name, 'is a list: give its options (@FormField({ options }) or @IsIn)');
      return withDefault({
        ...base,
        type: 'array',
        items: titled ? { anyOf: titledOptions() } : { type: 'string', enum: o.options as string[] },
        ...(o.minItems !== undefined ? { minItems: o.minItems } : {}),
        ...(o.maxItems !== undefined ? { maxItems: o.maxItems } : {}),
      });
    case 'boolean':
      return withDefault({ ...base, type: 'boolean' });
    case 'number':
    case 'integer':
      return withDefault({
        ...base,
        type,
        ...(o.minimum !== undefined ? { minimum: o.minimum } : {}),
        ...(o.maximum !== undefined ? { maximum: o.maximum } : {}),
      });
    default:
      if (o.options)
        return withDefault(titled ? { ...base, type: 'string', oneOf: titledOptions() } : { ...base, type: 'string', enum: o.options });
      return withDefault({
        ...base,
        type: 'string',
        ...(o.minLength !== undefined ? { minLength: o.minLength } : {}),
        ...(o.maxLength !== undefined ? { maxLength: o.maxLength } : {}),
        ...(o.format !== undefined ? { format: o.format } : {}),
      });
  }
}

/**
 * Declares a form from a class whose properties carry `@FormField()` (and class-validator decorators). The
 * answer's type is the class's instance type.
 *
 * ```ts
 * class Profile {
 *   @FormField({ title: 'Name' }) @MinLength(1) name!: string;
 *   @FormField({ title: 'E-mail' }) @IsEmail() email!: string;
 *   @FormField() @IsOptional() @IsInt() @Min(0) age?: number;
 * }
 * const profile = formFromClass(Profile); // FormDefinition<Profile>
 * ```
 */
export function formFromClass<T>(cls: new (...args: never[]) => T, options: ElicitationFormOptions = {}): FormDefinition<T> {
  const proto = cls.prototype as object;
  const fields = fieldsOf(proto);
  if (!fields?.size) throw new FormSchemaError('(schema)', `of class ${cls.name} has no @FormField() properties`);
  const properties: Record<string, FieldSchema> = {};
  const required: string[] = [];
  const secretFields = [...(options.secretFields ?? [])];
  const notSecret = [...(options.notSecret ?? [])];
  const httpUrlFields = [...(options.httpUrlFields ?? [])];
  for (const [name, own] of fields) {
    const merged = { ...fromValidators(cls, name), ...own };
    if (merged.httpUrl) {
      merged.format ??= 'uri';
      httpUrlFields.push(name);
    }
    properties[name] = fieldSchema(name, merged, Reflect.getMetadata('design:type', proto, name));
    if (merged.required ?? !merged.optional) required.push(name);
    if (merged.secret) secretFields.push(name);
    if (merged.notSecret) notSecret.push(name);
  }
  const schema: FormSchema = { type: 'object', properties, ...(required.length ? { required } : {}) };
  return buildForm<T>(schema, { ...options, secretFields, notSecret, httpUrlFields });
}
