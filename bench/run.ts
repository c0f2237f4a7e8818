/**
 * The benchmark runner.
 *
 *   npm run bench                      build, then every script of bench/bench-catalog.ts, then the table of docs/performance.md
 *   npm run bench -- --quick           the same with fewer and shorter runs (a few minutes; marked quick)
 *   npm run bench -- --only http,redis only those scripts (`<name>.bench`, or its first word)
 *   npm run bench:readme               only the table of docs/performance.md, from the results already written
 *   npm run bench:smoke                CI's smoke (`--smoke`): the smallest counts (bench-kit.ts `bySize`), failing when a
 *                                      script fails (an error, never a missed target), docs/performance.md left as it is
 *
 * Each script runs as a child process with its own node flags (bench-catalog.ts), `--quick` forwarded, one after
 * the other (each wants the machine to itself), and merges its rows into bench/results/latest.json and its run
 * into run.json. A script that fails does not stop the others; the runner then exits 1. Last, the runner records
 * itself in run.json, rewrites the table between the markers of docs/performance.md's "Performance" section from both files
 * (bench/readme-table.ts) and prints it.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_SCRIPTS, type BenchScript } from './bench-catalog.js';
import { packageRoot, readRows, readRunInfo, writeRunInfo } from './bench-results.js';
import { renderPerformanceTable, replaceTable } from './readme-table.js';

const args = process.argv.slice(2);
/** `--smoke` (CI): the quick mode, failing on errors only (as every run does), and the docs' table left as it is. */
const SMOKE = args.includes('--smoke');
const QUICK = SMOKE || args.includes('--quick');
const README_ONLY = args.includes('--readme-only');

/** The scripts `--only` names (all without it). */
function selected(): BenchScript[] {
  const i = args.indexOf('--only');
  if (i < 0) return [...BENCH_SCRIPTS];
  const names = (args[i + 1] ?? '').split(',').filter(Boolean);
  const chosen = BENCH_SCRIPTS.filter((s) => names.some((n) => s.name === n || s.name === `${n}.bench`));
  if (chosen.length !== names.length || !chosen.length) {
    throw new Error(`--only takes a comma-separated list of ${BENCH_SCRIPTS.map((s) => s.name.replace('.bench', '')).join(', ')}`);
  }
  return chosen;
}

let current: ReturnType<typeof spawn> | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    current?.kill(signal);
    process.exit(signal === 'SIGINT' ? 130 : 143);
  });
}

/** Runs one script to its end; resolves its exit code. */
function runScript(script: BenchScript): Promise<number> {
  const file = fileURLToPath(new URL(`./${script.name}.js`, import.meta.url));
  return new Promise((resolve) => {
    const size = SMOKE ? ['--smoke'] : QUICK ? ['--quick'] : [];
    const child = spawn(process.execPath, [...script.nodeFlags, file, ...size], { stdio: 'inherit' });
    current = child;
    child.once('error', (error) => {
      console.error(`bench: could not start ${script.name}: ${error.message}`);
      resolve(1);
    });
    child.once('exit', (code, signal) => {
      current = undefined;
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

/** Rewrites the "Performance" table of docs/performance.md from the results files; returns the table. */
function updateReadme(): string {
  const table = renderPerformanceTable(readRows(), readRunInfo());
  const file = join(packageRoot(), 'docs', 'performance.md');
  const readme = readFileSync(file, 'utf8');
  const updated = replaceTable(readme, table);
  if (updated !== readme) writeFileSync(file, updated);
  return table;
}

async function main(): Promise<void> {
  if (README_ONLY) {
    console.log(updateReadme());
    console.log('\ndocs/performance.md "Performance" table rewritten from bench/results/.');
    return;
  }
  const scripts = selected();
  const startedAt = new Date();
  const took: string[] = [];
  const failed: string[] = [];
  for (const script of scripts) {
    console.log(`\n===== ${script.name}${SMOKE ? ' --smoke' : QUICK ? ' --quick' : ''} (node ${script.nodeFlags.join(' ')})\n`);
    const t = Date.now();
    const code = await runScript(script);
    const seconds = (Date.now() - t) / 1000;
    took.push(`${script.name} ${seconds.toFixed(0)}s${code ? ` (FAILED, exit ${code})` : ''}`);
    if (code) failed.push(script.name);
  }
  const finishedAt = new Date();
  const info = readRunInfo();
  info.runner = {
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    seconds: (finishedAt.getTime() - startedAt.getTime()) / 1000,
    quick: QUICK,
    scripts: scripts.map((s) => s.name),
    failed,
  };
  writeRunInfo(info);
  if (!SMOKE) {
    const table = updateReadme();
    console.log(`\n===== the "Performance" table of docs/performance.md (rewritten from bench/results/latest.json):\n\n${table}\n`);
  }
  console.log(`bench: ${took.join(', ')}; ${((finishedAt.getTime() - startedAt.getTime()) / 1000).toFixed(0)}s in all.`);
  if (failed.length) {
    console.error(`bench: ${failed.join(', ')} failed`);
    process.exitCode = 1;
  }
}

try {
  await main();
} catch (error) {
  console.error(`bench: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 2;
}
