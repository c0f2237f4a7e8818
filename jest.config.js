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

export default {
  // Applies to both projects (a per-project testTimeout is ignored by jest).
  testTimeout: 30000,
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/test/**/*.spec.ts', '<rootDir>/examples/readme/**/*.spec.ts'] },
    {
      ...shared,
      displayName: 'e2e',
      testMatch: ['<rootDir>/e2e/**/*.e2e-spec.ts'],
      // Kills any demo process a file left running, so that a failed start cannot keep Jest from exiting.
      testEnvironment: '<rootDir>/e2e/support/demo-environment.mjs',
    },
  ],
};
