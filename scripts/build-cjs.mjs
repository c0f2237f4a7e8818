#!/usr/bin/env node
// The CommonJS build (dist/cjs), made from the ES module build that `tsc -p tsconfig.build.json` just wrote
// to dist/. Node (20.19+, 22.12+) never loads it: the exports map's `module-sync` condition sends `require`
// and `import` alike to dist/, so an app holds one copy of every class (the injection tokens). It is for
// resolvers without require(esm), above all Jest's CommonJS runtime, which runs the tests of every app
// `nest new` generates and cannot require an ES module before Node 24.9.
//
// Transpiling tsc's JavaScript output, not src/, keeps the decorator metadata Nest injects by exactly as tsc
// emitted it (an isolated transpile of TypeScript could not tell types from values in it). `import.meta.url`
// becomes the file URL of __filename; any other use of `import.meta` stops the build. Declarations are
// copied beside the JavaScript: under dist/cjs/package.json (`"type": "commonjs"`) TypeScript reads them as
// CommonJS, so a CommonJS app type-checks with any TypeScript version.
//
// Maps: as in dist/, every file has its map, and the maps name the shipped src/ files. A JavaScript map is
// the transpile's map chained through tsc's map of the ES module file; a declaration map is tsc's, with its
// source paths made relative to dist/cjs.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { chainSourceMaps, relocateSourceMap } from './source-maps.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const configFile = join(root, 'tsconfig.build.json');
const config = ts.getParsedCommandLineOfConfigFile(configFile, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: fail });
if (!config || config.errors.length > 0) fail('cannot read tsconfig.build.json');
const { rootDir, outDir } = config.options;
const cjsDir = join(outDir, 'cjs');

rmSync(cjsDir, { recursive: true, force: true });
let count = 0;
for (const source of config.fileNames) {
  if (source.endsWith('.d.ts')) continue;
  const rel = relative(rootDir, source).replace(/\.ts$/, '');
  const esmFile = join(outDir, `${rel}.js`);
  if (!existsSync(esmFile)) fail(`${relative(root, esmFile)} is missing: run tsc -p tsconfig.build.json first`);
  const out = join(cjsDir, `${rel}.js`);
  mkdirSync(dirname(out), { recursive: true });
  const { code, map } = toCommonJs(readFileSync(esmFile, 'utf8'), relative(root, esmFile));
  writeFileSync(out, code);
  if (map) writeMap(`${out}.map`, chainSourceMaps(JSON.parse(map), `${out}.map`, readMap(`${esmFile}.map`), `${esmFile}.map`));
  const declaration = join(outDir, `${rel}.d.ts`);
  if (existsSync(declaration)) {
    writeFileSync(join(cjsDir, `${rel}.d.ts`), readFileSync(declaration));
    if (existsSync(`${declaration}.map`)) {
      const to = join(cjsDir, `${rel}.d.ts.map`);
      writeMap(to, relocateSourceMap(readMap(`${declaration}.map`), `${declaration}.map`, to));
    }
  }
  count++;
}
writeFileSync(join(cjsDir, 'package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
console.log(`build-cjs: ${count} modules written to ${relative(root, cjsDir)}/`);

/**
 * One ES module of tsc's output as a CommonJS module (dynamic `import()` becomes `require`, as Jest needs), with
 * the transpile's map (CommonJS to ES module file) when the ES module file has a map to chain it through.
 */
function toCommonJs(code, name) {
  const mapped = /^\/\/# sourceMappingURL=/m.test(code);
  if (mapped && !existsSync(join(root, `${name}.map`))) fail(`${name}.map is missing`);
  const withoutMeta = code
    .replaceAll('import.meta.url', "require('node:url').pathToFileURL(__filename).href")
    .replace(/^\/\/# sourceMappingURL=.*$/m, '');
  if (withoutMeta.includes('import.meta')) fail(`${name}: import.meta other than import.meta.url has no CommonJS equivalent here`);
  const result = ts.transpileModule(withoutMeta, {
    fileName: name,
    reportDiagnostics: true,
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: config.options.target,
      esModuleInterop: true,
      allowJs: true,
      sourceMap: mapped,
    },
  });
  if (result.diagnostics?.length) fail(`${name}: ${ts.flattenDiagnosticMessageText(result.diagnostics[0].messageText, '\n')}`);
  if (mapped && !result.outputText.trimEnd().endsWith(`//# sourceMappingURL=${basename(name)}.map`)) {
    fail(`${name}: the transpile did not end with its sourceMappingURL`);
  }
  return { code: result.outputText, map: result.sourceMapText };
}

function readMap(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

function writeMap(file, map) {
  writeFileSync(file, JSON.stringify(map));
}

function fail(problem) {
  const text = typeof problem === 'string' ? problem : ts.flattenDiagnosticMessageText(problem.messageText, '\n');
  console.error(`build-cjs: ${text}`);
  process.exit(1);
}
