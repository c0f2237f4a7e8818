#!/usr/bin/env node
// The figures of the plan (docs/architecture.md), measured on src/: floors (the longest chain of folders importing
// one another, a circle counted as one floor), imports running up (dependency-cruiser's layer rules), circles
// (between files, and between folders), the longest file, the files over the cap and those near it (lines of code,
// counted as ESLint's max-lines counts them: scripts/file-size-cap.mjs), the names the main entry exports, `as`
// casts (not `as const`) and non-null assertions. `npm run plan:figures`; `--json` for a machine;
// `--check` fails (exit 1) on a circle between folders, which dependency-cruiser's file rules do not see (CI runs it
// in `npm run lint:deps`).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { codeLines, MAX_FILE_LINES } from './file-size-cap.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const cruise = JSON.parse(
  execFileSync(
    process.execPath,
    [
      join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'),
      'src',
      '--config',
      '.dependency-cruiser.cjs',
      '--output-type',
      'json',
    ],
    {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    },
  ),
);
const violations = cruise.summary.violations;
const upward = violations.filter((v) => v.rule.name.startsWith('no-up-') || v.rule.name === 'features-apart').length;
const fileCircles = violations.filter((v) => v.rule.name === 'no-circular').length;

/** A file's room: its folder under src/, or the file itself at the top. */
const room = (path) => path.replace(/^src\//, '').split('/')[0];
const edges = new Map();
for (const module of cruise.modules) {
  const from = room(module.source);
  for (const dep of module.dependencies) {
    if (!dep.resolved.startsWith('src/')) continue;
    const to = room(dep.resolved);
    if (to === from) continue;
    if (!edges.has(from)) edges.set(from, new Set());
    edges.get(from).add(to);
  }
}
const rooms = new Set([...cruise.modules.map((m) => room(m.source))]);
const sccs = stronglyConnected([...rooms], (n) => [...(edges.get(n) ?? [])]);
const folderCircles = sccs.filter((c) => c.length > 1);
const floors = longestChain(sccs, edges);

const program = ts.createProgram({ rootNames: sourceFiles(), options: readConfig() });
let casts = 0;
let nonNull = 0;
const lengths = [];
for (const file of program.getSourceFiles()) {
  if (!file.fileName.startsWith(join(root, 'src')) || file.fileName.endsWith('.d.ts')) continue;
  lengths.push([relative(root, file.fileName), codeLines(readFileSync(file.fileName, 'utf8'))]);
  const visit = (node) => {
    if (ts.isAsExpression(node) && !(ts.isTypeReferenceNode(node.type) && node.type.typeName.getText(file) === 'const')) casts++;
    if (ts.isNonNullExpression(node)) nonNull++;
    ts.forEachChild(node, visit);
  };
  visit(file);
}
lengths.sort((a, b) => b[1] - a[1]);
const band = (from, to) => lengths.filter(([, n]) => n >= from && n <= to).length;
const checker = program.getTypeChecker();
const entry = program.getSourceFile(join(root, 'src/index.ts'));
const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(entry)).length;

const figures = {
  floors,
  importsRunningUp: upward,
  fileCircles,
  folderCircles: folderCircles.map((c) => c.sort().join(' ↔ ')),
  longestFile: `${lengths[0][0]} (${lengths[0][1]})`,
  filesOverCap: lengths.filter(([, n]) => n > MAX_FILE_LINES).map(([f, n]) => `${f} (${n})`),
  // How close the files sit to the cap: a pile just under it is a cap met by squeezing (bands of 50 below it).
  filesNearCap: `${band(MAX_FILE_LINES - 50, MAX_FILE_LINES)} at ${MAX_FILE_LINES - 50}–${MAX_FILE_LINES}, ${band(MAX_FILE_LINES - 100, MAX_FILE_LINES - 51)} at ${MAX_FILE_LINES - 100}–${MAX_FILE_LINES - 51}`,
  exportedNames: exported,
  asCasts: casts,
  nonNullAssertions: nonNull,
};
if (process.argv.includes('--check')) {
  for (const circle of figures.folderCircles) console.error(`folders import one another in a circle: ${circle}`);
  if (figures.folderCircles.length) process.exit(1);
  console.log('no circle between folders');
} else if (process.argv.includes('--json')) console.log(JSON.stringify(figures, null, 2));
else
  for (const [name, value] of Object.entries(figures))
    console.log(`${name}: ${Array.isArray(value) ? `${value.length}${value.length ? `\n  ${value.join('\n  ')}` : ''}` : value}`);

function readConfig() {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, 'tsconfig.build.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  return config.options;
}

function sourceFiles() {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, 'tsconfig.build.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  return config.fileNames;
}

/** Tarjan's strongly connected components. */
function stronglyConnected(nodes, next) {
  let index = 0;
  const stack = [];
  const info = new Map();
  const out = [];
  const visit = (v) => {
    info.set(v, { index, low: index, on: true });
    index++;
    stack.push(v);
    for (const w of next(v)) {
      if (!info.has(w)) {
        visit(w);
        info.get(v).low = Math.min(info.get(v).low, info.get(w).low);
      } else if (info.get(w).on) info.get(v).low = Math.min(info.get(v).low, info.get(w).index);
    }
    if (info.get(v).low === info.get(v).index) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        info.get(w).on = false;
        component.push(w);
      } while (w !== v);
      out.push(component);
    }
  };
  for (const n of nodes) if (!info.has(n)) visit(n);
  return out;
}

/** The number of components on the longest import chain through the condensed graph. */
function longestChain(components, graph) {
  const of = new Map();
  components.forEach((c, i) => c.forEach((n) => of.set(n, i)));
  const memo = new Map();
  const depth = (i) => {
    if (memo.has(i)) return memo.get(i);
    let best = 0;
    for (const n of components[i]) for (const m of graph.get(n) ?? []) if (of.get(m) !== i) best = Math.max(best, depth(of.get(m)));
    memo.set(i, best + 1);
    return best + 1;
  };
  return Math.max(...components.map((_, i) => depth(i)));
}
