/**
 * The HTTP benchmark (bench/http.bench.ts) with the demo and the secure-stack baseline on Nest 11 instead of the
 * root's Nest 12, for the rows that compare with an implementation on Nest 11 (#46: bare Nest 12 measured slower
 * than bare Nest 11). Not part of `npm run bench` nor of CI:
 *
 *   npm run bench:nest11 [-- --quick]
 *
 * 1. `npm ci` here when node_modules is missing or older than package-lock.json (Nest 11 and @nestjs/throttler
 *    only: every other package resolves from the root's node_modules, one folder up the tree);
 * 2. compiles the demo and the benches (tsconfig.demo.json) into bench/nest11/dist-demo/, so that Node, resolving
 *    `@nestjs/*` from there, finds this folder's node_modules before the root's;
 * 3. runs dist-demo/bench/http.bench.js from there. Its rows go to bench/nest11/bench/results/latest.json (this folder
 *    has its own package.json), never to the root's results or docs/performance.md.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const out = join(here, 'dist-demo');

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const installed = join(here, 'node_modules', '.package-lock.json');
if (!existsSync(installed) || statSync(installed).mtimeMs < statSync(join(here, 'package-lock.json')).mtimeMs) {
  run('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], here);
}
run(
  process.execPath,
  [
    join(root, 'node_modules/typescript/bin/tsc'),
    '-p',
    'tsconfig.demo.json',
    '--outDir',
    out,
    '--tsBuildInfoFile',
    join(out, '.tsbuildinfo'),
  ],
  root,
);

const nest = createRequire(join(out, 'bench', 'http.bench.js'))('@nestjs/core/package.json').version;
if (!nest.startsWith('11.')) throw new Error(`bench/nest11/dist-demo resolves @nestjs/core ${nest}, not 11`);
console.log(`bench/nest11: the demo and the secure stack on @nestjs/core ${nest}`);
run(process.execPath, ['--expose-gc', join(out, 'bench', 'http.bench.js'), ...process.argv.slice(2)], here);
