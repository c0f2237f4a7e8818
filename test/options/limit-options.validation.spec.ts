/** The audit log's option as the module resolves it (`resolveAudit`, in limit-options.validation.ts). */
import { describe, expect, it } from '@jest/globals';
import { resolveElicitationOptions } from '../../src/options/elicitation-options.validation.js';
import { ElicitationConfigError } from '../../src/errors/elicitation-config.error.js';

const resolve = (audit: unknown) =>
  resolveElicitationOptions({ baseUrl: 'http://127.0.0.1:3000', audit: audit as never, allowUnverifiedPages: true }, 'elicit', {}).options
    .audit;

describe('the audit option', () => {
  it("is off by default, and takes 'log', a function or false", () => {
    const sink = () => undefined;
    expect(resolve(undefined)).toBe(false);
    expect(resolve(false)).toBe(false);
    expect(resolve('log')).toBe('log');
    expect(resolve(sink)).toBe(sink);
  });

  it.each([['yes'], [true], [{ sink: 'log' }], [null], ['LOG']])('refuses %p at start-up, naming the option', (bad) => {
    expect(() => resolve(bad)).toThrow(ElicitationConfigError);
    expect(() => resolve(bad)).toThrow(/option "audit" must be 'log'/);
  });
});
