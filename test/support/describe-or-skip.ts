import { describe } from '@jest/globals';

/**
 * `describe` for tests that need something the machine may lack (a Redis server, its binaries). When
 * `missing` names what is absent, the suite is skipped with a visible message, unless the environment
 * variable `requiredBy` is `1` (as .ci/run sets it), where the suite runs and fails instead.
 */
export function describeOrSkip(missing: string | undefined, requiredBy: string): typeof describe {
  if (!missing || process.env[requiredBy] === '1') return describe;
  return ((name: string, fn: () => void) => {
    console.warn(`SKIPPED "${name}": ${missing} (set ${requiredBy}=1 to fail instead).`);
    return describe.skip(name, fn);
  }) as typeof describe;
}
