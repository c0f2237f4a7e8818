/**
 * Benchmark 3: the module's HTTP routes under load, on Express and on Fastify, each next to a bare route
 * of the same app on the same adapter.
 *
 *   npm run bench            (after cycle.bench and redis.bench: `node dist-demo/bench/http.bench.js`)
 *
 * For each adapter, the demo app runs in its own process (`startDemoProcess`, ELICITATION_ADAPTER, with the
 * benchmark-only routes of examples/demo/bench.controller.ts, ELICITATION_BENCH=1, and throttle and creation
 * limits lifted) on 127.0.0.1, and autocannon (in this process) sends it CONNECTIONS keep-alive connections'
 * worth of requests, for RUN_SECONDS per measured run, MEASURED_RUNS runs after one WARMUP_SECONDS warm-up
 * run of each endpoint. The endpoints are measured in turn within each run (round robin), so a burst of load
 * from elsewhere on the machine hits them alike. Measured:
 *  - `GET /bench/baseline`: a bare Nest route answering a JSON object of the status route's shape and size;
 *  - `GET /elicit/:id/status` (throttle guard, id check, store read), as a fraction of the former;
 *  - `GET /bench/baseline/html`: a bare Nest route answering a constant HTML document of the api-key page's size;
 *  - `GET /elicit/:id/api-key` (throttle guard, store read, user check, helmet headers with a CSP nonce,
 *    CSRF token and cookie, template render), as a fraction of the HTML baseline;
 *  - `POST /elicit/:id/api-key` (urlencoded body parse, size cap, origin and CSRF check, user check, DTO
 *    validation, encryption of the key, store write, completion event, done page), as a fraction of the
 *    HTML baseline (what the same adapter serves for a page of that size with no work at all).
 * and the p99 latency of each module route next to its baseline's p99 (latencies of 2xx answers, recorded
 * here with sub-millisecond resolution from autocannon's per-response times).
 *
 * Each POST needs its own pending elicitation and the CSRF pair of a render of its page. Rendering one page
 * per POST (GET, then POST) would measure the GET as well; instead, before each POST run the store is
 * emptied (`DELETE /bench/elicitations`) and enough elicitations are created in the app process by
 * `POST /bench/elicitations` (in batches of at most its BENCH_MAX_BATCH), which returns for each the id, the
 * form token and the cookie nonce issued by the module's own `PageSecurity.issueCsrf` (what the page render
 * calls). autocannon's `setupRequest` then takes the next one for every request, so each POST is a first,
 * valid submission. How many: twice what the previous POST run posted per second over the run's duration,
 * plus a margin; before the first (warm-up) POST run, the rate of the HTML baseline just measured stands in
 * (a POST does more work than that bare route, so it posts less). A run that used them all would answer
 * 409s, counted as non-2xx and reported.
 *
 * Prints a table and merges its rows (names start with "http") into `bench/results/latest.json`. Targets
 * are reported, never enforced.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { relative } from 'node:path';
import autocannon, { type Options as AutocannonOptions } from 'autocannon';
import { BENCH_MAX_BATCH } from '../examples/demo/bench.controller.js';
import { DEMO_MAIN, type DemoProcess, liveChildren, startDemoProcess } from '../examples/demo/demo-process.js';
import { fmt, fullGc, median, mergeResults, printTable, round, seconds, startWatchdog, type Row } from './bench-kit.js';

// ---------------------------------------------------------------------------------------------- setup

const CONNECTIONS = 32;
const RUN_SECONDS = Number(process.env.HTTP_BENCH_SECONDS) || 10;
const WARMUP_SECONDS = Number(process.env.HTTP_BENCH_WARMUP_SECONDS) || 3;
const MEASURED_RUNS = 3;
const ADAPTERS = ['express', 'fastify'] as const;
type Adapter = (typeof ADAPTERS)[number];

/** Gives up after this long without a finished run (a hang): two runs' time, plus starting an app and seeding. */
const IDLE_LIMIT_MS = (2 * RUN_SECONDS + 120) * 1000;

