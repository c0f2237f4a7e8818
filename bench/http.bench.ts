/**
 * Benchmark 4: the module's HTTP routes under load, on Express and on Fastify, each next to a bare Nest route
 * of the same shape on the same adapter, measured in the same run.
 *
 *   npm run bench                 (all benchmarks; or alone, after `npm run build:demo`:
 *                                  `node --expose-gc dist-demo/bench/http.bench.js [--quick]`)
 *
 * Processes and CPUs. For each adapter the demo app runs in its own process (`startDemoProcess`,
 * ELICITATION_ADAPTER, the benchmark-only routes of examples/demo/bench.controller.ts with ELICITATION_BENCH=1,
 * throttle and creation limits lifted) on 127.0.0.1. The load generator (bench/load-generator.ts: autocannon,
 * CONNECTIONS keep-alive connections) is another process, forked once, that this script drives over IPC. The
 * server never shares a CPU with the generator: with `taskset -a -p -c <list> <pid>` (`-a`: every thread, and
 * the threads a pinned thread starts later inherit its CPU list) the server gets the first CPU this script may
 * use (core 0 on a plain 2-core machine) and the generator and this script get all the others. On a machine with
 * more cores the server still gets exactly one, so that ratios compare across machines. Without taskset, or with
 * a single CPU, everything runs unpinned: the script warns, and the run's notes (bench/results/run.json, the
 * README) say so. Each run prints the CPU the server used (from /proc): about 1.00 core when the server is the
 * bottleneck, as it should be; the generator's (near 1.00, the generator may be what limits); and the other
 * processes' (they may run on any CPU, the server's too: nothing here can keep them off it), with a warning when
 * they disturbed a run.
 *
 * Runs. MEASURED_RUNS runs of RUN_SECONDS per endpoint after one WARMUP_SECONDS warm-up run of each (fewer and
 * shorter with `--quick`; HTTP_BENCH_RUNS, HTTP_BENCH_SECONDS, HTTP_BENCH_WARMUP_SECONDS and HTTP_BENCH_CONNECTIONS
 * override them); the endpoints take turns within each run (round robin), so a burst of load from elsewhere on the
 * machine hits them alike. Rates are 2xx answers per second; latencies those of 2xx answers, per response (sub-millisecond).
 * Endpoints, each module route reported against the baseline of its own shape:
 *  - `GET /bench/baseline`: a bare route answering a JSON object of the status route's shape and size;
 *  - `GET /elicit/:id/status` (throttle guard, id check, store read) against the former;
 *  - `GET /bench/baseline/html`: a bare route answering constant HTML of the api-key page's size;
 *  - `GET /elicit/:id/api-key` (throttle guard, store read, user check, security headers with a CSP nonce, CSRF
 *    token and cookie, template render) against the former;
 *  - `POST /bench/baseline/post`: a bare route parsing a urlencoded body of the form's fields and size and
 *    answering HTML of the done page's size;
 *  - `POST /elicit/:id/api-key` (body parse, size cap, Origin and CSRF checks, user check, validation, the store
 *    write, the completion event, the done page) against the POST baseline, and in a second row against the HTML
 *    GET baseline;
 *  - `GET /bench/peer/:id/status`, `GET /bench/peer/:id/api-key`, `POST /bench/peer/:id/api-key`: bare routes shaped
 *    like the other Nest implementation of these pages (examples/demo/bench-peer.controller.ts: a Map for a store,
 *    a page built per request by a template function, no CSRF, security headers or throttle), each module route
 *    against the one of its shape (`vs the other Nest implementation's shape`, PEER_TARGET);
 *  - the same three routes on the secure stack a Nest user would build instead (bench/secure-stack/: helmet, a CSRF
 *    library, @nestjs/throttler, Handlebars, an AES-GCM sealed Map), a Nest app of its own on the same adapter and Nest
 *    major, one process per throttler window (SECURE_WINDOWS: 1 s, its best configuration, which carries SECURE_TARGET,
 *    and 60 s), started beside the demo and pinned to the same CPU (only the process under load runs);
 * and the p99 latency of each module route against its baseline's p99; and the module's own cost per request of each
 * route (`own cost per request`, µs of the server's core: 1/route rate − 1/baseline rate, OWN_COST_TARGET_US).
 *
 * Each POST needs its own pending elicitation and the CSRF pair of a render of its page. Rendering a page per POST
 * would measure the GET as well; instead, before each POST run the store is emptied (`DELETE /bench/elicitations`)
 * and elicitations are created in the app by `POST /bench/elicitations`, in batches of SEED_BATCH, which returns
 * for each the id, the form token and the cookie that the module's own `PageSecurity.issueCsrf` issues (what a
 * page render calls). The generator posts each once. How many: the rate of the POST baseline just measured (a bare
 * route doing less work, so more than the module's route can post), or the previous POST run's if higher, times
 * the run's seconds times SEED_FACTOR, plus SEED_MARGIN; should they run out all the same, the generator stops there
 * and the rate is taken over that span. Nothing depends on the machine's speed but the number seeded.
 *
 * Prints a table and merges its rows (names start with "http") into bench/results/latest.json. Targets are
 * reported, never enforced.
 */
