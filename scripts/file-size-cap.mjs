// The one cap on a src/ file's size, for ESLint's `max-lines` (eslint.config.mjs) and for the plan's figures
// (scripts/plan-figures.mjs): both count the lines that carry code, as `max-lines` does with `skipBlankLines` and
// `skipComments` (JSDoc on every export is house style, not growth).
import ts from 'typescript';

/** Lines of code a src/ file may have. */
export const MAX_FILE_LINES = 350;

/** The ESLint rule that holds the cap. */
export const maxLinesRule = ['error', { max: MAX_FILE_LINES, skipBlankLines: true, skipComments: true }];

/** The lines of `text` that carry code (a token on them; a token spanning lines counts each), as `max-lines` counts. */
export function codeLines(text) {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, text);
  const starts = ts.computeLineStarts(text);
  const lineOf = (pos) => ts.computeLineAndCharacterOfPosition(starts, pos).line;
  const lines = new Set();
  // Open braces and template substitutions, innermost last: a `}` that closes a substitution continues its template.
  const open = [];
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.CloseBraceToken && open.at(-1) === 'template') kind = scanner.reScanTemplateToken(false);
    if (kind === ts.SyntaxKind.OpenBraceToken) open.push('brace');
    else if (kind === ts.SyntaxKind.CloseBraceToken) open.pop();
    else if (kind === ts.SyntaxKind.TemplateHead) open.push('template');
    else if (kind === ts.SyntaxKind.TemplateTail) open.pop();
    const from = lineOf(scanner.getTokenStart());
    const to = lineOf(Math.max(scanner.getTokenStart(), scanner.getTokenEnd() - 1));
    for (let line = from; line <= to; line++) lines.add(line);
  }
  return lines.size;
}
