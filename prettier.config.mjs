/** Prettier: the repository's one code format (checked in CI by `npm run format:check`). */
export default {
  printWidth: 140,
  singleQuote: true,
  trailingComma: 'all',
};
