/** Jest 30 running NestJS 12 (ESM-only) through ts-jest in ESM mode. */
const shared = {
  extensionsToTreatAsEsm: ['.ts'],
  testEnvironment: 'node',
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
    // README snippets (examples/readme) import the package by name, as users do: here it is the source.
    '^nestjs-mcp-elicitation$': '<rootDir>/src/index.ts',
    '^nestjs-mcp-elicitation/(.*)$': '<rootDir>/src/$1/index.ts',
  },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json', diagnostics: { ignoreCodes: [151002] } }],
  },
};

/**
 * The e2e suites that measure the machine (the memory of demo processes under a flood, thousands of questions at
 * once): Jest project `e2e-alone`, run one file at a time after the others (scripts/e2e.mjs), whose figures a
 * neighbour would disturb. Every other e2e suite owns its ports, prefixes and servers and runs beside another.
 */
const E2E_ALONE = ['e2e/stores/chaos.e2e-spec.ts', 'e2e/mcp/mcp-sessions.e2e-spec.ts'];

/** The e2e project's settings, shared by `e2e` and `e2e-alone`. */
const e2e = {
  ...shared,
  // Kills any demo process a file left running, so that a failed start cannot keep Jest from exiting.
  testEnvironment: '<rootDir>/e2e/support/demo-environment.mjs',
};

export default {
  // Applies to both projects (a per-project testTimeout is ignored by jest).
  testTimeout: 30000,
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/test/**/*.spec.ts', '<rootDir>/examples/readme/**/*.spec.ts'] },
    {
      ...e2e,
      displayName: 'e2e',
      testMatch: ['<rootDir>/e2e/**/*.e2e-spec.ts'],
      testPathIgnorePatterns: ['/node_modules/', ...E2E_ALONE.map((file) => `<rootDir>/${file}`)],
    },
    { ...e2e, displayName: 'e2e-alone', testMatch: E2E_ALONE.map((file) => `<rootDir>/${file}`) },
  ],
};
