/**
 * The development hints: outside production, the first page refused for want of a browser user, and the first refused
 * for another user, each log once per process which option decides it; in production, never. Each test loads the
 * module afresh (its "once" is per process).
 */
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { captureLogs } from './http-exchange.support.js';

type Hints = typeof import('../../src/http/development-hints.js');

/** The hints module as a fresh process loads it, with what it logs (through that load's own Nest `Logger`). */
async function freshHints(): Promise<Hints & { warn: string[] }> {
  let loaded: (Hints & { warn: string[] }) | undefined;
  await jest.isolateModulesAsync(async () => {
    const hints = await import('../../src/http/development-hints.js');
    const { Logger } = await import('@nestjs/common');
    loaded = { ...hints, warn: captureLogs(Logger).warn };
  });
  return loaded!;
}

describe('development hints', () => {
  const env = process.env.NODE_ENV;
  afterEach(() => {
    process.env.NODE_ENV = env;
  });

  it('each load is a fresh process: its hints not told yet', async () => {
    process.env.NODE_ENV = 'development';
    const first = await freshHints();
    first.hintOtherPageUser();
    const second = await freshHints();
    second.hintOtherPageUser();
    expect([first.warn.length, second.warn.length]).toEqual([1, 1]);
  });

  it.each([
    ['', "returned '' for its request"],
    [null, 'returned null for its request'],
    [undefined, 'returned undefined for its request'],
  ])('no page user (%j): one warning naming what resolvePageUser returned and the options to set, then silence', async (got, said) => {
    process.env.NODE_ENV = 'development';
    const { hintNoPageUser, warn } = await freshHints();
    hintNoPageUser(got);
    hintNoPageUser(got === '' ? null : '');
    expect(warn).toHaveLength(1);
    expect(warn[0]).toContain('A page answered 401 "Please sign in"');
    expect(warn[0]).toContain(`resolvePageUser (ElicitationModule.forRoot) ${said}`);
    expect(warn[0]).toContain('loginUrl');
  });

  it('another page user: one warning saying where both users come from, naming no user, then silence', async () => {
    process.env.NODE_ENV = 'test';
    const { hintOtherPageUser, warn } = await freshHints();
    hintOtherPageUser();
    hintOtherPageUser();
    expect(warn).toHaveLength(1);
    expect(warn[0]).toContain('A page answered 403 "Not your request"');
    expect(warn[0]).toContain('resolveMcpUser');
  });

  it('in production: nothing, and the hint is still owed if the process later runs outside production', async () => {
    const hints = await freshHints();
    process.env.NODE_ENV = 'production';
    hints.hintNoPageUser(undefined);
    hints.hintOtherPageUser();
    expect(hints.warn).toEqual([]);
    process.env.NODE_ENV = 'development';
    hints.hintNoPageUser(undefined);
    hints.hintOtherPageUser();
    expect(hints.warn).toHaveLength(2);
  });

  it('the two hints are told independently', async () => {
    process.env.NODE_ENV = 'development';
    const hints = await freshHints();
    hints.hintNoPageUser(undefined);
    hints.hintNoPageUser(undefined);
    hints.hintOtherPageUser();
    expect(hints.warn.map((line) => line.slice(0, 20))).toEqual(['A page answered 401 ', 'A page answered 403 ']);
  });
});
