/** A programmer error in a call to `ElicitationService` (bad kind, empty message, unknown user...). */
export class ElicitationInputError extends Error {
  override readonly name = 'ElicitationInputError';

  constructor(
    /** The argument at fault, e.g. `message`. */
    readonly field: string,
    problem: string,
  ) {
    super(`Elicitation "${field}" ${problem}.`);
  }
}
