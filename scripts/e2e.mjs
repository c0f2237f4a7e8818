#!/usr/bin/env node
// `npm run test:e2e` after the demo build: the e2e suites in two Jest runs, both always run.
//   1. Jest project `e2e` on two workers: every suite that owns its ports, prefixes and servers, so that two can run
//      side by side.
//   2. Jest project `e2e-alone`, one file at a time, after the first: the suites that measure the machine (memory of
//      demo processes, loads of thousands of questions), whose figures a neighbour would disturb (jest.config.js
//      names them, E2E_ALONE).
// `--project e2e` or `--project e2e-alone` runs one of them (.ci/run runs the second once nothing else runs).
// Other arguments are passed to the runs (e.g. `-- --testPathPatterns mcp`; a run none of whose files match passes).
// Exits with the first failing run's code.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const jest = [
  '--experimental-vm-modules',
  join(root, 'node_modules', 'jest', 'bin', 'jest.js'),
  '--config',
  join(root, 'jest.config.js'),
  '--passWithNoTests',
];
const args = process.argv.slice(2);
const at = args.indexOf('--project');
const only = at >= 0 ? args.splice(at, 2)[1] : undefined;
const RUNS = {
  e2e: ['--selectProjects', 'e2e', '--maxWorkers=2'],
  'e2e-alone': ['--selectProjects', 'e2e-alone', '--runInBand'],
};
if (only !== undefined && !(only in RUNS)) {
  console.error(`scripts/e2e.mjs: --project takes ${Object.keys(RUNS).join(' or ')}, got ${JSON.stringify(only)}`);
  process.exit(2);
}
const extra = args;

let status = 0;
for (const run of only ? [RUNS[only]] : Object.values(RUNS)) {
  const result = spawnSync(process.execPath, [...jest, ...run, ...extra], { cwd: root, stdio: 'inherit' });
  const code = result.status ?? 1;
  if (code !== 0 && status === 0) status = code;
}
process.exit(status);
