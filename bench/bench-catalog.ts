/**
 * The benchmark scripts `npm run bench` runs (bench/run.ts), in order: how each is started, which rows of
 * bench/results/latest.json are its own, and the caption its rows get in the README's "Performance" table.
 * Plain data: the runner, the scripts' result writer and the README renderer all read it.
 */

/** One benchmark script. */
export interface BenchScript {
  /** The script's name: its file is `bench/<name>.ts`, compiled to `dist-demo/bench/<name>.js`. */
  name: string;
  /** Node flags it runs under. */
  nodeFlags: readonly string[];
  /** Matches the name of every row it writes, and of no other script's row. */
  rows: RegExp;
  /** What its rows are about, as the README captions them. */
  caption: string;
}

export const BENCH_SCRIPTS: readonly BenchScript[] = [
  {
    name: 'cycle.bench',
    nodeFlags: ['--expose-gc'],
    rows: /^cycle\b/,
    caption: 'In-process lifecycle on the memory store',
  },
  {
    name: 'memory.bench',
    nodeFlags: ['--expose-gc', '--max-old-space-size=8192'],
    rows: /^(memory store|form validation)\b/,
    caption: 'The memory store at scale, and form validation',
  },
  {
    name: 'redis.bench',
    nodeFlags: ['--expose-gc'],
    rows: /^redis\b/,
    caption: 'The Redis store and cross-instance completion',
  },
  {
    name: 'postgres.bench',
    nodeFlags: ['--expose-gc'],
    rows: /^postgres\b/,
    caption: 'The PostgreSQL store and cross-instance completion',
  },
  {
    name: 'tasks.bench',
    nodeFlags: ['--expose-gc'],
    rows: /^tasks\b/,
    caption: 'Tasks: polling a waiting task',
  },
  {
    name: 'http.bench',
    nodeFlags: ['--expose-gc'],
    rows: /^http\b/,
    caption: 'HTTP routes under load, next to bare Nest routes of the same shape',
  },
];

/** The script a row belongs to (undefined for a row no script writes any more). */
export function scriptOfRow(name: string): BenchScript | undefined {
  return BENCH_SCRIPTS.find((s) => s.rows.test(name));
}
