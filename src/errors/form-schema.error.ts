/** A form schema that MCP form mode cannot carry, found when the form is declared (not when a user answers). */
export class FormSchemaError extends Error {
  override readonly name = 'FormSchemaError';

  constructor(
    /** The field at fault, or `(schema)` for the whole schema. */
    readonly field: string,
    problem: string,
  ) {
    super(`Form field "${field}" ${problem}.`);
  }
}
