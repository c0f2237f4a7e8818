/**
 * The Standard Schema V1 interface (https://standardschema.dev, MIT), written out here as the spec asks
 * libraries to do, so that typing a Zod form needs no type import from zod. Only the parts this library
 * reads: the props, a validation result and its issues, and the inferred input and output types.
 */

/** A schema of any library implementing Standard Schema V1 (Zod 4, Valibot, ArkType...). */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  /** The Standard Schema properties. */
  readonly '~standard': StandardSchemaV1Props<Input, Output>;
}

/** The properties under `~standard`. */
export interface StandardSchemaV1Props<Input = unknown, Output = Input> {
  /** The version of the spec (1). */
  readonly version: 1;
  /** The library that made the schema, e.g. `zod`. */
  readonly vendor: string;
  /** Validates a value: a result, or a promise of one when the schema has asynchronous checks. */
  readonly validate: (value: unknown) => StandardSchemaV1Result<Output> | Promise<StandardSchemaV1Result<Output>>;
  /** The inferred types (types only: never present at run time). */
  readonly types?: StandardSchemaV1Types<Input, Output> | undefined;
}

/** What `validate` gives: the (possibly transformed) value, or the issues. */
export type StandardSchemaV1Result<Output> =
  { readonly value: Output; readonly issues?: undefined } | { readonly issues: readonly StandardSchemaV1Issue[] };

/** One validation issue. */
export interface StandardSchemaV1Issue {
  readonly message: string;
  /** Where the issue is: keys, or `{ key }` segments. */
  readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[] | undefined;
}

/** The input and output types of a schema. */
export interface StandardSchemaV1Types<Input = unknown, Output = Input> {
  readonly input: Input;
  readonly output: Output;
}

/** The output type of a Standard Schema (for Zod: `z.infer<typeof schema>`). */
export type InferStandardOutput<S extends StandardSchemaV1> = NonNullable<S['~standard']['types']>['output'];
