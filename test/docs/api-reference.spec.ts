/**
 * The README's "API reference" lists every name each entry point exports, no more and no less: a name
 * exported but undocumented, or documented but gone, fails here. Names are read from the TypeScript
 * program (types included), the README's tables from their first column.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import ts from 'typescript';

const ENTRY_POINTS: Record<string, string> = {
  'nestjs-mcp-elicitation': 'src/index.ts',
  'nestjs-mcp-elicitation/redis': 'src/redis/index.ts',
  'nestjs-mcp-elicitation/testing': 'src/testing/index.ts',
  'nestjs-mcp-elicitation/mcp-nest': 'src/mcp-nest/index.ts',
};

function exportedNames(file: string): string[] {
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    experimentalDecorators: true,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const symbol = source && checker.getSymbolAtLocation(source);
  if (!symbol) throw new Error(`Cannot read the exports of ${file}`);
  return checker
    .getExportsOfModule(symbol)
    .map((s) => s.getName())
    .sort();
}

/** The names in the first column of the tables under `### \`<entry point>\`` in the API reference. */
function documentedNames(readme: string, entryPoint: string): string[] {
  const reference = readme.split(/^## API reference$/m)[1]?.split(/^## /m)[0];
  if (!reference) throw new Error('README.md has no "## API reference" section');
  const section = reference.split(/^### /m).find((s) => s.startsWith(`\`${entryPoint}\``));
  if (!section) throw new Error(`README.md's API reference has no "### \`${entryPoint}\`" section`);
  const names = new Set<string>();
  for (const line of section.split('\n')) {
    const first = /^\|\s*([^|]+?)\s*\|/.exec(line)?.[1];
    if (!first || /^-+$/.test(first) || first === 'export') continue;
    for (const match of first.matchAll(/`([A-Za-z_$][\w$]*)`/g)) names.add(match[1]);
  }
  return [...names].sort();
}

describe('README API reference', () => {
  const readme = readFileSync('README.md', 'utf8');

  it.each(Object.entries(ENTRY_POINTS))('lists exactly what %s exports', (entryPoint, file) => {
    expect(documentedNames(readme, entryPoint)).toEqual(exportedNames(file));
  });
});
