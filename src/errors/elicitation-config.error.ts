/** A bad module option. Thrown at bootstrap, naming the option and the fix. */
export class ElicitationConfigError extends Error {
  override readonly name = 'ElicitationConfigError';

  constructor(
    /** The option at fault, e.g. `ttlMs`. */
    readonly option: string,
    problem: string,
  ) {
    super(`ElicitationModule option "${option}" ${problem}.`);
  }
}
