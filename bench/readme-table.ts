/**
 * The "Performance" table of docs/performance.md, rendered from bench/results/latest.json and run.json: one Markdown table per
 * benchmark script (bench-catalog.ts), one line per row of latest.json, with the script's run (quick or full,
 * when, Node, CPUs, notes) above it. The table sits between TABLE_START and TABLE_END in docs/performance.md; everything
 * else in the section is prose without figures. Pure functions (no file access), so that a unit test can feed
 * rows in and read Markdown out (test/bench/readme-table.spec.ts); bench/run.ts writes the file.
 */
import { BENCH_SCRIPTS, type BenchScript } from './bench-catalog.js';
import type { Row, RunInfo, ScriptRun } from './bench-results.js';

export const TABLE_START = '<!-- bench:table:start -->';
export const TABLE_END = '<!-- bench:table:end -->';

const HEADER = '| benchmark | value | baseline (same run) | ratio | target | met |';
const RULE = '| --- | ---: | ---: | ---: | --- | --- |';

function group(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Digits after the point that show a time or a small count well: fewer as it grows. */
function digitsFor(n: number): number {
  const a = Math.abs(n);
  return a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
}

/** A figure in its unit, as the table shows it: `12,345 req/s`, `1.93 ms`, `354.1 B`. */
export function formatQuantity(value: number | null, unit: string): string {
  if (value === null || !Number.isFinite(value)) return '–';
  if (unit.endsWith('/s')) return `${group(value)} ${unit}`;
  if (unit === 'bytes') return Math.abs(value) >= 10_000 ? `${group(value)} B` : `${group(value, 1)} B`;
  if (unit === 'ms' || unit === 'µs') return `${group(value, digitsFor(value))} ${unit}`;
  if (unit === 'entries') return group(value);
  if (unit === 'ratio') return group(value, 3);
  return `${group(value, 3)} ${unit}`;
}

export function formatRatio(ratio: number | null): string {
  if (ratio === null || !Number.isFinite(ratio)) return '–';
  return group(ratio, Math.abs(ratio) >= 10 ? 1 : 3);
}

/** `ratio >= 0.95` → `ratio ≥ 0.95`. */
export function formatTarget(target: string | undefined): string {
  if (!target) return '';
  return target.replaceAll('>=', '≥').replaceAll('<=', '≤').replaceAll('==', '=');
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|');
}

export function renderRow(row: Row): string {
  const met = row.met === undefined ? '' : row.met ? 'yes' : '**no**';
  return `| ${cell(row.name)} | ${formatQuantity(row.value, row.unit)} | ${formatQuantity(row.baseline, row.unit)} | ${formatRatio(row.ratio)} | ${cell(formatTarget(row.target))} | ${met} |`;
}

/** `2026-11-24T05:10:42.123Z` → `2026-11-24 05:10 UTC`. */
function when(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

function duration(seconds: number): string {
  const s = Math.round(seconds);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

function describeScriptRun(run: ScriptRun | undefined): string {
  if (!run) return 'no record of its run in run.json';
  const mode = run.quick ? '**quick run**' : 'full run';
  return `${mode}, ${when(run.finishedAt)}, ${duration(run.seconds)}`;
}

function machineLine(runs: ScriptRun[]): string {
  const machines = new Set(runs.map((r) => `Node ${r.node}, ${r.platform}, ${r.cpus} CPUs (${r.cpuModel})`));
  return [...machines].join('; ');
}

/** The lines above the tables: which run, on what, and a warning when any figure comes from a quick run. */
function preamble(info: RunInfo, runs: ScriptRun[]): string[] {
  const lines = [
    '_Generated from `bench/results/latest.json` by `npm run bench` (or `npm run bench:readme`); edit `bench/readme-table.ts`, not this table._',
    '',
  ];
  const runner = info.runner;
  let source = 'Figures from the benchmark scripts run one by one.';
  if (runner) {
    const flags = [
      ...(runner.quick ? ['--quick'] : []),
      ...(runner.scripts.length < BENCH_SCRIPTS.length ? ['--only', runner.scripts.map((s) => s.replace(/\.bench$/, '')).join(',')] : []),
    ];
    const failed = runner.failed.length ? `; failed: ${runner.failed.join(', ')} (their rows, if any, are older)` : '';
    source = `Last \`npm run bench${flags.length ? ` -- ${flags.join(' ')}` : ''}\`: ${when(runner.finishedAt)}, ${duration(runner.seconds)}${failed}.`;
  }
  lines.push(`${source} ${runs.length ? `${machineLine(runs)}.` : ''}`.trim());
  const quick = runs.filter((r) => r.quick).length;
  if (quick) {
    lines.push(
      '',
      `**${quick === runs.length ? 'These figures come' : 'Some figures below come'} from a quick run** (\`--quick\`: fewer ` +
        'and shorter runs, smaller counts): a first look, not figures to compare or quote.',
    );
  }
  return lines;
}

function scriptTable(script: BenchScript | undefined, rows: Row[], run: ScriptRun | undefined): string[] {
  const caption = script
    ? `**${script.caption}** (\`bench/${script.name}.ts\`; ${describeScriptRun(run)})`
    : '**Rows no benchmark script writes any more**';
  const lines = ['', caption];
  for (const note of run?.notes ?? []) lines.push(`- ${note}`);
  lines.push('', HEADER, RULE, ...rows.map(renderRow));
  return lines;
}

/** The Markdown between the markers (without them): the preamble, then a table per script that has rows. */
export function renderPerformanceTable(rows: Row[], info: RunInfo): string {
  const groups = new Map<BenchScript | undefined, Row[]>();
  for (const script of BENCH_SCRIPTS) groups.set(script, []);
  for (const row of rows) {
    const script = BENCH_SCRIPTS.find((s) => s.rows.test(row.name));
    if (!groups.has(script)) groups.set(script, []);
    groups.get(script)!.push(row);
  }
  const runs = BENCH_SCRIPTS.map((s) => info.scripts[s.name]).filter((r): r is ScriptRun => r !== undefined);
  const lines = preamble(info, runs);
  if (rows.length === 0) lines.push('', 'No figures yet: run `npm run bench`.');
  for (const [script, scriptRows] of groups) {
    if (scriptRows.length) lines.push(...scriptTable(script, scriptRows, script && info.scripts[script.name]));
  }
  return lines.join('\n');
}

/** `readme` with the text between the markers replaced by `table`. Throws when the markers are missing or out of order. */
export function replaceTable(readme: string, table: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < 0 || end < start || readme.indexOf(TABLE_START, start + 1) >= 0) {
    throw new Error(`docs/performance.md needs exactly one ${TABLE_START} … ${TABLE_END} pair in "## Performance"`);
  }
  return `${readme.slice(0, start + TABLE_START.length)}\n${table}\n${readme.slice(end)}`;
}