const STATUS_TARGET = 0.9; // status req/s / JSON baseline req/s, at least
const PAGE_TARGET = 0.85; // page GET req/s / HTML baseline req/s, at least
const POST_TARGET = 0.7; // page POST req/s / HTML baseline req/s, at least
const P99_TARGET = 1.5; // p99 / the baseline's p99, at most

const USER = 'alice';
const API_KEY = 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB';
/** Latencies recorded per run at first; the array doubles when a fast machine answers more. */
const LATENCY_SLOTS = 4_000_000;

const DEMO_ENV = {
  ELICITATION_BENCH: '1',
  ELICITATION_THROTTLE_LIMIT: '1000000000',
  ELICITATION_CREATE_PER_MINUTE: '1000000000',
  ELICITATION_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
};

function killChildren(): void {
  for (const child of liveChildren) child.kill('SIGKILL');
}

const progress = startWatchdog('http.bench', IDLE_LIMIT_MS, () => {
  killChildren();
  process.exit(1);
});
process.once('exit', killChildren);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killChildren();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  });
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: Float64Array, n: number, p: number): number {
  return sorted[Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1))];
}

/** Share of the machine's CPU time that was busy over `ms` (0..1), from os.cpus(). */
async function machineBusy(ms = 1_000): Promise<number> {
  const sample = () => {
    let idle = 0;
    let total = 0;
    for (const { times } of cpus()) {
      idle += times.idle;
      total += times.user + times.nice + times.sys + times.idle + times.irq;
    }
    return { idle, total };
  };
  const before = sample();
  await new Promise((r) => setTimeout(r, ms));
  const after = sample();
  return 1 - (after.idle - before.idle) / Math.max(after.total - before.total, 1);
}

/** CPU seconds (user + system) the process has used, from /proc (null where there is none). */
function cpuSeconds(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat (utime, stime), in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

// ------------------------------------------------------------------------------------------ the app

interface Pending {
  id: string;
  token: string;
  cookie: string;
}

async function call(url: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(url, init);
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  return res;
}

/** Creates `count` pending elicitations in the app, each with the CSRF pair of a page render. */
async function createPending(app: DemoProcess, count: number): Promise<Pending[]> {
  const pending: Pending[] = [];
  while (pending.length < count) {
    const batch = Math.min(count - pending.length, BENCH_MAX_BATCH);
    const res = await call(`${app.url}/bench/elicitations`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ count: batch, user: USER }),
    });
    const { items } = (await res.json()) as { items: Array<[string, string, string]> };
    if (items.length !== batch) throw new Error(`asked for ${batch} elicitations, got ${items.length}`);
    for (const [id, token, cookie] of items) pending.push({ id, token, cookie });
  }
  return pending;
}

async function clearStore(app: DemoProcess): Promise<void> {
  await call(`${app.url}/bench/elicitations`, { method: 'DELETE' });
}

// ------------------------------------------------------------------------------------------ endpoints

type EndpointName = 'baselineJson' | 'status' | 'baselineHtml' | 'page' | 'post';

interface Endpoint {
  name: EndpointName;
  label: string;
  /** autocannon options of one run (url and connections aside); `prepare` runs first, untimed. */
  options(): Omit<AutocannonOptions, 'url' | 'connections' | 'duration'>;
  prepare?(seconds: number): Promise<void>;
  /** Called with each run's result. */
  measured?(result: RunResult): void;
}

interface RunResult {
  rps: number;
  p99: number;
  p50: number;
  non2xx: number;
  errors: number;
  /** Server CPU use during the run, in cores (1 = one core busy all the time). */
  serverCpu: number | null;
}

