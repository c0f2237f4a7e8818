/**
 * The "Performance" table of docs/performance.md is generated (bench/readme-table.ts, written by `npm run bench`): rows of
 * bench/results/latest.json in, Markdown out. bench/results/ is gitignored, so the rows here are made up.
 */
import { BENCH_SCRIPTS, scriptOfRow } from '../../bench/bench-catalog.js';
import type { Row, RunInfo, ScriptRun } from '../../bench/bench-results.js';
import { formatQuantity, renderPerformanceTable, renderRow, replaceTable, TABLE_END, TABLE_START } from '../../bench/readme-table.js';
import { readmeSection, readDocs } from '../docs/readme-support.js';

const run = (over: Partial<ScriptRun> = {}): ScriptRun => ({
  finishedAt: '2026-11-24T05:10:42.123Z',
  quick: false,
  seconds: 95.4,
  node: 'v20.20.2',
  platform: 'linux x64',
  cpus: 2,
  cpuModel: 'AMD EPYC',
  ...over,
});

const statusRow: Row = {
  name: 'http express GET /elicit/:id/status',
  value: 7760,
  unit: 'req/s',
  baseline: 8075,
  ratio: 0.961,
  target: 'ratio >= 0.95',
  met: true,
};
const postRow: Row = {
  name: 'http express POST /elicit/:id/api-key (submit)',
  value: 3625,
  unit: 'req/s',
  baseline: 6457,
  ratio: 0.5614,
  target: 'ratio >= 0.90',
  met: false,
};
const baselineRow: Row = {
  name: 'http express baseline: GET /bench/baseline (JSON)',
  value: 8075,
  unit: 'req/s',
  baseline: null,
  ratio: null,
};
const sweepRow: Row = {
  name: 'memory store sweep, 1M pending, 1% due (1 in 100 records)',
  value: 1.934,
  unit: 'ms',
  baseline: 16.47,
  ratio: 0.1176,
  target: 'ratio <= 0.05',
  met: false,
};

