/**
 * What the README tests share: the README cut into sections and table rows, and one TypeScript program over the
 * package's entry points, read as the published types are (`@internal` members left out, as `stripInternal`
 * leaves them out of `dist`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import ts from 'typescript';

/** Every entry point of the package and the source file behind it. */
export const ENTRY_POINTS: Record<string, string> = {
  'nestjs-mcp-elicitation': 'src/index.ts',
  'nestjs-mcp-elicitation/redis': 'src/redis/index.ts',
  'nestjs-mcp-elicitation/postgres': 'src/postgres/index.ts',
  'nestjs-mcp-elicitation/store': 'src/store/index.ts',
  'nestjs-mcp-elicitation/testing': 'src/testing/index.ts',
  'nestjs-mcp-elicitation/mcp-nest': 'src/mcp-nest/index.ts',
  'nestjs-mcp-elicitation/terminus': 'src/terminus/index.ts',
};

/** The user documentation: the README, then the guides in docs/ (not the maintainers' pages), then CONTRIBUTING.md. */
export function documentationFiles(): string[] {
  const guides = readdirSync('docs')
    .filter((name) => name.endsWith('.md') && !MAINTAINER_PAGES.has(name))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...guides, 'CONTRIBUTING.md'];
}

/** Pages of docs/ that map the code rather than guide a user (their links are checked all the same). */
const MAINTAINER_PAGES = new Set(['architecture.md', 'testing.md', 'redis-layout.md']);

/**
 * The documentation as one text (README.md, the guides, CONTRIBUTING.md), as it is in the working tree: a table's
 * check finds its section by heading on whichever page it lives (`## Options` in docs/options.md, say).
 */
export function readDocs(): string {
  return documentationFiles()
    .map((file) => readFileSync(file, 'utf8'))
    .join('\n');
}

/**
 * The text under `heading` (a whole heading line, e.g. `## Options`) up to the next heading of the same or a
 * higher level, fenced code blocks skipped. Throws when the documentation has no such heading.
 */
export function readmeSection(readme: string, heading: string): string {
  const level = /^#+/.exec(heading)?.[0].length ?? 0;
  const lines = readme.split('\n');
  let start = -1;
  let fenced = false;
  for (let i = 0; i < lines.length; i++) {
    if (/^\s*```/.test(lines[i])) fenced = !fenced;
    if (fenced) continue;
    const depth = /^(#+) /.exec(lines[i])?.[1].length;
    if (start < 0 && lines[i].trimEnd() === heading) start = i + 1;
    else if (start >= 0 && depth !== undefined && depth <= level) return lines.slice(start, i).join('\n');
  }
  if (start < 0) throw new Error(`The documentation (README.md, docs/) has no "${heading}" heading`);
  return lines.slice(start).join('\n');
}

/**
 * The body rows of the Markdown tables in `text` whose header row starts with the cell `firstHeader`, each as its
 * cells (trimmed, `\|` kept as written). Throws when there is no such table.
 */
export function tableRows(text: string, firstHeader: string): string[][] {
  const rows: string[][] = [];
  let inTable = false;
  let found = false;
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed.startsWith('|')) {
      inTable = false;
      continue;
    }
    const cells = trimmed
      .replace(/^\||\|$/g, '')
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim());
    if (cells.every((cell) => /^:?-+:?$/.test(cell))) continue;
    if (!inTable) {
      // A table's first line is its header.
      inTable = true;
      if (cells[0] === firstHeader) found = true;
      else inTable = false;
      continue;
    }
    rows.push(cells);
  }
  if (!found) throw new Error(`No table with the header "${firstHeader}" in this part of README.md`);
  return rows;
}

/** The contents of the code spans (`` `...` ``) of a cell, in order. */
export function codeSpans(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]);
}

/** The identifiers a cell names in code spans that hold one name only (`` `ElicitationModule` ``). */
export function namesIn(cell: string): string[] {
  return codeSpans(cell).filter((span) => /^[A-Za-z_$][\w$]*$/.test(span));
}

/** One program over every entry point, with the checker, built once per test file. */
export interface EntryPointProgram {
  program: ts.Program;
  checker: ts.TypeChecker;
}

let compiled: EntryPointProgram | undefined;

/** The program of the entry points (compiled on first use; a few seconds). */
export function entryPointProgram(): EntryPointProgram {
  if (!compiled) {
    const program = ts.createProgram(Object.values(ENTRY_POINTS), {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
      experimentalDecorators: true,
      skipLibCheck: true,
      noEmit: true,
    });
    compiled = { program, checker: program.getTypeChecker() };
  }
  return compiled;
}

/** What an entry point's source file exports, aliases resolved to their declarations. */
export function exportsOf(file: string): Map<string, ts.Symbol> {
  const { program, checker } = entryPointProgram();
  const source = program.getSourceFile(file);
  const module = source && checker.getSymbolAtLocation(source);
  if (!module) throw new Error(`Cannot read the exports of ${file}`);
  const exports = new Map<string, ts.Symbol>();
  for (const symbol of checker.getExportsOfModule(module)) {
    exports.set(symbol.getName(), symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);
  }
  return exports;
}

/** The names an entry point exports, sorted. */
export function exportedNames(file: string): string[] {
  return [...exportsOf(file).keys()].sort();
}

/** One export of the root entry point, or a thrown error naming it. */
export function rootExport(name: string): ts.Symbol {
  const symbol = exportsOf(ENTRY_POINTS['nestjs-mcp-elicitation']).get(name);
  if (!symbol) throw new Error(`nestjs-mcp-elicitation does not export ${name}`);
  return symbol;
}

/** True when a declaration carries `@internal` (left out of the published types by `stripInternal`). */
export function isInternal(node: ts.Node): boolean {
  return ts.getJSDocTags(node).some((tag) => tag.tagName.text === 'internal');
}