/** One autocannon run; latencies of 2xx answers are recorded here (autocannon's own histogram has 1 ms steps). */
async function runLoad(app: DemoProcess, endpoint: Endpoint, duration: number): Promise<RunResult> {
  await endpoint.prepare?.(duration);
  fullGc();
  let latencies = new Float64Array(LATENCY_SLOTS);
  let n = 0;
  let non2xx = 0;
  const cpuBefore = cpuSeconds(app.child.pid);
  const started = process.hrtime.bigint();
  const instance = autocannon({ url: app.url, connections: CONNECTIONS, duration, timeout: 10, ...endpoint.options() });
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status >= 200 && status < 300) {
      if (n === latencies.length) {
        const grown = new Float64Array(2 * n);
        grown.set(latencies);
        latencies = grown;
      }
      latencies[n++] = ms;
    } else non2xx++;
  });
  const result = await instance;
  const elapsed = seconds(started);
  const cpuAfter = cpuSeconds(app.child.pid);
  const sorted = latencies.subarray(0, n).sort();
  return {
    rps: result['2xx'] / result.duration,
    p99: n ? percentile(sorted, n, 99) : NaN,
    p50: n ? percentile(sorted, n, 50) : NaN,
    non2xx: non2xx + result.errors + result.timeouts,
    errors: result.errors + result.timeouts,
    serverCpu: cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) / elapsed,
  };
}

/** Checks one request of each endpoint answers as expected, and sizes the HTML baseline like the page. */
async function setUp(app: DemoProcess): Promise<{ endpoints: Endpoint[]; sizes: string }> {
  // The elicitation whose status and page are loaded (a GET changes nothing); made again after each clear.
  let [target] = await createPending(app, 1);
  const statusPath = () => `/elicit/${target.id}/status`;
  const pagePath = () => `/elicit/${target.id}/api-key`;
  const userCookie = `demo_user=${USER}`;

  const status = await (await call(`${app.url}${statusPath()}`)).text();
  const baselineJson = await (await call(`${app.url}/bench/baseline`)).text();
  const page = await (await call(`${app.url}${pagePath()}`, { headers: { Cookie: userCookie } })).text();
  const pageBytes = Buffer.byteLength(page);
  const sized = (await (
    await call(`${app.url}/bench/baseline/size`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ htmlBytes: pageBytes }),
    })
  ).json()) as { htmlBytes: number };
  const baselineHtml = await (await call(`${app.url}/bench/baseline/html`)).text();
  const [probe] = await createPending(app, 1);
  const done = await (
    await call(`${app.url}/elicit/${probe.id}/api-key`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: `${userCookie}; ${probe.cookie}` },
      body: `_csrf=${probe.token}&apiKey=${API_KEY}&action=submit`,
    })
  ).text();
  if (!done.includes('The API key was received')) throw new Error(`the probe POST did not complete: ${done.slice(0, 300)}`);
  const sizes =
    `status JSON ${Buffer.byteLength(status)} B vs baseline ${Buffer.byteLength(baselineJson)} B; ` +
    `api-key page ${pageBytes} B vs baseline ${sized.htmlBytes} B (${Buffer.byteLength(baselineHtml)} B served); ` +
    `done page ${Buffer.byteLength(done)} B`;

  let pending: Pending[] = [];
  let next = 0;
  let lastRate = 0;
  let htmlRate = 0;
  const endpoints: Endpoint[] = [
    {
      name: 'baselineJson',
      label: 'GET /bench/baseline (JSON)',
      options: () => ({ requests: [{ method: 'GET', path: '/bench/baseline' }] }),
    },
    { name: 'status', label: 'GET /elicit/:id/status', options: () => ({ requests: [{ method: 'GET', path: statusPath() }] }) },
    {
      name: 'baselineHtml',
      label: 'GET /bench/baseline/html',
      options: () => ({ requests: [{ method: 'GET', path: '/bench/baseline/html' }] }),
      // Sizes the first POST batch (this endpoint runs before the POST in every round).
      measured: (r) => void (htmlRate = r.rps),
    },
    {
      name: 'page',
      label: 'GET /elicit/:id/api-key',
      options: () => ({ requests: [{ method: 'GET', path: pagePath(), headers: { Cookie: userCookie } }] }),
    },
    {
      name: 'post',
      label: 'POST /elicit/:id/api-key',
      prepare: async (duration) => {
        await clearStore(app);
        [target] = await createPending(app, 1);
        const count = Math.ceil((lastRate || htmlRate) * duration * 2) + 5_000;
        const t = process.hrtime.bigint();
        pending = await createPending(app, count);
        next = 0;
        console.log(`    (created ${fmt(count)} pending elicitations with their CSRF pairs in ${seconds(t).toFixed(1)}s)`);
      },
      // This run's rate sizes the next run's batch.
      measured: (r) => void (lastRate = r.rps),
      options: () => ({
        requests: [
          {
            method: 'POST',
            path: pagePath(),
            setupRequest: (req) => {
              // Past the end (never expected): replays, which answer 409 and are reported as non-2xx.
              const p = pending[next++ % pending.length];
              return {
                ...req,
                path: `/elicit/${p.id}/api-key`,
                headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: `${userCookie}; ${p.cookie}` },
                body: `_csrf=${p.token}&apiKey=${API_KEY}&action=submit`,
              };
            },
          },
        ],
      }),
    },
  ];
  return { endpoints, sizes };
}

