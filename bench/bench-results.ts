/**
 * The results files under bench/results/ (gitignored):
 *  - `latest.json`: every figure, an array of rows `{ name, value, unit, baseline, ratio, target, met }`, each
 *    script's rows replaced by its latest run, the others kept;
 *  - `run.json`: when and where each script last wrote its rows (quick or full, Node, CPUs, notes such as how
 *    the HTTP load generator was pinned), and the last `npm run bench` as a whole.
 * The README's "Performance" table is rendered from both (bench/readme-table.ts).
 */
import { cpus } from 'node:os';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_SCRIPTS, scriptOfRow } from './bench-catalog.js';

/** One reported figure. `target` and `met` are set on rows that have a target. */
export interface Row {
  name: string;
  value: number;
  unit: string;
  /** The figure this row compares with, measured in the same run (null for baselines themselves). */
  baseline: number | null;
  /** value / baseline (null when there is no baseline). */
  ratio: number | null;
  target?: string;
  met?: boolean;
}

/** When and where one script last wrote its rows. */
export interface ScriptRun {
  /** ISO time the rows were written. */
  finishedAt: string;
  /** Run with `--quick` (fewer and shorter runs, smaller counts): a first look, not figures to compare. */
  quick: boolean;
  /** Seconds the script took. */
  seconds: number;
  /** `process.version`. */
  node: string;
  /** e.g. `linux x64`. */
  platform: string;
  /** CPUs the OS reports, and the first one's model. */
  cpus: number;
  cpuModel: string;
  /** What a reader of the figures must know (e.g. how the server and the load generator were pinned). */
  notes?: string[];
}

/** bench/results/run.json. */
export interface RunInfo {
  /** The last `npm run bench` (bench/run.ts), if there was one. */
  runner?: {
    startedAt: string;
    finishedAt: string;
    seconds: number;
    quick: boolean;
    /** The scripts it ran (all of them unless `--only` was given). */
    scripts: string[];
    /** Scripts that exited with an error (their rows are those of their last successful run, if any). */
    failed: string[];
  };
  /** By script name (`cycle.bench`, ...). */
  scripts: Record<string, ScriptRun>;
}

/** The package root: the first folder above this file with a package.json (dist-demo/bench → root). */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
}

export function resultsDir(): string {
  return join(packageRoot(), 'bench', 'results');
}

function readJson(file: string): unknown {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    console.warn(`  ${file} is not valid JSON: ignoring it`);
    return undefined;
  }
}

function writeJson(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** The rows of bench/results/latest.json (none when it is missing). */
export function readRows(): Row[] {
  const parsed = readJson(join(resultsDir(), 'latest.json'));
  return Array.isArray(parsed) ? (parsed as Row[]) : [];
}

/** bench/results/run.json (empty when it is missing). */
export function readRunInfo(): RunInfo {
  const parsed = readJson(join(resultsDir(), 'run.json')) as RunInfo | undefined;
  return parsed && typeof parsed === 'object' && parsed.scripts ? parsed : { scripts: {} };
}

export function writeRunInfo(info: RunInfo): void {
  writeJson(join(resultsDir(), 'run.json'), info);
}

/** The machine and Node version, as run.json records them. */
export function machine(): Pick<ScriptRun, 'node' | 'platform' | 'cpus' | 'cpuModel'> {
  const list = cpus();
  return {
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpus: list.length,
    cpuModel: list[0]?.model.trim() ?? '?',
  };
}

/**
 * Merges the rows of `script` (a BENCH_SCRIPTS name) into bench/results/latest.json and records the run in
 * run.json. All rows the script wrote before are replaced (a row it no longer produces disappears), other
 * scripts' rows are kept, and rows that no script claims any more (renamed ones) are dropped. Throws on a row
 * whose name the script does not own: the README groups rows by those names. Returns the latest.json path.
 */
export function mergeResults(script: string, rows: Row[], run: { quick: boolean; seconds: number; notes?: string[] }): string {
  const own = BENCH_SCRIPTS.find((s) => s.name === script);
  if (!own) throw new Error(`${script} is not in bench/bench-catalog.ts`);
  const foreign = rows.filter((r) => scriptOfRow(r.name) !== own);
  if (foreign.length)
    throw new Error(`${script} wrote rows it does not own (see bench-catalog.ts): ${foreign.map((r) => r.name).join('; ')}`);
  const kept = readRows().filter((r) => {
    const owner = scriptOfRow(r.name);
    return owner !== undefined && owner !== own;
  });
  const outFile = join(resultsDir(), 'latest.json');
  writeJson(outFile, [...kept, ...rows]);
  const info = readRunInfo();
  info.scripts[script] = { finishedAt: new Date().toISOString(), ...run, ...machine() };
  writeRunInfo(info);
  return outFile;
}
