import { MAX_TIMER_MS } from './elicitation.constants.js';
import type { ResolvedElicitationOptions } from './resolved-options.js';
import { ElicitationConfigError } from '../errors/elicitation-config.error.js';

/** The defaulted options of one group, as `ResolvedElicitationOptions` holds them. */
export type Resolved<K extends keyof ResolvedElicitationOptions> = Pick<ResolvedElicitationOptions, K>;

/** A whole number of milliseconds above 0 (or from 0) up to `MAX_TIMER_MS`, `fallback` when not given. */
export function positiveMs(option: string, value: unknown, fallback: number, allowZero = false): number {
  const v = wholeNumber(value ?? fallback);
  const ok = typeof v === 'number' && Number.isInteger(v) && (allowZero ? v >= 0 : v > 0) && v <= MAX_TIMER_MS;
  if (!ok) {
    throw new ElicitationConfigError(
      option,
      `must be a whole number of milliseconds ${allowZero ? 'from 0' : 'above 0'} up to ${MAX_TIMER_MS}`,
      { value },
    );
  }
  return v;
}

/** A positive whole number (a count or a size), `fallback` when not given. */
export function positiveCount(option: string, value: unknown, fallback: number, problem = 'must be a positive whole number'): number {
  const v = wholeNumber(value ?? fallback);
  if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) throw new ElicitationConfigError(option, problem, { value });
  return v;
}

/**
 * A whole number given as a string of decimal digits (as `@nestjs/config` and `process.env` give every value) is
 * read as that number; anything else is returned as it is, for the caller's check to refuse naming the option.
 */
export function wholeNumber(value: unknown): unknown {
  return typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value;
}

/** `true`/`false` given as the strings `"true"`/`"false"` (as `process.env` gives them): the hint the error carries. */
export function booleanHint(value: unknown): string | undefined {
  return value === 'true' || value === 'false' ? `did you mean ${value}, the boolean, not the string "${value}"?` : undefined;
}
