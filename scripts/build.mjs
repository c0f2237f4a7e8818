#!/usr/bin/env node
// Builds the package into dist/ from nothing: removes dist/, compiles src/ with tsc -p tsconfig.build.json (the
// ES module build, with source and declaration maps into the shipped src/), then the CommonJS build
// (scripts/build-cjs.mjs). `npm run build` always builds.
//
// `--if-changed` is what `prepare` runs. npm runs `prepare` on `npm ci` and `npm install` here, on `npm pack` and
// `npm publish`, and twice when an app installs the package from git (once inside the clone's own install, once
// before packing it). It leaves dist/ alone when dist/ is, byte for byte, what this script last built, from the
// same inputs (src/, the tsconfigs, package.json, package-lock.json and the build scripts): the build it would
// run gives the same files. Anything else (no record, a changed input, a file in dist/ changed, added or removed)
// builds from nothing. The record is node_modules/.cache/nestjs-mcp-elicitation/build.json.
//
// Everything it and the steps print goes to stderr, so `npm pack --json` (which runs `prepare`) prints only JSON.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const record = join(root, 'node_modules', '.cache', 'nestjs-mcp-elicitation', 'build.json');
const INPUTS = [
  'src',
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  'package-lock.json',
  'scripts/build.mjs',
  'scripts/build-cjs.mjs',
  'scripts/source-maps.mjs',
];

const started = Date.now();
const tsc = resolveTsc();
const inputs = digest(INPUTS);
if (process.argv.includes('--if-changed') && existsSync(dist)) {
  const last = readRecord();
  if (last?.inputs === inputs && last.dist === digest(['dist'])) {
    console.error('build: dist/ is already built from these sources; left as it is (npm run build rebuilds it)');
    process.exit(0);
  }
}

rmSync(record, { force: true });
rmSync(dist, { recursive: true, force: true });
run(tsc, '-p', 'tsconfig.build.json');
run(join(root, 'scripts', 'build-cjs.mjs'));
mkdirSync(dirname(record), { recursive: true });
writeFileSync(record, `${JSON.stringify({ inputs, dist: digest(['dist']) }, null, 2)}\n`);
console.error(`build: dist/ built from nothing in ${((Date.now() - started) / 1000).toFixed(1)} s`);

function resolveTsc() {
  try {
    return createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    console.error('build: TypeScript is not installed in this checkout: run `npm ci` first (it builds the package too)');
    process.exit(1);
  }
}

function run(script, ...args) {
  const result = spawnSync(process.execPath, [script, ...args], { cwd: root, stdio: ['inherit', process.stderr, process.stderr] });
  if (result.status !== 0) {
    console.error(`build: ${relative(root, script)} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`})`);
    process.exit(result.status || 1);
  }
}

/** One hash over the paths (files, or folders walked in a fixed order) and the bytes of every file. */
function digest(paths) {
  const hash = createHash('sha256');
  const add = (path) => {
    const full = join(root, path);
    if (!existsSync(full)) return void hash.update(`${path}\0missing\0`);
    if (statSync(full).isDirectory()) {
      for (const entry of readdirSync(full).sort()) add(`${path}/${entry}`);
    } else {
      hash.update(`${path}\0`).update(readFileSync(full)).update('\0');
    }
  };
  paths.forEach(add);
  return hash.digest('hex');
}

function readRecord() {
  try {
    return JSON.parse(readFileSync(record, 'utf8'));
  } catch {
    return undefined;
  }
}