type Figures = Record<EndpointName, RunResult[]>;

async function measureAdapter(adapter: Adapter): Promise<{ figures: Figures; sizes: string }> {
  const app = await startDemoProcess({ ...DEMO_ENV, ELICITATION_ADAPTER: adapter });
  try {
    if (!app.output().includes(`, ${adapter})`)) throw new Error(`the demo did not start on ${adapter}:\n${app.output()}`);
    const { endpoints, sizes } = await setUp(app);
    console.log(`\n  ${adapter} (pid ${app.child.pid}, ${app.url}): ${sizes}`);
    const figures = Object.fromEntries(endpoints.map((e) => [e.name, [] as RunResult[]])) as Figures;
    for (let run = 0; run <= MEASURED_RUNS; run++) {
      const duration = run === 0 ? WARMUP_SECONDS : RUN_SECONDS;
      const label = run === 0 ? `warm-up (${WARMUP_SECONDS}s each)` : `run ${run}/${MEASURED_RUNS}`;
      console.log(`  ${adapter} ${label}:`);
      for (const endpoint of endpoints) {
        const r = await runLoad(app, endpoint, duration);
        endpoint.measured?.(r);
        console.log(
          `    ${endpoint.label.padEnd(27)} ${fmt(r.rps).padStart(7)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms` +
            `${r.serverCpu === null ? '' : `, server CPU ${r.serverCpu.toFixed(2)} cores`}` +
            `${r.non2xx ? `, ${fmt(r.non2xx)} NON-2xx/errors` : ''}`,
        );
        progress();
        if (run > 0) figures[endpoint.name].push(r);
      }
    }
    return { figures, sizes };
  } finally {
    await app.stop();
  }
}

// ------------------------------------------------------------------------------------------- report

