import { describeConfigValue, type ConfigValue } from './config-value.js';

/**
 * A bad module option. Thrown at bootstrap, naming the option, the fix and, when given, the value it got (a
 * secret's kind and size only) with a hint of what it was probably meant to be.
 */
export class ElicitationConfigError extends Error {
  override readonly name = 'ElicitationConfigError';

  constructor(
    /** The option at fault, e.g. `ttlMs` or `limits.maxUploadBytes` (of several unknown keys, the first). */
    readonly option: string,
    problem: string,
    got?: ConfigValue,
  ) {
    const value = got ? `, got ${describeConfigValue(got.value, got.secret)}` : '';
    const hint = got?.hint ? ` (${got.hint})` : '.';
    super(`ElicitationModule option "${option}" ${problem}${value}${hint}`);
  }
}
