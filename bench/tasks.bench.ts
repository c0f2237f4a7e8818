/**
 * Benchmark: `tasks/get` on a waiting task, what every waiting Tasks client sends every `pollIntervalMs`, against a
 * trivial `tools/call` on the same server (the demo's `whoami`, through the same binding and guards).
 *
 *   npm run bench            (all benchmarks; or alone, after `npm run build:demo`:
 *                             `node --expose-gc dist-demo/bench/tasks.bench.js [--quick]`)
 *
 * Measures, on loopback, protocol 2026-07-28 over plain HTTP (JSON answers), the memory store:
 *  1. requests per CPU-second of the server (#46: "per core"): the demo in a process of its own, loaded by autocannon
 *     from this one, its CPU read from /proc before and after each run, so the figure does not depend on where the
 *     load generator runs; the two kinds of request alternate, RUNS runs each, medians;
 *  2. store calls per request, counted: the demo in this process, every method of its store counted while
 *     COUNTED requests of each kind are sent one after the other.
 *
 * Targets (reported, never enforced): `tasks/get` at ≥ 0.8× the trivial call's requests per CPU-second; one store call
 * per `tasks/get`.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import autocannon from 'autocannon';
import { startDemoApp } from '../examples/demo/demo-app.js';
import { liveChildren, startDemoProcess } from '../examples/demo/demo-process.js';
import { ElicitationStore } from '../src/stores/elicitation-store.js';
import { bySize, fmt, median, mergeResults, printTable, QUICK, round, seconds, startWatchdog, type Row } from './bench-kit.js';
import { DEMO_LIMITS_ENV } from './cross-instance.js';

const RUNS = bySize(5, 2, 1);
const RUN_SECONDS = bySize(4, 2, 1);
const CONNECTIONS = 16;
const COUNTED = bySize(500, 100, 20);
const PER_CORE_TARGET = 0.8;
const STORE_CALLS_TARGET = 1;
const USER = 'bench-poller';
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

const progress = startWatchdog('tasks.bench', 300_000, () => {
  for (const child of liveChildren) child.kill('SIGKILL');
  process.exit(1);
});

/** One 2026-07-28 request: its headers (method and target named) and its JSON body, the envelope in `_meta`. */
function request(method: string, target: string, params: Record<string, unknown>) {
  return {
    headers: {
      authorization: `Bearer ${USER}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      'mcp-name': target,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'tasks-bench', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {}, url: {} }, extensions: { [TASKS_EXTENSION]: {} } },
        },
      },
    }),
  };
}

type Shaped = ReturnType<typeof request>;

/** Sends one request; its JSON-RPC result (throws on an error answer). */
async function send(mcpUrl: string, shaped: Shaped): Promise<Record<string, unknown>> {
  const response = await fetch(mcpUrl, { method: 'POST', headers: shaped.headers, body: shaped.body });
  const message = (await response.json()) as { result?: Record<string, unknown>; error?: { message: string } };
  if (!response.ok || message.error) throw new Error(`${response.status} ${message.error?.message ?? JSON.stringify(message)}`);
  return message.result ?? {};
}

/** A `plan-release` task waiting at its first question (`input_required`), and the two requests to compare. */
async function waitingTask(mcpUrl: string): Promise<{ get: Shaped; call: Shaped }> {
  const created = await send(mcpUrl, request('tools/call', 'plan-release', { name: 'plan-release', arguments: { app: 'shop' } }));
  if (created.resultType !== 'task') throw new Error(`plan-release did not run as a task: ${JSON.stringify(created)}`);
  const taskId = String(created.taskId);
  const get = request('tasks/get', taskId, { taskId });
  for (let tries = 0; (await send(mcpUrl, get)).status !== 'input_required'; tries++) {
    if (tries > 100) throw new Error('the task did not reach input_required');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { get, call: request('tools/call', 'whoami', { name: 'whoami', arguments: {} }) };
}

/** CPU seconds a process has used (user + system), from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime, fields 14 and 15 of the line (11 and 12 after the command); clock ticks of 1/100 s on Linux.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** One load run: answers per CPU-second of the server, and answers per second. */
async function loadRun(url: string, pid: number, shaped: Shaped): Promise<{ perCpu: number; rps: number }> {
  const before = cpuSeconds(pid);
  const result = await autocannon({
    url: `${url}/mcp`,
    connections: CONNECTIONS,
    duration: RUN_SECONDS,
    requests: [{ method: 'POST', headers: shaped.headers, body: shaped.body }],
  });
  const cpu = cpuSeconds(pid) - before;
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return { perCpu: result['2xx'] / cpu, rps: result['2xx'] / result.duration };
}

/** Store calls per request of each kind, counted on the store of a demo in this process. */
async function storeCalls(): Promise<{ get: number; call: number }> {
  const demo = await startDemoApp({ port: 0, logger: false, oidc: false, throttleLimit: 1_000_000, createPerMinute: 1_000_000 });
  try {
    const store = demo.app.get<ElicitationStore, Record<string, unknown>>(ElicitationStore);
    let calls = 0;
    const names = new Set<string>();
    for (let proto: object | null = Object.getPrototypeOf(store) as object; proto !== Object.prototype;) {
      for (const name of Object.getOwnPropertyNames(proto)) names.add(name);
      proto = Object.getPrototypeOf(proto) as object | null;
      if (!proto) break;
    }
    for (const name of names) {
      const method = store[name];
      if (name === 'constructor' || typeof method !== 'function' || Object.hasOwn(store, name)) continue;
      store[name] = (...args: unknown[]) => (calls++, (method as (...a: unknown[]) => unknown).apply(store, args));
    }
    const { get, call } = await waitingTask(demo.mcpUrl);
    const count = async (shaped: Shaped) => {
      calls = 0;
      for (let i = 0; i < COUNTED; i++) await send(demo.mcpUrl, shaped);
      return calls / COUNTED;
    };
    return { get: await count(get), call: await count(call) };
  } finally {
    await demo.app.close();
  }
}

async function main(): Promise<void> {
  const started = process.hrtime.bigint();
  console.log(`tasks.bench${QUICK ? ' (QUICK)' : ''}: node ${process.version}`);
  const demo = await startDemoProcess({ ...DEMO_LIMITS_ENV });
  let exitCode = 0;
  try {
    const pid = demo.child.pid!;
    const { get, call } = await waitingTask(demo.mcpUrl);
    console.log(`\n1. requests per CPU-second of the server, ${CONNECTIONS} connections, ${RUN_SECONDS} s runs:`);
    const figures = { get: [] as number[], call: [] as number[], getRps: [] as number[], callRps: [] as number[] };
    for (let run = 0; run <= RUNS; run++) {
      const a = await loadRun(demo.url, pid, get);
      const b = await loadRun(demo.url, pid, call);
      progress();
      console.log(
        `  ${run === 0 ? 'warm-up ' : `run ${run}/${RUNS}`}: tasks/get ${fmt(a.perCpu)}/CPU-s (${fmt(a.rps)}/s), ` +
          `tools/call whoami ${fmt(b.perCpu)}/CPU-s (${fmt(b.rps)}/s)`,
      );
      if (run === 0) continue;
      figures.get.push(a.perCpu);
      figures.call.push(b.perCpu);
      figures.getRps.push(a.rps);
      figures.callRps.push(b.rps);
    }
    console.log(`\n2. store calls per request (${COUNTED} of each, a demo in this process):`);
    const counted = await storeCalls();
    console.log(`  tasks/get ${counted.get}, tools/call whoami ${counted.call}`);
    progress();
    const perCpu = median(figures.get);
    const basePerCpu = median(figures.call);
    const rows: Row[] = [
      {
        name: 'tasks tasks/get on a waiting task, requests per server CPU-second, vs a trivial tools/call',
        value: round(perCpu, 0),
        unit: 'req/CPU-s',
        baseline: round(basePerCpu, 0),
        ratio: round(perCpu / basePerCpu, 4),
        target: `ratio >= ${PER_CORE_TARGET}`,
        met: perCpu / basePerCpu >= PER_CORE_TARGET,
      },
      {
        name: 'tasks baseline: tools/call whoami (asks nothing), requests per server CPU-second',
        value: round(basePerCpu, 0),
        unit: 'req/CPU-s',
        baseline: null,
        ratio: null,
      },
      {
        name: `tasks tasks/get on a waiting task, ${CONNECTIONS} connections`,
        value: round(median(figures.getRps), 0),
        unit: 'req/s',
        baseline: round(median(figures.callRps), 0),
        ratio: round(median(figures.getRps) / median(figures.callRps), 4),
      },
      {
        name: 'tasks store calls per tasks/get (counted)',
        value: round(counted.get, 3),
        unit: 'calls/req',
        baseline: null,
        ratio: null,
        target: `== ${STORE_CALLS_TARGET.toFixed(1)}`,
        met: Math.abs(counted.get - STORE_CALLS_TARGET) < 1e-9,
      },
      {
        name: 'tasks store calls per tools/call whoami (counted)',
        value: round(counted.call, 3),
        unit: 'calls/req',
        baseline: null,
        ratio: null,
      },
    ];
    printTable(rows);
    const outFile = mergeResults('tasks.bench', rows, { quick: QUICK, seconds: seconds(started) });
    console.log(`\nMerged ${rows.length} rows into ${relative(process.cwd(), outFile) || outFile}.`);
  } catch (error) {
    console.error(`tasks.bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    exitCode = 1;
  } finally {
    await demo.stop();
  }
  console.log(`tasks.bench: ${seconds(started).toFixed(1)}s total.`);
  process.exitCode = exitCode;
  process.exit();
}

await main();