describe('the performance table (docs/performance.md)', () => {
  it('renders a row per figure: value and baseline in the unit, ratio, target and met', () => {
    expect(renderRow(statusRow)).toBe('| http express GET /elicit/:id/status | 7,760 req/s | 8,075 req/s | 0.961 | ratio ≥ 0.95 | yes |');
    expect(renderRow(postRow)).toBe(
      '| http express POST /elicit/:id/api-key (submit) | 3,625 req/s | 6,457 req/s | 0.561 | ratio ≥ 0.90 | **no** |',
    );
    expect(renderRow(baselineRow)).toBe('| http express baseline: GET /bench/baseline (JSON) | 8,075 req/s | – | – |  |  |');
    expect(renderRow(sweepRow)).toBe(
      '| memory store sweep, 1M pending, 1% due (1 in 100 records) | 1.93 ms | 16.5 ms | 0.118 | ratio ≤ 0.05 | **no** |',
    );
  });

  it('formats each unit readably', () => {
    expect(formatQuantity(354.06, 'bytes')).toBe('354.1 B');
    expect(formatQuantity(-426984, 'bytes')).toBe('-426,984 B');
    expect(formatQuantity(0.2124, 'ms')).toBe('0.212 ms');
    expect(formatQuantity(1, 'round trips/op')).toBe('1.000 round trips/op');
    expect(formatQuantity(0, 'entries')).toBe('0');
    expect(formatQuantity(null, 'ms')).toBe('–');
  });

  it('escapes a pipe in a row name', () => {
    expect(renderRow({ ...baselineRow, name: 'a | b' })).toMatch(/^\| a \\\| b \|/);
  });

  it('groups the rows by script, in the catalog order, each under its run', () => {
    const info: RunInfo = {
      runner: {
        startedAt: '2026-11-24T05:00:00.000Z',
        finishedAt: '2026-11-24T05:10:42.123Z',
        seconds: 642,
        quick: false,
        scripts: BENCH_SCRIPTS.map((s) => s.name),
        failed: [],
      },
      scripts: {
        'http.bench': run({ notes: ['server pinned to CPU 0, load generator (autocannon, its own process) to CPU 1'] }),
        'memory.bench': run(),
      },
    };
    const md = renderPerformanceTable([statusRow, sweepRow, baselineRow, postRow], info);
    const lines = md.split('\n');
    const memory = lines.findIndex((l) => l.includes('`bench/memory.bench.ts`'));
    const http = lines.findIndex((l) => l.includes('`bench/http.bench.ts`'));
    expect(memory).toBeGreaterThan(0);
    expect(http).toBeGreaterThan(memory);
    expect(lines[http]).toContain('full run, 2026-11-24 05:10 UTC, 1 min 35 s');
    expect(lines[http + 1]).toBe('- server pinned to CPU 0, load generator (autocannon, its own process) to CPU 1');
    expect(lines.slice(http + 3, http + 8)).toEqual([
      '| benchmark | value | baseline (same run) | ratio | target | met |',
      '| --- | ---: | ---: | ---: | --- | --- |',
      renderRow(statusRow),
      renderRow(baselineRow),
      renderRow(postRow),
    ]);
    expect(md).toContain('Last `npm run bench`: 2026-11-24 05:10 UTC, 10 min 42 s. Node v20.20.2, linux x64, 2 CPUs (AMD EPYC).');
    expect(md).not.toContain('quick run');
    const some = renderPerformanceTable([statusRow], { ...info, runner: { ...info.runner!, quick: true, scripts: ['http.bench'] } });
    expect(some).toContain('Last `npm run bench -- --quick --only http`: 2026-11-24 05:10 UTC, 10 min 42 s.');
  });

  it('says so when figures come from a quick run', () => {
    const info: RunInfo = { scripts: { 'memory.bench': run({ quick: true }), 'http.bench': run() } };
    const md = renderPerformanceTable([sweepRow, statusRow], info);
    expect(md).toContain('**Some figures below come from a quick run**');
    expect(md).toContain('**quick run**, 2026-11-24 05:10 UTC');
    const allQuick = renderPerformanceTable([sweepRow], { scripts: { 'memory.bench': run({ quick: true }) } });
    expect(allQuick).toContain('**These figures come from a quick run**');
  });

  it('replaces only what lies between the markers, and refuses a README without them', () => {
    const readme = `# x\n\n## Performance\n\nprose\n\n${TABLE_START}\nold table\n${TABLE_END}\n\nmore prose\n\n## License\n`;
    const updated = replaceTable(readme, 'new table');
    expect(updated).toBe(`# x\n\n## Performance\n\nprose\n\n${TABLE_START}\nnew table\n${TABLE_END}\n\nmore prose\n\n## License\n`);
    expect(replaceTable(updated, 'new table')).toBe(updated);
    expect(() => replaceTable('# x\n', 'table')).toThrow(/bench:table:start/);
    expect(() => replaceTable(`${TABLE_END}\n${TABLE_START}\n`, 'table')).toThrow();
  });

  it('gives every script its own row names', () => {
    for (const script of BENCH_SCRIPTS) {
      const others = BENCH_SCRIPTS.filter((s) => s !== script);
      for (const name of ['cycle create→complete→getResult (memory store)', 'redis store finish (complete), 32 callers', statusRow.name]) {
        if (script.rows.test(name)) expect(others.some((o) => o.rows.test(name))).toBe(false);
      }
    }
    expect(scriptOfRow('form validation, 10-field answer (defineForm, compiled once)')?.name).toBe('memory.bench');
    expect(scriptOfRow('baseline: Map set/get/update cycle (sync)')).toBeUndefined();
  });
});

describe('README.md "## Performance"', () => {
  const section = readmeSection(readDocs(), '## Performance');

  it('holds the generated table between its markers, once', () => {
    expect(section.split(TABLE_START)).toHaveLength(2);
    expect(section.split(TABLE_END)).toHaveLength(2);
    expect(section.indexOf(TABLE_START)).toBeLessThan(section.indexOf(TABLE_END));
  });

  it('has no hand-copied figures outside the generated table', () => {
    const prose = section.slice(0, section.indexOf(TABLE_START)) + section.slice(section.indexOf(TABLE_END));
    const withoutCode = prose.replace(/`[^`]*`/g, '');
    // A measured figure: a number with a unit of measure, or a decimal (a ratio, a time).
    const figure = /\d[\d,.]*\s*(req\/s|ops\/s|cycles\/s|validations\/s|\/s\b|ms\b|µs|B\b|bytes|[KMG]i?B\b|%|×)|\b\d+\.\d+\b/g;
    expect(withoutCode.match(figure)).toBeNull();
  });
});
