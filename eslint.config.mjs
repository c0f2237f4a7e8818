// ESLint flat config: typescript-eslint's type-checked recommended rules over every TypeScript file the
// repository compiles (library, tests, examples, benchmarks). Formatting is Prettier's job, not ESLint's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { maxLinesRule } from './scripts/file-size-cap.mjs';

export default tseslint.config(
  // test/consumers/ holds apps with their own tsconfig and dependencies, compiled by scripts/consumer-test.mjs.
  {
    ignores: [
      'dist/',
      'dist-demo/',
      'coverage/',
      'bench/results/',
      'node_modules/',
      'test/consumers/',
      'bench/nest11/dist-demo/',
      'bench/nest11/bench/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // `_`-prefixed names are deliberately unused (destructured away, or a required parameter position).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    // The README's snippets read the page request as apps write it (`req.user?.id`): `resolvePageUser` takes the
    // host framework's request, typed `any`, so these two rules would flag what every Nest app writes.
    files: ['examples/readme/**/*.ts'],
    rules: { '@typescript-eslint/no-unsafe-member-access': 'off', '@typescript-eslint/no-unsafe-return': 'off' },
  },
  {
    // One concern per file (docs/architecture.md): a src/ file past the cap (lines of code) is split by responsibility
    // in the change that grows it. The cap and its count are defined once, with the plan's figures.
    files: ['src/**/*.ts'],
    rules: { 'max-lines': maxLinesRule },
  },
  {
    // Plain JavaScript (configs, scripts): no type information.
    files: ['**/*.{js,mjs,cjs}'],
    ...tseslint.configs.disableTypeChecked,
  },
);
