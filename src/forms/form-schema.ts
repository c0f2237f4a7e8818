/**
 * The restricted `requestedSchema` of MCP form-mode elicitation (spec 2025-11-25): a flat object of
 * primitive fields. Every shape the spec allows has a type here, and `FormContent<S>` derives the
 * TypeScript type of an accepted answer from a schema declared `as const` (or through `defineForm`).
 */

import type { StringFormat } from '../core/form-rules.js';

export type { StringFormat };

interface FieldBase {
  /** Label shown to the user. */
  title?: string;
  /** Help text shown to the user. */
  description?: string;
}

/** A free-text field. */
export interface StringFieldSchema extends FieldBase {
  type: 'string';
  minLength?: number;
  maxLength?: number;
  format?: StringFormat;
  default?: string;
}

/** A number; `integer` refuses fractions. */
export interface NumberFieldSchema extends FieldBase {
  type: 'number' | 'integer';
  minimum?: number;
  maximum?: number;
  default?: number;
}

/** A yes/no field. */
export interface BooleanFieldSchema extends FieldBase {
  type: 'boolean';
  default?: boolean;
}

/**
 * Untitled single-select (`enum`). `enumNames` is the legacy way to title the options: accepted, but
 * deprecated by the spec in favour of `oneOf` (titled single-select).
 */
export interface EnumFieldSchema extends FieldBase {
  type: 'string';
  enum: readonly string[];
  /** @deprecated use a titled single-select (`oneOf`) instead. */
  enumNames?: readonly string[];
  default?: string;
}

/** One titled option. */
export interface TitledOption {
  const: string;
  title: string;
}

/** Titled single-select. */
export interface TitledEnumFieldSchema extends FieldBase {
  type: 'string';
  oneOf: readonly TitledOption[];
  default?: string;
}

/** Multi-select, untitled (`items.enum`) or titled (`items.anyOf`). */
export interface MultiSelectFieldSchema extends FieldBase {
  type: 'array';
  items: { type: 'string'; enum: readonly string[] } | { anyOf: readonly TitledOption[] };
  minItems?: number;
  maxItems?: number;
  default?: readonly string[];
}

/** Any field of a restricted form schema. */
export type FieldSchema =
  StringFieldSchema | NumberFieldSchema | BooleanFieldSchema | EnumFieldSchema | TitledEnumFieldSchema | MultiSelectFieldSchema;

/** A restricted form schema: `requestedSchema` on the wire. */
export interface FormSchema {
  $schema?: string;
  type: 'object';
  properties: { readonly [name: string]: FieldSchema };
  required?: readonly string[];
}

/** The value type of one field. */
export type FieldValue<F> = F extends { type: 'array'; items: infer I }
  ? I extends { enum: readonly (infer E)[] }
    ? E[]
    : I extends { anyOf: readonly { const: infer C }[] }
      ? C[]
      : string[]
  : F extends { enum: readonly (infer E)[] }
    ? E
    : F extends { oneOf: readonly { const: infer C }[] }
      ? C
      : F extends { type: 'string' }
        ? string
        : F extends { type: 'number' | 'integer' }
          ? number
          : F extends { type: 'boolean' }
            ? boolean
            : never;

type RequiredKeys<S> = S extends { required: readonly (infer R)[] } ? R : never;
type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The accepted content of a schema: required fields present, the others optional. */
export type FormContent<S extends FormSchema> = Simplify<
  { -readonly [K in keyof S['properties'] as K extends RequiredKeys<S> ? K : never]: FieldValue<S['properties'][K]> } & {
    -readonly [K in keyof S['properties'] as K extends RequiredKeys<S> ? never : K]?: FieldValue<S['properties'][K]>;
  }
>;

/** A primitive answer value (what the wire carries). */
export type FormValue = string | number | boolean | string[];
