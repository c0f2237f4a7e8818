/**
 * What every benchmark script shares: garbage collection on demand, medians and timers, a watchdog, and the
 * report (a printed table, rows merged into bench/results/latest.json).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

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

/** `global.gc`, exposed on the fly when the script was started without `--expose-gc` (e.g. under `--cpu-prof`). */
const gc: () => void = (() => {
  const exposed = globalThis.gc;
  // Called without options: the synchronous collection (its async overload returns a promise).
  if (typeof exposed === 'function') return () => exposed();
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

/** A full collection: twice, since the first pass can leave objects that only die once finalizers ran. */
export function fullGc(): void {
  gc();
  gc();
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Seconds since a `process.hrtime.bigint()` reading. */
export function seconds(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

export function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/**
 * Ends the script when it has reported no progress for `idleMs`, so a hang can never keep CI busy while a
 * slower machine may take as long as its steps need: every call of the returned `progress()` restarts the
 * count (call it after each measured step). Unref'd: it never keeps the process alive by itself. `onHang`
 * replaces the default `process.exit(1)` (e.g. to clean up first).
 */
export function startWatchdog(script: string, idleMs: number, onHang: () => void = () => process.exit(1)): () => void {
  const timer = setTimeout(() => {
    console.error(`${script}: no progress for ${idleMs / 1000}s, giving up`);
    onHang();
  }, idleMs);
  timer.unref();
  return () => void timer.refresh();
}

/** A whole number with thousands separators. */
export function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** A table cell for a figure in its unit. */
function formatValue(value: number | null, unit: string): string {
  if (value === null) return '-';
  if (unit.endsWith('/s')) return fmt(value);
  if (unit === 'ms') return value.toFixed(2);
  if (unit === 'bytes') return value.toFixed(1);
  return value.toFixed(3);
}

export function printTable(rows: Row[]): void {
  const header = ['name', 'value', 'unit', 'baseline', 'ratio', 'target', 'met'];
  const cells = rows.map((r) => [
    r.name,
    formatValue(r.value, r.unit),
    r.unit,
    formatValue(r.baseline, r.unit),
    r.ratio === null ? '-' : r.ratio.toFixed(3),
    r.target ?? '-',
    r.met === undefined ? '-' : r.met ? 'yes' : 'NO',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) => c.map((v, i) => (i === 1 || i === 3 || i === 4 ? v.padStart(widths[i]) : v.padEnd(widths[i]))).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const c of cells) console.log(line(c));
}

/** The package root: the first folder above this file with a package.json (dist-demo/bench → root). */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
}

/**
 * Merges `rows` into bench/results/latest.json: rows with the same name are replaced, rows of this script
 * that it no longer produced (names matching `own`) are dropped, the other scripts' rows are kept.
 */
export function mergeResults(rows: Row[], own?: RegExp): string {
  const outDir = join(packageRoot(), 'bench', 'results');
  mkdirSync(outDir, { recursive: true });
  const outFile = join(outDir, 'latest.json');
  let existing: Row[] = [];
  if (existsSync(outFile)) {
    try {
      const parsed: unknown = JSON.parse(readFileSync(outFile, 'utf8'));
      if (Array.isArray(parsed)) existing = parsed as Row[];
    } catch {
      console.warn(`  ${outFile} is not valid JSON: replacing it`);
    }
  }
  const names = new Set(rows.map((r) => r.name));
  const kept = existing.filter((r) => !names.has(r.name) && !(own && own.test(r.name)));
  writeFileSync(outFile, `${JSON.stringify([...kept, ...rows], null, 2)}\n`);
  return outFile;
}
