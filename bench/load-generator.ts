/**
 * The HTTP load generator of bench/http.bench.ts, in a process of its own so that it can be pinned to other
 * CPUs than the server it loads (http.bench forks it with an IPC channel and pins it with `taskset`; see the
 * header of http.bench.ts). It waits for run specs and runs autocannon for each:
 *
 *   parent → child   { type: 'run', spec: LoadSpec }        (one run at a time)
 *   child → parent   { type: 'ready' } once, then { type: 'result', result: LoadResult } or
 *                    { type: 'error', message } per run
 *
 * Latencies are those of 2xx answers, recorded per response with sub-millisecond resolution (autocannon's own
 * histogram has 1 ms steps). For `items` runs (the POSTs of the module's form, each of which needs its own pending
 * elicitation and CSRF pair), every request takes the next item and fills it into the templates; when the items
 * run out before the duration, the run stops there and the rate is taken over that span (never replaying an item,
 * which would answer 409).
 */
import autocannon, { type Request } from 'autocannon';

/** One load run. */
export interface LoadSpec {
  /** Origin of the server, e.g. `http://127.0.0.1:3000`. */
  url: string;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Seconds. */
  duration: number;
  connections: number;
  /**
   * One request per item at most: `{id}`, `{token}` and `{cookie}` in `path`, in the header values and in
   * `body` are replaced by the item's fields.
   */
  items?: Array<[id: string, token: string, cookie: string]>;
}

export interface LoadResult {
  /** 2xx answers per second. */
  rps: number;
  /** Percentiles of the 2xx answers' latencies, ms. */
  p50: number;
  p99: number;
  /** 2xx answers counted. */
  ok: number;
  /** Answers with another status. */
  non2xx: number;
  /** Connection errors and timeouts. */
  errors: number;
  /** Seconds the rate is taken over. */
  seconds: number;
  /** CPU the generator used (user + system) over the run, in cores (1 = one core busy all the time). */
  cpu: number;
  /** For `items` runs: seconds after which the items ran out (the run stopped there), or null. */
  ranOutAfter: number | null;
}

export type ToGenerator = { type: 'run'; spec: LoadSpec };
export type FromGenerator = { type: 'ready' } | { type: 'result'; result: LoadResult } | { type: 'error'; message: string };

/** Latencies recorded per run at first; the array doubles when a fast machine answers more. */
const LATENCY_SLOTS = 1_000_000;

/** Nearest-rank percentile of the first `n` sorted values. */
function percentile(sorted: Float64Array, n: number, p: number): number {
  if (n === 0) return NaN;
  return sorted[Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1))];
}

function fill(template: string, [id, token, cookie]: [string, string, string]): string {
  return template.replaceAll('{id}', id).replaceAll('{token}', token).replaceAll('{cookie}', cookie);
}

/** The autocannon request of a spec: fixed, or the next item's for every request. */
function requestOf(spec: LoadSpec, onRanOut: () => void): Request {
  const fixed: Request = { method: spec.method, path: spec.path, headers: spec.headers, body: spec.body };
  const items = spec.items;
  if (!items) return fixed;
  let next = 0;
  return {
    ...fixed,
    setupRequest: (req) => {
      if (next === items.length) onRanOut();
      // Past the end, requests go on until autocannon stops at its next tick; they replay the last item,
      // whose 409s are left out of the result (see `run`).
      const item = items[Math.min(next++, items.length - 1)];
      const headers = Object.fromEntries(Object.entries(spec.headers).map(([k, v]) => [k, fill(v, item)]));
      return { ...req, path: fill(spec.path, item), headers, body: spec.body === undefined ? undefined : fill(spec.body, item) };
    },
  };
}

async function run(spec: LoadSpec): Promise<LoadResult> {
  let latencies = new Float64Array(LATENCY_SLOTS);
  let ok = 0;
  let non2xx = 0;
  let ranOutAt: bigint | null = null;
  let okAtRanOut = 0;
  const cpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  const instance = autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: spec.duration,
    timeout: 10,
    requests: [
      requestOf(spec, () => {
        if (ranOutAt !== null) return;
        ranOutAt = process.hrtime.bigint();
        okAtRanOut = ok;
        instance.stop();
      }),
    ],
  });
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (ranOutAt !== null) return; // answers to requests sent after the items ran out (replays) do not count
    if (status >= 200 && status < 300) {
      if (ok === latencies.length) {
        const grown = new Float64Array(2 * ok);
        grown.set(latencies);
        latencies = grown;
      }
      latencies[ok++] = ms;
    } else non2xx++;
  });
  const result = await instance;
  const ended = process.hrtime.bigint();
  const cpu = process.cpuUsage(cpuBefore);
  const counted = ranOutAt === null ? ok : okAtRanOut;
  const seconds = Number((ranOutAt ?? ended) - started) / 1e9;
  const sorted = latencies.subarray(0, counted).sort();
  return {
    rps: counted / seconds,
    p50: percentile(sorted, counted, 50),
    p99: percentile(sorted, counted, 99),
    ok: counted,
    non2xx,
    errors: result.errors + result.timeouts,
    seconds,
    cpu: (cpu.user + cpu.system) / 1e6 / (Number(ended - started) / 1e9),
    ranOutAfter: ranOutAt === null ? null : seconds,
  };
}

function send(message: FromGenerator): void {
  process.send?.(message);
}

if (!process.send) {
  console.error('load-generator.js runs as a child of http.bench.js (forked with an IPC channel)');
  process.exit(2);
}
process.on('message', (message: ToGenerator) => {
  if (message?.type !== 'run') return;
  run(message.spec).then(
    (result) => send({ type: 'result', result }),
    (error: unknown) => send({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
  );
});
// The parent's exit closes the channel: leave with it.
process.on('disconnect', () => process.exit(0));
send({ type: 'ready' });
