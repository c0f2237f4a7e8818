/**
 * What every benchmark script shares: the `--quick` switch, garbage collection on demand, medians and timers,
 * a watchdog, and the report (a printed table; rows merged into bench/results/latest.json by bench-results.ts).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Row } from './bench-results.js';

export { mergeResults, type Row } from './bench-results.js';

/**
 * `--smoke` (forwarded by `npm run bench:smoke`, CI's run): the smallest counts that still take every step of every
 * measurement, to show that nothing is broken, never to measure. It implies `--quick`.
 */
export const SMOKE = process.argv.includes('--smoke');

/**
 * `--quick` (forwarded by `npm run bench -- --quick`): fewer and shorter runs and smaller counts, for a first
 * look in a few minutes. run.json and the README mark such figures as quick.
 */
export const QUICK = SMOKE || process.argv.includes('--quick');

/** A count or duration for this run's size: `full`, or `quick` under `--quick`, or `smoke` under `--smoke`. */
export function bySize<T>(full: T, quick: T, smoke: T): T {
  return SMOKE ? smoke : QUICK ? quick : full;
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
  if (values.length === 0) return NaN;
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