import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_MAX_BATCH } from '../examples/demo/bench.controller.js';
import { DEMO_MAIN, type DemoProcess, liveChildren, startDemoProcess } from '../examples/demo/demo-process.js';
import { bySize, fmt, median, mergeResults, printTable, QUICK, round, seconds, SMOKE, startWatchdog, type Row } from './bench-kit.js';
import type { FromGenerator, LoadResult, LoadSpec, ToGenerator } from './load-generator.js';
import {
  SECURE_WINDOWS,
  secureCsrfPair,
  seedSecureStack,
  startSecureStack,
  type SecureWindow,
} from './secure-stack/secure-stack-process.js';

// ---------------------------------------------------------------------------------------------- setup

const CONNECTIONS = Number(process.env.HTTP_BENCH_CONNECTIONS) || 32;
const RUN_SECONDS = Number(process.env.HTTP_BENCH_SECONDS) || bySize(5, 3, 1);
const WARMUP_SECONDS = Number(process.env.HTTP_BENCH_WARMUP_SECONDS) || bySize(3, 1, 0);
const MEASURED_RUNS = Number(process.env.HTTP_BENCH_RUNS) || bySize(5, 1, 1);
const ADAPTERS = ['express', 'fastify'] as const;
type Adapter = (typeof ADAPTERS)[number];

/** Elicitations created per `POST /bench/elicitations` when seeding a POST run. */
const SEED_BATCH = Math.min(20_000, BENCH_MAX_BATCH);
/** Seeded for a POST run: SEED_FACTOR × the most it can post, plus SEED_MARGIN. */
const SEED_FACTOR = 1.25;
const SEED_MARGIN = 2_000;

/** Gives up after this long without a finished run (a hang): two runs' time, plus starting an app and seeding. */
const IDLE_LIMIT_MS = (2 * RUN_SECONDS + 120) * 1000;

const STATUS_TARGET = 0.95; // status req/s / JSON baseline req/s, at least
const PAGE_TARGET = 0.93; // page GET req/s / HTML GET baseline req/s, at least
const POST_TARGET = 0.9; // page POST req/s / POST baseline req/s, at least
const POST_VS_GET_TARGET = 0.8; // page POST req/s / HTML GET baseline req/s, at least
const P99_TARGET = 1.3; // p99 / the baseline's p99, at most
/** A module route / the same route of the other Nest implementation's shape (bench-peer.controller.ts), at least (#31; 0.9 in #46). */
const PEER_TARGET = 0.9; // #46: on the same Nest major (npm run bench:nest11 runs both on Nest 11)
/** A module route / the same route of the secure stack (bench/secure-stack/) in its best configuration, at least (#46). */
const SECURE_TARGET = 1.5;
/**
 * The throttler windows the secure stack runs with: both; in the smoke the short one alone, its three routes checked
 * with one request each but not loaded (the long window is the same app with another number, and the whole smoke
 * stays under a minute).
 */
const SECURE_RUNS: readonly SecureWindow[] = SMOKE ? ['short'] : ['short', 'long'];
/** The windows whose routes are loaded and reported. */
const SECURE_LOADED: readonly SecureWindow[] = SMOKE ? [] : SECURE_RUNS;
/**
 * The module's own cost per request, in µs of the server's one core: 1/route rate − 1/baseline rate of the same
 * shape, from the same run (#31: page ≤ 40, POST ≤ 50, status ≤ 10, on both adapters).
 */
const OWN_COST_TARGET_US = { status: 10, page: 40, post: 50 } as const;

/** Above this share of a core, the generator may be what limits the rate (it is one single-threaded process). */
const GENERATOR_BUSY = 0.9;
/** Above this share of a core used by other processes during a run, its figures are disturbed (they run on any CPU). */
const OTHERS_BUSY = 0.25;

const USER = 'alice';
const USER_COOKIE = `demo_user=${USER}`;
const API_KEY = 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB';
const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';
/** The form post of the api-key page; the generator fills in each item's token. */
const FORM_BODY = `_csrf={token}&apiKey=${API_KEY}&action=submit`;

const DEMO_ENV = {
  ELICITATION_BENCH: '1',
  ELICITATION_THROTTLE_LIMIT: '1000000000',
  // Also lifts limits.maxPendingPerUser and limits.maxPending to as much (examples/demo/demo-app.ts).
  ELICITATION_CREATE_PER_MINUTE: '1000000000',
  ELICITATION_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
};

let generatorProcess: ChildProcess | undefined;

function killChildren(): void {
  for (const child of liveChildren) child.kill('SIGKILL');
  generatorProcess?.kill('SIGKILL');
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

/**
 * CPU seconds processes have spent on the whole machine (user + system, all CPUs), from /proc/stat. Interrupt time
 * is left out: the loopback traffic of the run itself is handled there, and processes' own figures leave it out too.
 */
function machineCpuSeconds(): number | null {
  try {
    const [user, nice, system] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return (user + nice + system) / 100;
  } catch {
    return null;
  }
}

/** CPU seconds (user + system, every thread) the process has used, from /proc (null where there is none). */
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

// -------------------------------------------------------------------------------------------- pinning

const TASKSET = '/usr/bin/taskset';

/** "0-2,5" → [0, 1, 2, 5]. */
function parseCpuList(list: string): number[] {
  const out: number[] = [];
  for (const part of list.trim().split(',')) {
    const [lo, hi] = part.split('-').map(Number);
    if (!Number.isInteger(lo)) continue;
    for (let c = lo; c <= (Number.isInteger(hi) ? hi : lo); c++) out.push(c);
  }
  return out;
}

/** The CPUs a process may run on (`Cpus_allowed_list` of /proc/<pid>/status), or null where there is none. */
function allowedCpus(pid: number | 'self'): number[] | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const line = /^Cpus_allowed_list:\s*(\S+)/m.exec(status);
    return line ? parseCpuList(line[1]) : null;
  } catch {
    return null;
  }
}