function buildRows(adapter: Adapter, figures: Figures): Row[] {
  const rps = (e: EndpointName) => median(figures[e].map((r) => r.rps));
  const p99 = (e: EndpointName) => median(figures[e].map((r) => r.p99));
  const rows: Row[] = [];
  const baseJson = rps('baselineJson');
  const baseHtml = rps('baselineHtml');
  const baseJsonP99 = p99('baselineJson');
  const baseHtmlP99 = p99('baselineHtml');
  rows.push({
    name: `http ${adapter} baseline: GET /bench/baseline (JSON)`,
    value: round(baseJson, 0),
    unit: 'req/s',
    baseline: null,
    ratio: null,
  });
  rows.push({
    name: `http ${adapter} baseline: GET /bench/baseline (JSON) p99`,
    value: round(baseJsonP99, 3),
    unit: 'ms',
    baseline: null,
    ratio: null,
  });
  rows.push({
    name: `http ${adapter} baseline: GET /bench/baseline/html`,
    value: round(baseHtml, 0),
    unit: 'req/s',
    baseline: null,
    ratio: null,
  });
  rows.push({
    name: `http ${adapter} baseline: GET /bench/baseline/html p99`,
    value: round(baseHtmlP99, 3),
    unit: 'ms',
    baseline: null,
    ratio: null,
  });
  const module = [
    ['status', 'GET /elicit/:id/status', baseJson, baseJsonP99, STATUS_TARGET],
    ['page', 'GET /elicit/:id/api-key (page)', baseHtml, baseHtmlP99, PAGE_TARGET],
    ['post', 'POST /elicit/:id/api-key (submit)', baseHtml, baseHtmlP99, POST_TARGET],
  ] as const;
  for (const [e, label, base, baseP99, target] of module) {
    const value = rps(e);
    const ratio = value / base;
    rows.push({
      name: `http ${adapter} ${label}`,
      value: round(value, 0),
      unit: 'req/s',
      baseline: round(base, 0),
      ratio: round(ratio, 4),
      target: `ratio >= ${target.toFixed(2)}`,
      met: ratio >= target,
    });
    const v99 = p99(e);
    const r99 = v99 / baseP99;
    rows.push({
      name: `http ${adapter} ${label} p99`,
      value: round(v99, 3),
      unit: 'ms',
      baseline: round(baseP99, 3),
      ratio: round(r99, 4),
      target: `ratio <= ${P99_TARGET.toFixed(2)}`,
      met: r99 <= P99_TARGET,
    });
  }
  return rows;
}

/** Rows of this script: every name starts with this. */
const OWN = /^http\b/;

async function main(): Promise<void> {
  const started = process.hrtime.bigint();
  if (!existsSync(DEMO_MAIN)) throw new Error(`${DEMO_MAIN} is missing: run "npm run build:demo" first`);
  console.log(
    `http.bench: node ${process.version}, autocannon, ${CONNECTIONS} connections on 127.0.0.1, ` +
      `${ADAPTERS.join(' and ')}; per endpoint 1 warm-up run of ${WARMUP_SECONDS}s + ${MEASURED_RUNS} runs of ${RUN_SECONDS}s, round robin`,
  );
  const busy = await machineBusy();
  console.log(`  ${cpus().length} CPUs, ${(busy * 100).toFixed(0)}% busy before the start`);
  if (busy > 0.2) console.warn('  note: other processes are busy on this machine; they take CPU from the app and from autocannon alike');
  const rows: Row[] = [];
  const nonOk: string[] = [];
  for (const adapter of ADAPTERS) {
    const t = process.hrtime.bigint();
    const { figures } = await measureAdapter(adapter);
    console.log(`  ${adapter} done in ${seconds(t).toFixed(1)}s`);
    for (const [name, runs] of Object.entries(figures)) {
      const bad = runs.reduce((s, r) => s + r.non2xx, 0);
      if (bad) nonOk.push(`${adapter} ${name}: ${bad} non-2xx answers or errors in the measured runs`);
    }
    rows.push(...buildRows(adapter, figures));
  }
  console.log(
    `\nMedians of ${MEASURED_RUNS} runs (req/s: ratio = value / the bare route's req/s on the same adapter; ` +
      `p99: ratio = p99 / the bare route's p99):\n`,
  );
  printTable(rows);
  for (const line of nonOk) console.warn(`  WARNING ${line}`);
  const outFile = mergeResults(rows, OWN);
  console.log(`\nMerged ${rows.length} rows into ${relative(process.cwd(), outFile) || outFile} in ${seconds(started).toFixed(1)}s total.`);
}

try {
  await main();
} finally {
  killChildren();
}