/** Which CPUs the server and the generator get, or why they run unpinned. */
type Pinning = { server: number[]; generator: number[] } | { unpinned: string };

function planPinning(): Pinning {
  if (!existsSync(TASKSET)) return { unpinned: `${TASKSET} not found` };
  const allowed = allowedCpus('self') ?? cpus().map((_, i) => i);
  if (allowed.length < 2) return { unpinned: `only ${allowed.length} CPU available` };
  return { server: allowed.slice(0, 1), generator: allowed.slice(1) };
}

/** Pins every thread of `pid` to `cpus` and checks it took; returns why not when it failed. */
function pin(pid: number, list: number[]): string | null {
  try {
    execFileSync(TASKSET, ['-a', '-p', '-c', list.join(','), String(pid)], { stdio: 'pipe' });
  } catch (error) {
    return `taskset failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
  }
  const now = allowedCpus(pid);
  return now && now.join(',') === list.join(',') ? null : `pid ${pid} runs on CPUs ${now?.join(',') ?? '?'} after taskset`;
}

const describeCpus = (list: number[]) => `CPU${list.length > 1 ? 's' : ''} ${list.join(',')}`;

// ------------------------------------------------------------------------------------------ generator

interface Generator {
  pid: number;
  run(spec: Omit<LoadSpec, 'url' | 'duration' | 'connections'>, url: string, duration: number): Promise<LoadResult>;
  stop(): void;
}

/** Forks the load generator and waits until it is ready. */
async function startGenerator(): Promise<Generator> {
  const child = fork(fileURLToPath(new URL('./load-generator.js', import.meta.url)), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // Structured clone: the POST runs' items travel faster than as JSON.
    serialization: 'advanced',
  });
  generatorProcess = child;
  let pendingReply: { resolve: (r: LoadResult) => void; reject: (e: Error) => void } | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    child.once('exit', (code, signal) => {
      const error = new Error(`the load generator exited (${code ?? signal})`);
      reject(error);
      pendingReply?.reject(error);
    });
    child.on('message', (message: FromGenerator) => {
      if (message.type === 'ready') resolve();
      else if (message.type === 'result') pendingReply?.resolve(message.result);
      else pendingReply?.reject(new Error(`load generator: ${message.message}`));
    });
  });
  await ready;
  return {
    pid: child.pid!,
    run: (spec, url, duration) =>
      new Promise<LoadResult>((resolve, reject) => {
        pendingReply = { resolve, reject };
        const message: ToGenerator = { type: 'run', spec: { ...spec, url, duration, connections: CONNECTIONS } };
        child.send(message);
      }),
    stop: () => {
      child.disconnect();
      generatorProcess = undefined;
    },
  };
}

// ------------------------------------------------------------------------------------------ the app

type Item = [id: string, token: string, cookie: string];

async function call(url: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(url, init);
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  return res;
}

/** Creates `count` pending elicitations in the app, each with the CSRF pair of a page render, SEED_BATCH at a time. */
async function createPending(app: DemoProcess, count: number): Promise<Item[]> {
  const items: Item[] = [];
  while (items.length < count) {
    const batch = Math.min(count - items.length, SEED_BATCH);
    const res = await call(`${app.url}/bench/elicitations`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ count: batch, user: USER }),
    });
    const { items: created } = (await res.json()) as { items: Item[] };
    if (created.length !== batch) throw new Error(`asked for ${batch} elicitations, got ${created.length}`);
    for (const item of created) items.push(item);
  }
  return items;
}

async function clearStore(app: DemoProcess): Promise<void> {
  await call(`${app.url}/bench/elicitations`, { method: 'DELETE' });
}

/** Creates `count` pending records behind the peer-shaped routes (examples/demo/bench-peer.controller.ts); their ids. */
async function createPeerRecords(app: DemoProcess, count: number): Promise<string[]> {
  await call(`${app.url}/bench/peer/records`, { method: 'DELETE' });
  const ids: string[] = [];
  while (ids.length < count) {
    const res = await call(`${app.url}/bench/peer/records`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ count: Math.min(count - ids.length, SEED_BATCH) }),
    });
    ids.push(...((await res.json()) as { ids: string[] }).ids);
  }
  return ids;
}

// ------------------------------------------------------------------------------------------ endpoints

type SecureEndpointName = `secure-${SecureWindow}-${'status' | 'page' | 'post'}`;
type EndpointName =
  | 'baselineJson'
  | 'status'
  | 'baselineHtml'
  | 'page'
  | 'baselinePost'
  | 'post'
  | 'peerStatus'
  | 'peerPage'
  | 'peerPost'
  | SecureEndpointName;

interface Endpoint {
  name: EndpointName;
  label: string;
  /** The process that answers it, when not the demo (the secure-stack baseline). */
  server?: DemoProcess;
  /** The load of one run of `seconds` (untimed: seeds what the run needs first). */
  load(seconds: number): Promise<Omit<LoadSpec, 'url' | 'duration' | 'connections'>>;
  /** Called with each run's result. */
  measured?(result: RunResult): void;
}

interface RunResult extends LoadResult {
  /** Server CPU use during the run, in cores (1 = one core busy all the time). */
  serverCpu: number | null;
  /** CPU the rest of the machine used meanwhile (not the server, the generator or this script), in cores. */
  othersCpu: number | null;
}

async function runLoad(demo: DemoProcess, generator: Generator, endpoint: Endpoint, duration: number): Promise<RunResult> {
  const app = endpoint.server ?? demo;
  const spec = await endpoint.load(duration);
  const serverBefore = cpuSeconds(app.child.pid);
  const machineBefore = machineCpuSeconds();
  const selfBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  const result = await generator.run(spec, app.url, duration);
  const elapsed = seconds(started);
  const serverAfter = cpuSeconds(app.child.pid);
  const machineAfter = machineCpuSeconds();
  const self = process.cpuUsage(selfBefore);
  const serverCpu = serverBefore === null || serverAfter === null ? null : (serverAfter - serverBefore) / elapsed;
  const machineCpu = machineBefore === null || machineAfter === null ? null : (machineAfter - machineBefore) / elapsed;
  const selfCpu = (self.user + self.system) / 1e6 / elapsed;
  const othersCpu = serverCpu === null || machineCpu === null ? null : Math.max(0, machineCpu - serverCpu - result.cpu - selfCpu);
  return { ...result, serverCpu, othersCpu };
}

const get = (path: string, headers: Record<string, string> = {}) => ({ method: 'GET' as const, path, headers });

/** Checks one request of each endpoint answers as expected, and sizes the baselines like the module's answers. */
async function setUp(app: DemoProcess, stacks: SecureStacks): Promise<{ endpoints: Endpoint[]; sizes: string }> {
  // The elicitation whose status and page are loaded (a GET changes nothing); made again after each clear.
  let [target] = await createPending(app, 1);
  const statusPath = () => `/elicit/${target[0]}/status`;
  const pagePath = () => `/elicit/${target[0]}/api-key`;

  const status = await (await call(`${app.url}${statusPath()}`)).text();
  const baselineJson = await (await call(`${app.url}/bench/baseline`)).text();
  const page = await (await call(`${app.url}${pagePath()}`, { headers: { Cookie: USER_COOKIE } })).text();
  const [probeId, probeToken, probeCookie] = (await createPending(app, 1))[0];
  const formBody = FORM_BODY.replace('{token}', probeToken);
  const done = await (
    await call(`${app.url}/elicit/${probeId}/api-key`, {
      method: 'POST',
      headers: { 'Content-Type': FORM_CONTENT_TYPE, Cookie: `${USER_COOKIE}; ${probeCookie}` },
      body: formBody,
    })
  ).text();
  if (!done.includes('The API key was received')) throw new Error(`the probe POST did not complete: ${done.slice(0, 300)}`);
  const sized = (await (
    await call(`${app.url}/bench/baseline/size`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ htmlBytes: Buffer.byteLength(page), doneBytes: Buffer.byteLength(done) }),
    })
  ).json()) as { htmlBytes: number; doneBytes: number };
  const baselineHtml = await (await call(`${app.url}/bench/baseline/html`)).text();
  // The POST baseline gets the very request the module's route got: same headers, same body.
  const postHeaders = { 'Content-Type': FORM_CONTENT_TYPE, Cookie: `${USER_COOKIE}; ${probeCookie}` };
  const baselinePost = await (
    await call(`${app.url}/bench/baseline/post`, { method: 'POST', headers: postHeaders, body: formBody })
  ).text();
  if (Buffer.byteLength(baselinePost) !== sized.doneBytes) {
    throw new Error(
      `the POST baseline answered ${Buffer.byteLength(baselinePost)} bytes, not ${sized.doneBytes}: ${baselinePost.slice(0, 300)}`,
    );
  }
  const sizes =
    `status JSON ${Buffer.byteLength(status)} B vs baseline ${Buffer.byteLength(baselineJson)} B; ` +
    `api-key page ${Buffer.byteLength(page)} B vs baseline ${Buffer.byteLength(baselineHtml)} B; ` +
    `form post ${Buffer.byteLength(formBody)} B → done page ${Buffer.byteLength(done)} B vs baseline ${Buffer.byteLength(baselinePost)} B`;

  let lastPostRate = 0;
  let baselinePostRate = 0;
  let peerPostRate = 0;
  let [peerTarget] = await createPeerRecords(app, 1);
  const peerPage = await (await call(`${app.url}/bench/peer/${peerTarget}/api-key`)).text();
  if (!peerPage.includes('name="apiKey"')) throw new Error(`the peer-shaped page is not a form: ${peerPage.slice(0, 300)}`);
  const peerBody = `elicitationId=x&apiKey=${API_KEY}`;
  const endpoints: Endpoint[] = [
    { name: 'baselineJson', label: 'GET /bench/baseline (JSON)', load: () => Promise.resolve(get('/bench/baseline')) },
    { name: 'status', label: 'GET /elicit/:id/status', load: () => Promise.resolve(get(statusPath())) },
    { name: 'baselineHtml', label: 'GET /bench/baseline/html', load: () => Promise.resolve(get('/bench/baseline/html')) },
    { name: 'page', label: 'GET /elicit/:id/api-key', load: () => Promise.resolve(get(pagePath(), { Cookie: USER_COOKIE })) },
    {
      name: 'baselinePost',
      label: 'POST /bench/baseline/post',
      load: () => Promise.resolve({ method: 'POST', path: '/bench/baseline/post', headers: postHeaders, body: formBody }),
      // Sizes the POST run's seeding (this endpoint runs right before it in every round): the bare route does
      // less work, so the module's route posts fewer, except when the load from elsewhere changed meanwhile.
      measured: (r) => void (baselinePostRate = r.rps),
    },
    {
      name: 'post',
      label: 'POST /elicit/:id/api-key',
      load: async (duration) => {
        await clearStore(app);
        [target] = await createPending(app, 1);
        const count = Math.ceil(Math.max(lastPostRate, baselinePostRate) * duration * SEED_FACTOR) + SEED_MARGIN;
        const t = process.hrtime.bigint();
        const items = await createPending(app, count);
        console.log(`    (seeded ${fmt(count)} pending elicitations with their CSRF pairs in ${seconds(t).toFixed(1)}s)`);
        return {
          method: 'POST',
          path: '/elicit/{id}/api-key',
          headers: { 'Content-Type': FORM_CONTENT_TYPE, Cookie: `${USER_COOKIE}; {cookie}` },
          body: FORM_BODY,
          items,
        };
      },
      // This run's rate sizes the next run's seeding too, in case it outran the baseline.
      measured: (r) => void (lastPostRate = r.rps),
    },
    // The other Nest implementation's shape (examples/demo/bench-peer.controller.ts), for the "vs the peer's shape" rows.
    { name: 'peerStatus', label: 'GET /bench/peer/:id/status', load: () => Promise.resolve(get(`/bench/peer/${peerTarget}/status`)) },
    { name: 'peerPage', label: 'GET /bench/peer/:id/api-key', load: () => Promise.resolve(get(`/bench/peer/${peerTarget}/api-key`)) },
    {
      name: 'peerPost',
      label: 'POST /bench/peer/:id/api-key',
      load: async (duration) => {
        const count = Math.ceil(Math.max(peerPostRate, baselinePostRate) * duration * SEED_FACTOR) + SEED_MARGIN;
        const ids = await createPeerRecords(app, count + 1);
        peerTarget = ids.pop()!;
        return {
          method: 'POST',
          path: '/bench/peer/{id}/api-key',
          headers: { 'Content-Type': FORM_CONTENT_TYPE },
          body: peerBody,
          items: ids.map((id): Item => [id, '', '']),
        };
      },
      measured: (r) => void (peerPostRate = r.rps),
    },
  ];
  for (const window of SECURE_RUNS) {
    endpoints.push(...(await secureStackEndpoints(window, stacks[window]!, () => Math.max(lastPostRate, baselinePostRate))));
  }
  return { endpoints, sizes };
}

/** The secure-stack baseline of each throttler window run (bench/secure-stack/), beside the demo on the same adapter. */
type SecureStacks = Partial<Record<SecureWindow, DemoProcess>>;

/** The message of the bench's elicitations (examples/demo/bench.controller.ts), on the secure stack's records too. */
const SECURE_MESSAGE = 'Enter your github API key so the assistant can connect to github for you.';

/**
 * The status, page and post of one secure stack. Its CSRF pair is bound to the browser (and on Express the user), not
 * to a record: one pair, read from a page as a browser reads it, posts every seeded record. `postRate`: the most the
 * module's post or the POST baseline posted so far, to size the seeding.
 */
async function secureStackEndpoints(window: SecureWindow, stack: DemoProcess, postRate: () => number): Promise<Endpoint[]> {
  const seeded = await seedSecureStack(stack, 2, USER, SECURE_MESSAGE, SEED_BATCH);
  let target = seeded[0];
  const probe = seeded[1];
  const { page, token, cookie } = await secureCsrfPair(stack, target, USER_COOKIE);
  if (!page.includes('name="apiKey"')) throw new Error(`the secure stack's page is not the form: ${page.slice(0, 300)}`);
  // One request of each route, as the load sends them: the status, and a post with the pair.
  const status = await (await call(`${stack.url}/elicit/${target}/status`)).text();
  if (!status.includes('"pending"')) throw new Error(`the secure stack's status is not pending: ${status.slice(0, 300)}`);
  const done = await (
    await call(`${stack.url}/elicit/${probe}/api-key`, {
      method: 'POST',
      headers: { 'Content-Type': FORM_CONTENT_TYPE, Cookie: `${USER_COOKIE}; ${cookie}` },
      body: FORM_BODY.replace('{token}', encodeURIComponent(token)),
    })
  ).text();
  if (!done.includes('The API key was received')) throw new Error(`the secure stack's probe post did not complete: ${done.slice(0, 300)}`);
  if (!SECURE_LOADED.includes(window)) return [];
  const label = `(secure stack, ${SECURE_WINDOWS[window] / 1000} s window)`;
  let lastRate = 0;
  return [
    {
      name: `secure-${window}-status`,
      label: `GET status ${label}`,
      server: stack,
      load: () => Promise.resolve(get(`/elicit/${target}/status`)),
    },
    {
      name: `secure-${window}-page`,
      label: `GET page ${label}`,
      server: stack,
      load: () => Promise.resolve(get(`/elicit/${target}/api-key`, { Cookie: USER_COOKIE })),
    },
    {
      name: `secure-${window}-post`,
      label: `POST page ${label}`,
      server: stack,
      load: async (duration) => {
        const count = Math.ceil(Math.max(lastRate, postRate()) * duration * SEED_FACTOR) + SEED_MARGIN;
        const ids = await seedSecureStack(stack, count + 1, USER, SECURE_MESSAGE, SEED_BATCH);
        target = ids.pop()!;
        return {
          method: 'POST',
          path: '/elicit/{id}/api-key',
          headers: { 'Content-Type': FORM_CONTENT_TYPE, Cookie: `${USER_COOKIE}; ${cookie}` },
          body: FORM_BODY.replace('{token}', encodeURIComponent(token)),
          items: ids.map((id): Item => [id, '', '']),
        };
      },
      measured: (r) => void (lastRate = r.rps),
    },
  ];
}

type Figures = Record<EndpointName, RunResult[]>;

function describeRun(label: string, r: RunResult): string {
  return (
    `    ${label.padEnd(27)} ${fmt(r.rps).padStart(7)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, ` +
    `CPU cores: server ${r.serverCpu === null ? '?' : r.serverCpu.toFixed(2)}, generator ${r.cpu.toFixed(2)}, ` +
    `others ${r.othersCpu === null ? '?' : r.othersCpu.toFixed(2)}` +
    `${r.non2xx + r.errors ? `, ${fmt(r.non2xx)} NON-2xx, ${fmt(r.errors)} errors` : ''}` +
    `${r.ranOutAfter === null ? '' : `, items ran out after ${r.ranOutAfter.toFixed(1)}s`}`
  );
}

async function measureAdapter(adapter: Adapter, generator: Generator, pinning: Pinning, warnings: string[]): Promise<Figures> {
  // The secure stacks share the server's CPU with the demo: only the process under load runs at any time.
  const started = await Promise.allSettled([
    startDemoProcess({ ...DEMO_ENV, ELICITATION_ADAPTER: adapter }),
    ...SECURE_RUNS.map((window) => startSecureStack(adapter, window)),
  ]);
  const servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const [app, ...secure] = servers;
  try {
    for (const s of started) if (s.status === 'rejected') throw s.reason;
    if (!app.output().includes(`, ${adapter})`)) throw new Error(`the demo did not start on ${adapter}:\n${app.output()}`);
    let where = 'unpinned';
    if ('server' in pinning) {
      const failed = servers.map((s) => pin(s.child.pid!, pinning.server)).find((f) => f !== null);
      if (failed) warnings.push(`${adapter} server NOT pinned: ${failed}`);
      else where = `on ${describeCpus(pinning.server)}`;
    }
    const { endpoints, sizes } = await setUp(app, Object.fromEntries(SECURE_RUNS.map((window, i) => [window, secure[i]])));
    console.log(`\n  ${adapter} (pid ${app.child.pid} ${where}, ${app.url}): ${sizes}`);
    const figures = Object.fromEntries(endpoints.map((e) => [e.name, [] as RunResult[]])) as Figures;
    // The smoke has no warm-up run (WARMUP_SECONDS 0): it checks that every route answers, not how fast.
    for (let run = WARMUP_SECONDS > 0 ? 0 : 1; run <= MEASURED_RUNS; run++) {
      const duration = run === 0 ? WARMUP_SECONDS : RUN_SECONDS;
      console.log(`  ${adapter} ${run === 0 ? `warm-up (${WARMUP_SECONDS}s each)` : `run ${run}/${MEASURED_RUNS}`}:`);
      for (const endpoint of endpoints) {
        const r = await runLoad(app, generator, endpoint, duration);
        endpoint.measured?.(r);
        console.log(describeRun(endpoint.label, r));
        progress();
        if (run > 0) figures[endpoint.name].push(r);
      }
    }
    return figures;
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

// ------------------------------------------------------------------------------------------- report

function buildRows(adapter: Adapter, figures: Figures): Row[] {
  const rps = (e: EndpointName) => median(figures[e].map((r) => r.rps));
  const p99 = (e: EndpointName) => median(figures[e].map((r) => r.p99));
  const rows: Row[] = [];
  const baselines = [
    ['baselineJson', 'GET /bench/baseline (JSON)'],
    ['baselineHtml', 'GET /bench/baseline/html'],
    ['baselinePost', 'POST /bench/baseline/post'],
  ] as const;
  for (const [e, label] of baselines) {
    rows.push({ name: `http ${adapter} baseline: ${label}`, value: round(rps(e), 0), unit: 'req/s', baseline: null, ratio: null });
    rows.push({ name: `http ${adapter} baseline: ${label} p99`, value: round(p99(e), 3), unit: 'ms', baseline: null, ratio: null });
  }
  /** A module route's rate against a baseline's: at least `target`. */
  const rateRow = (name: string, e: EndpointName, base: EndpointName, target: number): Row => {
    const ratio = rps(e) / rps(base);
    return {
      name: `http ${adapter} ${name}`,
      value: round(rps(e), 0),
      unit: 'req/s',
      baseline: round(rps(base), 0),
      ratio: round(ratio, 4),
      target: `ratio >= ${target.toFixed(2)}`,
      met: ratio >= target,
    };
  };
  /** A module route's p99 against its baseline's p99: at most P99_TARGET. */
  const p99Row = (name: string, e: EndpointName, base: EndpointName): Row => {
    const ratio = p99(e) / p99(base);
    return {
      name: `http ${adapter} ${name} p99`,
      value: round(p99(e), 3),
      unit: 'ms',
      baseline: round(p99(base), 3),
      ratio: round(ratio, 4),
      target: `ratio <= ${P99_TARGET.toFixed(2)}`,
      met: ratio <= P99_TARGET,
    };
  };
  rows.push(rateRow('GET /elicit/:id/status', 'status', 'baselineJson', STATUS_TARGET));
  rows.push(p99Row('GET /elicit/:id/status', 'status', 'baselineJson'));
  rows.push(rateRow('GET /elicit/:id/api-key (page)', 'page', 'baselineHtml', PAGE_TARGET));
  rows.push(p99Row('GET /elicit/:id/api-key (page)', 'page', 'baselineHtml'));
  rows.push(rateRow('POST /elicit/:id/api-key (submit)', 'post', 'baselinePost', POST_TARGET));
  rows.push(rateRow('POST /elicit/:id/api-key (submit) vs the HTML GET baseline', 'post', 'baselineHtml', POST_VS_GET_TARGET));
  rows.push(p99Row('POST /elicit/:id/api-key (submit)', 'post', 'baselinePost'));
  /** The module's own cost per request (see OWN_COST_TARGET_US), beside the route's ratio. */
  const ownCostRow = (name: string, e: keyof typeof OWN_COST_TARGET_US, base: EndpointName): Row => {
    const us = (1 / rps(e) - 1 / rps(base)) * 1e6;
    const target = OWN_COST_TARGET_US[e];
    return {
      name: `http ${adapter} ${name} own cost per request`,
      value: round(us, 1),
      unit: 'µs',
      baseline: null,
      ratio: null,
      target: `<= ${target} µs`,
      met: us <= target,
    };
  };
  // Against the same route of the other Nest implementation's shape (bench-peer.controller.ts).
  const peer = " vs the other Nest implementation's shape";
  rows.push(rateRow(`GET /elicit/:id/status${peer}`, 'status', 'peerStatus', PEER_TARGET));
  rows.push(rateRow(`GET /elicit/:id/api-key (page)${peer}`, 'page', 'peerPage', PEER_TARGET));
  rows.push(rateRow(`POST /elicit/:id/api-key (submit)${peer}`, 'post', 'peerPost', PEER_TARGET));
  // Against the secure stack a Nest user would build instead (bench/secure-stack/), with each throttler window; its
  // best configuration is the short window (its throttler keeps fewer hits), which carries the target.
  for (const window of SECURE_LOADED) {
    const secure = ` vs the secure stack (${SECURE_WINDOWS[window] / 1000} s window)`;
    const secureRow = (name: string, e: EndpointName, base: EndpointName): Row => {
      const row = rateRow(`${name}${secure}`, e, base, SECURE_TARGET);
      return window === 'short' ? row : { ...row, target: undefined, met: undefined };
    };
    rows.push(secureRow('GET /elicit/:id/status', 'status', `secure-${window}-status`));
    rows.push(secureRow('GET /elicit/:id/api-key (page)', 'page', `secure-${window}-page`));
    rows.push(secureRow('POST /elicit/:id/api-key (submit)', 'post', `secure-${window}-post`));
  }
  rows.push(ownCostRow('GET /elicit/:id/status', 'status', 'baselineJson'));
  rows.push(ownCostRow('GET /elicit/:id/api-key (page)', 'page', 'baselineHtml'));
  rows.push(ownCostRow('POST /elicit/:id/api-key (submit)', 'post', 'baselinePost'));
  return rows;
}

/** Per endpoint, the median server and generator CPU of the measured runs (printed: is the server the bottleneck?). */
function cpuSummary(adapter: Adapter, figures: Figures): string {
  const cores = (values: Array<number | null>) => {
    const known = values.filter((c): c is number => c !== null);
    return known.length ? median(known).toFixed(2) : '?';
  };
  const parts = Object.entries(figures).map(
    ([name, runs]) =>
      `${name} ${cores(runs.map((r) => r.serverCpu))}/${cores(runs.map((r) => r.cpu))}/${cores(runs.map((r) => r.othersCpu))}`,
  );
  return `  ${adapter} median CPU in cores, server/generator/others: ${parts.join(', ')}`;
}

/** What a reader of one adapter's figures must know: failed answers, and runs the generator or others may have bound. */
function runWarnings(adapter: Adapter, figures: Figures): string[] {
  const out: string[] = [];
  for (const [name, runs] of Object.entries(figures)) {
    const bad = runs.reduce((s, r) => s + r.non2xx + r.errors, 0);
    if (bad) out.push(`${adapter} ${name}: ${bad} non-2xx answers or errors in the measured runs`);
    const silent = runs.filter((r) => r.ok === 0).length;
    if (silent) out.push(`${adapter} ${name}: no 2xx answer at all in ${silent} run(s)`);
    const ranOut = runs.filter((r) => r.ranOutAfter !== null).length;
    if (ranOut) out.push(`${adapter} ${name}: the seeded elicitations ran out in ${ranOut} run(s) (rates taken over the shorter span)`);
  }
  const all = Object.values(figures).flat();
  const busyGenerator = all.filter((r) => r.cpu >= GENERATOR_BUSY).length;
  if (busyGenerator) {
    out.push(
      `${adapter}: the load generator used ${GENERATOR_BUSY}+ of a core in ${busyGenerator} of ${all.length} runs (it may be what limits)`,
    );
  }
  const others = all.map((r) => r.othersCpu ?? 0);
  const busyOthers = others.filter((c) => c >= OTHERS_BUSY).length;
  if (busyOthers) {
    out.push(
      `${adapter}: other processes used ${OTHERS_BUSY}+ of a core in ${busyOthers} of ${all.length} runs ` +
        `(median ${median(others).toFixed(2)} core; they may run on the server's CPU): figures disturbed`,
    );
  }
  return out;
}

async function main(): Promise<void> {
  const started = process.hrtime.bigint();
  if (!existsSync(DEMO_MAIN)) throw new Error(`${DEMO_MAIN} is missing: run "npm run build:demo" first`);
  console.log(
    `http.bench${QUICK ? ' (QUICK)' : ''}: node ${process.version}, autocannon in its own process, ${CONNECTIONS} connections on ` +
      `127.0.0.1, ${ADAPTERS.join(' and ')}; per endpoint 1 warm-up run of ${WARMUP_SECONDS}s + ${MEASURED_RUNS} run(s) of ` +
      `${RUN_SECONDS}s, round robin`,
  );
  const warnings: string[] = [];
  const pinning = planPinning();
  const generator = await startGenerator();
  let pinNote: string;
  if ('server' in pinning) {
    // This script (which seeds between runs) stays off the server's CPU too.
    const failed = pin(generator.pid, pinning.generator) ?? pin(process.pid, pinning.generator);
    if (failed) warnings.push(`load generator NOT pinned: ${failed}`);
    pinNote = failed
      ? `pinning failed (${failed}): server and load generator shared the CPUs`
      : `server pinned to ${describeCpus(pinning.server)}, load generator (autocannon, its own process) to ${describeCpus(pinning.generator)}`;
  } else {
    warnings.push(`UNPINNED (${pinning.unpinned}): the server and the load generator share the CPUs, so the ratios mean little`);
    pinNote = `UNPINNED (${pinning.unpinned}): server and load generator shared the CPUs`;
  }
  console.log(`  ${cpus().length} CPUs; ${pinNote}`);
  const busy = await machineBusy();
  console.log(`  ${(busy * 100).toFixed(0)}% of the machine busy before the start`);
  if (busy > 0.2) warnings.push(`${(busy * 100).toFixed(0)}% of the machine was busy before the start: other processes took CPU`);
  for (const w of warnings) console.warn(`  WARNING ${w}`);

  const rows: Row[] = [];
  try {
    for (const adapter of ADAPTERS) {
      const t = process.hrtime.bigint();
      const figures = await measureAdapter(adapter, generator, pinning, warnings);
      console.log(`  ${adapter} done in ${seconds(t).toFixed(1)}s`);
      console.log(cpuSummary(adapter, figures));
      warnings.push(...runWarnings(adapter, figures));
      rows.push(...buildRows(adapter, figures));
    }
  } finally {
    generator.stop();
  }
  console.log(
    `\nMedians of ${MEASURED_RUNS} run(s) (req/s: ratio = value / the bare route's req/s on the same adapter; ` +
      `p99: ratio = p99 / the bare route's p99):\n`,
  );
  printTable(rows);
  for (const line of warnings) console.warn(`  WARNING ${line}`);
  const notes = [
    pinNote,
    `autocannon, ${CONNECTIONS} connections, medians of ${MEASURED_RUNS} run(s) of ${RUN_SECONDS}s per endpoint after a ${WARMUP_SECONDS}s warm-up`,
    // The pinning is in the first note already.
    ...warnings.filter((w) => !w.startsWith('UNPINNED')),
  ];
  const outFile = mergeResults('http.bench', rows, { quick: QUICK, seconds: seconds(started), notes });
  console.log(`\nMerged ${rows.length} rows into ${relative(process.cwd(), outFile) || outFile} in ${seconds(started).toFixed(1)}s total.`);
}

try {
  await main();
} finally {
  killChildren();
}
