/**
 * Benchmark 3: the Redis store and cross-instance completion, against the real Redis at REDIS_URL.
 *
 *   npm run bench            (all benchmarks; or alone, after `npm run build:demo`:
 *                             `node --expose-gc dist-demo/bench/redis.bench.js [--quick]`)
 *
 * Nothing is pinned: this process, Redis and the two demo processes share the machine's CPUs (on two vCPUs
 * client and server alternate; the ratios of item 3 are taken at the same concurrency in the same run). Fixed
 * counts below, whatever the machine's speed; `--quick` takes a quarter of the operations, one measured run, a
 * tenth of the completions and event hops.
 *
 * Measures, on loopback, under its own unique key prefix (every key deleted at the end):
 *  1. RedisElicitationStore create / finish (complete) / get operations per second at 1 and at 32
 *     concurrent callers (a fixed count per run), next to a raw ioredis EVALSHA of `return 1` at the
 *     same concurrency in the same run (the floor of any scripted operation);
 *  2a. CPU per operation for create, finish and get at 32 callers, in Redis (`INFO cpu`, user + system) and in this
 *     client (process.cpuUsage), next to a raw EVALSHA of `return 1` (target: Redis CPU per finish and per get at
 *     most CPU_RATIO_TARGET times it), without MONITOR or an event channel;
 *  2b. Redis round trips per operation for create, get, finish and findLatestCompleted, with an event
 *     channel open on the store (so create and finish also append their events to the event stream, as
 *     in an app): the commands the store's connection sends, seen by MONITOR (Lua-internal commands
 *     excluded), and next to it the INFO commandstats delta (which also counts every redis.call inside a
 *     script);
 *  3. finish (complete) at 32 callers as a ratio of the raw EVALSHA at 32 callers;
 *  4. cross-instance completion latency at 32 concurrent answers: two demo processes on one Redis, a real SDK 1.x
 *     client on A, the api-key pages submitted on B 32 at once (bench/cross-instance.ts); from just before each POST
 *     to its notification at the client; and the CPU each instance spent per answer meanwhile;
 *  5. the event hop alone, against the pub/sub hop the store used before as the baseline, in the same run:
 *     an event appended by the store's append script and read by another store's channel (XREAD BLOCK on
 *     its reader connection, message opened), and the same message PUBLISHed from a script to a raw
 *     subscriber (message opened alike); from just before the script call to the opened event.
 *
 * Medians of MEASURED_RUNS runs, each after a warm-up. Prints a table and merges its rows (names start
 * with "redis") into `bench/results/latest.json`. Targets: finish (complete) at 32 callers at RATIO_TARGET of
 * the raw EVALSHA or more, Redis CPU per finish and get within CPU_RATIO_TARGET of it, one round trip per operation,
 * the cross-instance p99 within LATENCY_P99_TARGET;
 * reported, never enforced. Without a Redis at REDIS_URL it says so and exits 0 with no Redis rows.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import type { ElicitationEvent, ElicitationRecord } from '../src/index.js';
import { RedisElicitationStore } from '../src/redis/index.js';
import { EVENT_FIELD } from '../src/redis/redis.lua-parts.js';
import { decodeEventMessage, encodeEventMessage, eventMessageHead } from '../src/stores/event-wire.js';
import { keySpace } from '../src/redis/redis.key-space.js';
import { StoreKeyRing } from '../src/security/store-key-ring.js';
import { DEMO_MAIN, liveChildren } from '../examples/demo/demo-process.js';
import { bySize, fmt, fullGc, median, mergeResults, printTable, QUICK, round, seconds, startWatchdog, type Row } from './bench-kit.js';
import { DEMO_LIMITS_ENV, type Latency, measureCrossInstance, percentile } from './cross-instance.js';

// ---------------------------------------------------------------------------------------------- setup

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const RUN_ID = randomUUID().slice(0, 8);
/** Key prefix of the store measurements, and of the two demo processes. */
const PREFIX = `bench-redis-${RUN_ID}`;
const DEMO_PREFIX = `bench-redis-${RUN_ID}-demo`;

const MEASURED_RUNS = QUICK ? 1 : 3;
/** Operations per run (and per warm-up), per concurrency. */
const OPS: Record<number, number> = bySize({ 1: 4_000, 32: 24_000 }, { 1: 1_000, 32: 6_000 }, { 1: 200, 32: 1_280 });
/** Slices each run is interleaved in (see throughputRun). */
const SEGMENTS = 4;
const CONCURRENCIES = [1, 32] as const;
/** Operations of each kind counted for round trips. */
const RT_OPS = bySize(500, 100, 20);
/** Elicitations in the cross-instance latency measurement, after LATENCY_WARMUP unmeasured ones. */
const LATENCY_N = bySize(1_024, 128, 32);
const LATENCY_WARMUP = bySize(128, 32, 8);
/** Events per transport in the event-hop measurement, after HOP_WARMUP unmeasured ones, in HOP_BLOCKS alternating blocks. */
const HOP_N = bySize(2_000, 200, 40);
const HOP_WARMUP = bySize(200, 20, 5);
const HOP_BLOCKS = bySize(10, 2, 2);
/**
 * REDIS_BENCH_BREAKDOWN=1 also reads the demo's event stream from this process and splits each latency at
 * the moment the "completed" event reaches a reader: POST → event read (instance B: HTTP, page handler, store
 * round trips) and event read → notification (instance A: stream read, SSE write; the client: SSE parse).
 * Off by default: the extra reader runs on the client's event loop.
 */
const BREAKDOWN = process.env.REDIS_BENCH_BREAKDOWN === '1';
/** Gives up after this long without a finished step (a hang; the longest, the 1,000 completions, takes well under a minute). */
const IDLE_LIMIT_MS = 150_000;

const RATIO_TARGET = 0.7; // finish at 32 callers / raw EVALSHA at 32 callers, at least
const ROUND_TRIPS_TARGET = 1; // per operation, exactly
const LATENCY_P99_TARGET = 10; // ms, at most
const CPU_RATIO_TARGET = 2; // Redis CPU per finish and per get / per raw EVALSHA, at most (#31)

const TTL_MS = 10 * 60_000;
const RETENTION_MS = 10 * 60_000;
const MESSAGE = 'Enter your github API key so the assistant can connect to github for you.';
const API_KEY = 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB';
const USERS = 8;
const TYPES = 4;

// --------------------------------------------------------------------------------- cleanup & watchdog

const connections = new Set<Redis>();
let cleanedUp = false;

/** Deletes every key of one prefix (its hash-tagged key space). */
async function deletePrefix(redis: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `{${prefix}}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) deleted += await redis.unlink(...keys);
  } while (cursor !== '0');
  return deleted;
}

/** Kills the demo processes still running (synchronous: safe in an exit handler). */
function killChildren(): void {
  for (const child of liveChildren) child.kill('SIGKILL');
}

/** Kills the demo processes, deletes this run's keys and closes every connection. Runs once. */
async function cleanUp(): Promise<void> {
  if (cleanedUp) return;
  cleanedUp = true;
  killChildren();
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, connectTimeout: 2_000, commandTimeout: 5_000 });
  redis.on('error', () => undefined);
  try {
    const deleted = (await deletePrefix(redis, PREFIX)) + (await deletePrefix(redis, DEMO_PREFIX));
    console.log(`  deleted ${deleted} keys of {${PREFIX}} and {${DEMO_PREFIX}}`);
  } catch (error) {
    console.error(`  could not delete the keys of {${PREFIX}} / {${DEMO_PREFIX}}: ${String(error)}`);
  } finally {
    redis.disconnect();
    for (const c of connections) c.disconnect();
  }
}

const progress = startWatchdog('redis.bench', IDLE_LIMIT_MS, () => {
  const hardStop = setTimeout(() => process.exit(1), 5_000);
  hardStop.unref();
  void cleanUp().finally(() => process.exit(1));
});
process.once('exit', killChildren);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void cleanUp().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143)));
}

function connect(options: Record<string, unknown> = {}): Redis {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, connectTimeout: 5_000, commandTimeout: 10_000, ...options });
  redis.on('error', () => undefined);
  connections.add(redis);
  return redis;
}

async function redisAnswers(): Promise<boolean> {
  const probe = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1_000, retryStrategy: () => null });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

// ------------------------------------------------------------------------------------------- helpers

/** Nearest-rank percentile of sorted values. */

/** Runs `op(lo..hi-1)` with `concurrency` callers, each awaiting its call before taking the next index. Returns seconds. */
async function timed(lo: number, hi: number, concurrency: number, op: (i: number) => Promise<void>): Promise<number> {
  let next = lo;
  const caller = async () => {
    for (let i = next++; i < hi; i = next++) await op(i);
  };
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: Math.min(concurrency, hi - lo) }, caller));
  return seconds(start);
}

function newRecord(i: number, now: number): ElicitationRecord {
  const service = `svc${i % TYPES}`;
  return {
    id: randomUUID(),
    kind: 'api-key',
    userId: `bench-user-${i % USERS}`,
    type: `api-key-${service}`,
    message: MESSAGE,
    metadata: { service },
    status: 'pending',
    createdAt: now,
    expiresAt: now + TTL_MS,
    purgeAt: now + TTL_MS + RETENTION_MS,
    sessionId: randomUUID(),
  };
}

/**
 * store.create, failing on any outcome other than a stored record (it resolves `void`, `'created'`, or with an event
 * channel open `{ result: 'created', eventSent: true }`, by version).
 */
async function create(store: RedisElicitationStore, record: ElicitationRecord): Promise<void> {
  const answer: unknown = await store.create(record);
  const result = typeof answer === 'object' && answer !== null && 'result' in answer ? answer.result : answer;
  if (result !== undefined && result !== 'created') throw new Error(`create ${record.id}: ${JSON.stringify(answer)}`);
}

// --------------------------------------------------------------------- 1 + 3: store throughput vs raw

type OpName = 'create' | 'finish' | 'get' | 'raw';
type Figures = Record<OpName, Record<number, number[]>>;

/**
 * One run at one concurrency: n records created, finished, read, and n raw EVALSHAs, interleaved in
 * SEGMENTS slices (create, finish, get, raw on slice 1, then slice 2, ...) so that a burst of load
 * from elsewhere on the machine hits every operation alike. Returns ops/s of each.
 */
async function throughputRun(
  store: RedisElicitationStore,
  raw: Redis,
  sha: string,
  cleaner: Redis,
  concurrency: number,
): Promise<Record<OpName, number>> {
  const n = OPS[concurrency];
  const now = Date.now();
  const records = Array.from({ length: n }, (_, i) => newRecord(i, now));
  fullGc();
  const spent: Record<OpName, number> = { create: 0, finish: 0, get: 0, raw: 0 };
  for (let s = 0; s < SEGMENTS; s++) {
    const lo = Math.floor((s * n) / SEGMENTS);
    const hi = Math.floor(((s + 1) * n) / SEGMENTS);
    spent.create += await timed(lo, hi, concurrency, (i) => create(store, records[i]));
    spent.finish += await timed(lo, hi, concurrency, async (i) => {
      const t = Date.now();
      const result = await store.finish(records[i].id, {
        status: 'completed',
        data: { apiKey: API_KEY },
        now: t,
        purgeAt: t + RETENTION_MS,
      });
      if (!result.ok) throw new Error(`finish ${records[i].id}: ${result.reason}`);
    });
    spent.get += await timed(lo, hi, concurrency, async (i) => {
      const record = await store.get(records[i].id, Date.now());
      if (record?.status !== 'completed') throw new Error(`get ${records[i].id}: ${record?.status}`);
    });
    spent.raw += await timed(lo, hi, concurrency, async () => {
      if ((await raw.evalsha(sha, 0)) !== 1) throw new Error('raw EVALSHA did not return 1');
    });
  }
  // Every run starts from an empty key space.
  await deletePrefix(cleaner, PREFIX);
  return { create: n / spent.create, finish: n / spent.finish, get: n / spent.get, raw: n / spent.raw };
}

async function measureThroughput(store: RedisElicitationStore, raw: Redis, sha: string, cleaner: Redis): Promise<Figures> {
  const figures: Figures = { create: {}, finish: {}, get: {}, raw: {} };
  for (const c of CONCURRENCIES) for (const op of Object.keys(figures) as OpName[]) figures[op][c] = [];
  for (let run = 0; run <= MEASURED_RUNS; run++) {
    for (const c of CONCURRENCIES) {
      const r = await throughputRun(store, raw, sha, cleaner, c);
      const label = run === 0 ? 'warm-up ' : `run ${run}/${MEASURED_RUNS}`;
      console.log(
        `  ops/s ${label}, ${String(c).padStart(2)} caller${c > 1 ? 's' : ' '}: create ${fmt(r.create)}, finish ${fmt(r.finish)}, ` +
          `get ${fmt(r.get)}, raw EVALSHA ${fmt(r.raw)} (finish/raw ${(r.finish / r.raw).toFixed(3)})`,
      );
      progress();
      if (run === 0) continue;
      for (const op of Object.keys(r) as OpName[]) figures[op][c].push(r[op]);
    }
  }
  return figures;
}

// ------------------------------------------------------------------------------ 2b: CPU per operation

type CpuOp = 'create' | 'finish' | 'get' | 'raw';
/** Per operation, in µs: Redis's CPU (`INFO cpu`, user + system, the whole server) and this client's (process.cpuUsage). */
type CpuFigures = Record<CpuOp, { redis: number[]; client: number[] }>;

/** Operations of each kind per CPU run (32 callers): enough for `INFO cpu`'s microsecond counters to settle. */
const CPU_OPS = QUICK ? 4_000 : 20_000;

/** used_cpu_user + used_cpu_sys of `INFO cpu`, in seconds. */
function redisCpuSeconds(info: string): number {
  const field = (name: string) => Number(new RegExp(`^${name}:([0-9.]+)`, 'm').exec(info)?.[1] ?? NaN);
  return field('used_cpu_user') + field('used_cpu_sys');
}

/**
 * What each operation costs in CPU, in Redis and in this client, next to a raw EVALSHA of `return 1` (#31: a finish
 * cost 3-4 times as much in both). Without MONITOR (which costs Redis CPU itself) and without an event channel:
 * CPU_OPS operations of each kind at 32 callers, between two `INFO cpu` on a connection of its own; MEASURED_RUNS runs.
 */
async function measureCpu(store: RedisElicitationStore, raw: Redis, sha: string, cleaner: Redis): Promise<CpuFigures> {
  const infoConn = connect();
  const out: CpuFigures = {
    create: { redis: [], client: [] },
    finish: { redis: [], client: [] },
    get: { redis: [], client: [] },
    raw: { redis: [], client: [] },
  };
  try {
    for (let run = 0; run <= MEASURED_RUNS; run++) {
      const now = Date.now();
      const records = Array.from({ length: CPU_OPS }, (_, i) => newRecord(i, now));
      const ops: Record<CpuOp, (i: number) => Promise<void>> = {
        create: (i) => create(store, records[i]),
        finish: async (i) => {
          const t = Date.now();
          const result = await store.finish(records[i].id, {
            status: 'completed',
            data: { apiKey: API_KEY },
            now: t,
            purgeAt: t + RETENTION_MS,
          });
          if (!result.ok) throw new Error(`finish ${records[i].id}: ${result.reason}`);
        },
        get: async (i) => {
          if ((await store.get(records[i].id, Date.now()))?.status !== 'completed') throw new Error(`get ${records[i].id}: not completed`);
        },
        raw: async () => {
          if ((await raw.evalsha(sha, 0)) !== 1) throw new Error('raw EVALSHA did not return 1');
        },
      };
      const line: string[] = [];
      for (const op of Object.keys(ops) as CpuOp[]) {
        fullGc();
        const redisBefore = redisCpuSeconds(await infoConn.info('cpu'));
        const clientBefore = process.cpuUsage();
        await timed(0, CPU_OPS, 32, ops[op]);
        const client = process.cpuUsage(clientBefore);
        const redisUs = ((redisCpuSeconds(await infoConn.info('cpu')) - redisBefore) * 1e6) / CPU_OPS;
        const clientUs = (client.user + client.system) / CPU_OPS;
        line.push(`${op} ${redisUs.toFixed(1)}/${clientUs.toFixed(1)}`);
        if (run > 0) {
          out[op].redis.push(redisUs);
          out[op].client.push(clientUs);
        }
      }
      console.log(`  CPU µs per op, Redis/client, ${run === 0 ? 'warm-up' : `run ${run}/${MEASURED_RUNS}`}: ${line.join(', ')}`);
      await deletePrefix(cleaner, PREFIX);
      progress();
    }
    return out;
  } finally {
    infoConn.disconnect();
  }
}

// ----------------------------------------------------------------------------------- 2: round trips

type RtOp = 'create' | 'get' | 'finish' | 'findLatestCompleted';

interface RoundTrips {
  /** Commands the store's connection sent per operation (MONITOR), or null when MONITOR is refused. */
  roundTrips: number | null;
  /** INFO commandstats: calls of every command per operation, Lua-internal ones included. */
  commandstats: number;
  /** The commandstats delta per command, per operation (for the log). */
  perCommand: Record<string, number>;
}

function parseCommandstats(info: string): Map<string, number> {
  const calls = new Map<string, number>();
  for (const line of info.split(/\r?\n/)) {
    const m = /^cmdstat_([^:]+):calls=(\d+)/.exec(line);
    if (m) calls.set(m[1], Number(m[2]));
  }
  return calls;
}

/**
 * Counts what N operations of one kind cost in Redis. Between two INFO calls on `infoConn`: the
 * commandstats delta (minus the first INFO itself), and the commands MONITOR saw from the store's own
 * connection (source = its local port; Lua-internal commands show as source "lua" and are not counted).
 */
async function countRoundTrips(
  infoConn: Redis,
  monitor: MonitorTap | null,
  n: number,
  op: (i: number) => Promise<void>,
): Promise<RoundTrips> {
  const marksBefore = monitor?.marks.length ?? 0;
  const before = parseCommandstats(await infoConn.info('commandstats'));
  for (let i = 0; i < n; i++) await op(i);
  const after = parseCommandstats(await infoConn.info('commandstats'));
  let total = 0;
  const perCommand: Record<string, number> = {};
  for (const [name, calls] of after) {
    const delta = calls - (before.get(name) ?? 0) - (name === 'info' ? 1 : 0);
    if (delta > 0) {
      total += delta;
      perCommand[name] = delta / n;
    }
  }
  let roundTrips: number | null = null;
  if (monitor) {
    await monitor.waitForMarks(marksBefore + 2);
    roundTrips = (monitor.marks[marksBefore + 1] - monitor.marks[marksBefore]) / n;
  }
  return { roundTrips, commandstats: total / n, perCommand };
}

/** A MONITOR connection counting the store connection's commands, with a mark at each INFO of `infoConn`. */
interface MonitorTap {
  /** The store-connection command count at each INFO seen from the INFO connection. */
  marks: number[];
  waitForMarks(count: number): Promise<void>;
  close(): void;
}

async function openMonitor(storePort: number, infoPort: number): Promise<MonitorTap | null> {
  const base = connect();
  let monitor: Redis;
  try {
    monitor = await base.monitor();
  } catch (error) {
    console.warn(`  MONITOR refused (${String(error)}): round trips are not counted, only commandstats`);
    base.disconnect();
    return null;
  }
  connections.add(monitor);
  const storeSuffix = `:${storePort}`;
  const infoSuffix = `:${infoPort}`;
  let storeCommands = 0;
  const marks: number[] = [];
  let wake: (() => void) | undefined;
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (source.endsWith(storeSuffix)) storeCommands++;
    else if (source.endsWith(infoSuffix) && String(args[0]).toLowerCase() === 'info') {
      marks.push(storeCommands);
      wake?.();
    }
  });
  return {
    marks,
    waitForMarks: async (count) => {
      const deadline = Date.now() + 5_000;
      while (marks.length < count) {
        if (Date.now() > deadline) throw new Error('MONITOR did not report the INFO marks within 5 s');
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 50);
        });
      }
    },
    close: () => {
      monitor.disconnect();
      base.disconnect();
    },
  };
}

async function measureRoundTrips(store: RedisElicitationStore, cleaner: Redis): Promise<Record<RtOp, RoundTrips>> {
  const infoConn = connect();
  await infoConn.ping();
  const storeRedis = store.redis as Redis;
  await store.ping();
  const storePort = storeRedis.stream?.localPort;
  const infoPort = infoConn.stream?.localPort;
  const monitor = storePort && infoPort ? await openMonitor(storePort, infoPort) : null;
  // As in an app: with the module's event channel open, create and finish append their events from their scripts.
  const channel = await store.openEventChannel(() => undefined);
  try {
    const userId = 'bench-rt-user';
    const type = 'api-key-rt';
    const make = (count: number) => {
      const now = Date.now();
      return Array.from({ length: count }, (_, i) => ({ ...newRecord(i, now), userId, type }));
    };
    const complete = (id: string) => {
      const t = Date.now();
      return store.finish(id, { status: 'completed', data: { apiKey: API_KEY }, now: t, purgeAt: t + RETENTION_MS });
    };
    // Warm-up: every script once, so each later call is one EVALSHA (the first can be EVALSHA → NOSCRIPT → EVAL).
    for (const r of make(20)) {
      await create(store, r);
      await store.get(r.id, Date.now());
      await complete(r.id);
      await store.findLatestCompleted(userId, type, Date.now());
    }
    await deletePrefix(cleaner, PREFIX);
    // One completed answer for findLatestCompleted to find.
    const [answer] = make(1);
    await create(store, answer);
    await complete(answer.id);

    const records = make(RT_OPS);
    const out = {} as Record<RtOp, RoundTrips>;
    out.create = await countRoundTrips(infoConn, monitor, RT_OPS, (i) => create(store, records[i]));
    out.get = await countRoundTrips(infoConn, monitor, RT_OPS, async (i) => {
      if (!(await store.get(records[i].id, Date.now()))) throw new Error('get: record missing');
    });
    out.finish = await countRoundTrips(infoConn, monitor, RT_OPS, async (i) => {
      if (!(await complete(records[i].id)).ok) throw new Error('finish failed');
    });
    out.findLatestCompleted = await countRoundTrips(infoConn, monitor, RT_OPS, async () => {
      if (!(await store.findLatestCompleted(userId, type, Date.now()))) throw new Error('findLatestCompleted found nothing');
    });
    for (const [op, r] of Object.entries(out)) {
      const detail = Object.entries(r.perCommand)
        .sort((a, b) => b[1] - a[1])
        .map(([name, per]) => `${name} ${per.toFixed(2)}`)
        .join(', ');
      console.log(
        `  ${op}: ${r.roundTrips === null ? 'round trips not counted' : `${r.roundTrips.toFixed(3)} round trips/op`}; ` +
          `commandstats ${r.commandstats.toFixed(2)} calls/op (${detail})`,
      );
    }
    progress();
    return out;
  } finally {
    await channel.close();
    monitor?.close();
    await deletePrefix(cleaner, PREFIX);
  }
}

// ----------------------------------------------------------------------- 4: cross-instance latency

/** Cross-instance completion on Redis (bench/cross-instance.ts), with the stream breakdown when asked for. */
function measureLatency(): Promise<Latency> {
  return measureCrossInstance({
    // One encryptionKey for both instances: each opens the records and events the other sealed.
    env: {
      ELICITATION_STORE: 'redis',
      REDIS_URL,
      ELICITATION_REDIS_PREFIX: DEMO_PREFIX,
      ELICITATION_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      ...DEMO_LIMITS_ENV,
    },
    n: LATENCY_N,
    warmup: LATENCY_WARMUP,
    progress,
    breakdown: BREAKDOWN ? readCompletedEvents : undefined,
  });
}

/** Reads the demo's event stream from this process, calling `seen` for each "completed" event (the breakdown). */
function readCompletedEvents(seen: (elicitationId: string, at: number) => void): () => void {
  const reader = connect({ commandTimeout: 30_000 });
  const stream = keySpace(DEMO_PREFIX).events;
  let stopped = false;
  let lastId = '$';
  void (async () => {
    while (!stopped) {
      const reply = await reader.xread('COUNT', 100, 'BLOCK', 1_000, 'STREAMS', stream, lastId).catch(() => null);
      const at = performance.now();
      for (const [id, fields] of reply?.[0]?.[1] ?? []) {
        lastId = id;
        const { event } = JSON.parse(fields[1]) as { event?: { type?: string; elicitationId?: string } };
        if (event?.type === 'completed' && event.elicitationId) seen(event.elicitationId, at);
      }
    }
  })();
  return () => {
    stopped = true;
    reader.disconnect();
  };
}

// ------------------------------------------------------------------------------------- 5: event hop

interface Hop {
  p50: number;
  p99: number;
  max: number;
}

function hopFigures(samples: number[]): Hop {
  const sorted = [...samples].sort((x, y) => x - y);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] };
}

/**
 * One event at a time, HOP_WARMUP + HOP_N per transport, the two transports alternating in HOP_BLOCKS blocks
 * so that load from elsewhere on the machine hits both alike. Each event has its own elicitation id (readers
 * drop a repeated one). Stream: store B's channel appends (its append script: XADD, the TTL, now and then XTRIM) and store A's
 * channel reads it on its reader connection (XREAD BLOCK) and opens it (B's own reader reads it too, and skips
 * it). Pub/sub, as the store did before: the message for the same event, sealed alike, PUBLISHed from a script
 * (as the finish script did) to a raw subscriber that opens it alike, with a second subscriber standing for the
 * sender's own subscription (which received and opened its own messages).
 */
async function measureHop(): Promise<{ stream: Hop; pubsub: Hop }> {
  const prefix = `${PREFIX}-hop`;
  const keys = new StoreKeyRing([Buffer.alloc(32, 1)]);
  const a = new RedisElicitationStore(REDIS_URL, { keyPrefix: prefix });
  const b = new RedisElicitationStore(REDIS_URL, { keyPrefix: prefix });
  a.useKeys(keys);
  b.useKeys(keys);
  /** elicitationId → called with performance.now() when its event is opened at the receiver. */
  const waiting = new Map<string, (at: number) => void>();
  const arrived = (event: ElicitationEvent) => waiting.get(event.elicitationId)?.(performance.now());
  const receiver = await a.openEventChannel(arrived);
  const sender = await b.openEventChannel(() => undefined);
  const publisher = connect();
  const subscriber = connect();
  // The sender's own subscription, as each instance had one: it got its own messages and opened them too.
  const ownSubscriber = connect();
  const channelName = `{${prefix}}:hop`;
  subscriber.on('message', (_channel: string, text: string) => {
    const message = decodeEventMessage(text, keys);
    if (message) arrived(message.event);
  });
  ownSubscriber.on('message', (_channel: string, text: string) => void decodeEventMessage(text, keys));
  await subscriber.subscribe(channelName);
  await ownSubscriber.subscribe(channelName);
  const publishSha = (await publisher.script('LOAD', "redis.call('PUBLISH', KEYS[1], ARGV[1]) return 1")) as string;
  const head = eventMessageHead(randomUUID());
  const event = (): ElicitationEvent => ({
    type: 'completed',
    elicitationId: randomUUID(),
    userId: 'bench-user-1',
    kind: 'api-key',
    elicitationType: 'api-key-svc1',
    sessionId: randomUUID(),
    at: Date.now(),
  });
  const sizes = { stream: 0, pubsub: 0 };
  /** One event through one transport: milliseconds from just before the send to the opened event. */
  const once = async (transport: 'stream' | 'pubsub'): Promise<number> => {
    const e = event();
    let timer: NodeJS.Timeout | undefined;
    const opened = new Promise<number>((resolve, reject) => {
      waiting.set(e.elicitationId, resolve);
      timer = setTimeout(() => reject(new Error(`the ${transport} event ${e.elicitationId} did not arrive within 5 s`)), 5_000);
    });
    // Both timed from the event in hand: each seals its message (the stream's channel inside publish).
    const t0 = performance.now();
    if (transport === 'stream') await sender.publish(e);
    else await publisher.evalsha(publishSha, 1, channelName, encodeEventMessage(head, e, keys));
    try {
      return (await opened) - t0;
    } finally {
      clearTimeout(timer);
      waiting.delete(e.elicitationId);
    }
  };
  try {
    const samples = { stream: [] as number[], pubsub: [] as number[] };
    for (let i = 0; i < HOP_WARMUP; i++) {
      await once('stream');
      await once('pubsub');
    }
    fullGc();
    for (let block = 0; block < HOP_BLOCKS; block++) {
      for (const transport of block % 2 === 0 ? (['stream', 'pubsub'] as const) : (['pubsub', 'stream'] as const)) {
        for (let i = 0; i < HOP_N / HOP_BLOCKS; i++) samples[transport].push(await once(transport));
      }
      progress();
    }
    const [[, fields]] = await publisher.xrevrange(keySpace(prefix).events, '+', '-', 'COUNT', 1);
    sizes.stream = Buffer.byteLength(fields[fields.indexOf(EVENT_FIELD) + 1]);
    sizes.pubsub = Buffer.byteLength(encodeEventMessage(head, event(), keys));
    const out = { stream: hopFigures(samples.stream), pubsub: hopFigures(samples.pubsub) };
    for (const transport of ['stream', 'pubsub'] as const) {
      const f = out[transport];
      const sorted = [...samples[transport]].sort((x, y) => x - y);
      console.log(
        `  ${transport === 'stream' ? 'stream (append script → XREAD BLOCK)' : 'pub/sub (PUBLISH in a script → SUBSCRIBE)'}: ` +
          `${HOP_N} events of ${sizes[transport]} bytes, p50 ${f.p50.toFixed(3)} ms, p90 ${percentile(sorted, 90).toFixed(3)} ms, ` +
          `p99 ${f.p99.toFixed(3)} ms, max ${f.max.toFixed(3)} ms`,
      );
    }
    return out;
  } finally {
    await receiver.close();
    await sender.close();
    await a.onModuleDestroy();
    await b.onModuleDestroy();
    await deletePrefix(publisher, prefix);
  }
}

// ------------------------------------------------------------------------------------------- report

/** The store operations the throughput and CPU rows report, with their row labels. */
const STORE_OPS = [
  ['create', 'create'],
  ['finish', 'finish (complete)'],
  ['get', 'get'],
] as const;

function buildRows(
  figures: Figures,
  cpu: CpuFigures,
  rt: Record<RtOp, RoundTrips>,
  latency: Latency,
  hop: { stream: Hop; pubsub: Hop },
): Row[] {
  const rows: Row[] = [];
  const callers = (c: number) => `${c} caller${c > 1 ? 's' : ''}`;
  for (const c of CONCURRENCIES) {
    const raw = median(figures.raw[c]);
    for (const [op, label] of STORE_OPS) {
      const value = median(figures[op][c]);
      const ratio = value / raw;
      const row: Row = {
        name: `redis store ${label}, ${callers(c)}`,
        value: round(value, 0),
        unit: 'ops/s',
        baseline: round(raw, 0),
        ratio: round(ratio, 4),
      };
      if (op === 'finish' && c === 32) Object.assign(row, { target: `ratio >= ${RATIO_TARGET.toFixed(2)}`, met: ratio >= RATIO_TARGET });
      rows.push(row);
    }
  }
  for (const c of CONCURRENCIES) {
    rows.push({
      name: `redis baseline: raw ioredis EVALSHA 'return 1', ${callers(c)}`,
      value: round(median(figures.raw[c]), 0),
      unit: 'ops/s',
      baseline: null,
      ratio: null,
    });
  }
  for (const side of ['redis', 'client'] as const) {
    const base = median(cpu.raw[side]);
    for (const [op, label] of STORE_OPS) {
      const value = median(cpu[op][side]);
      const ratio = value / base;
      const row: Row = {
        name: `redis ${side === 'redis' ? 'Redis CPU (INFO cpu)' : 'client CPU'} per ${label}, 32 callers, vs raw EVALSHA 'return 1'`,
        value: round(value, 2),
        unit: 'µs/op',
        baseline: round(base, 2),
        ratio: round(ratio, 3),
      };
      if (side === 'redis' && op !== 'create')
        Object.assign(row, { target: `ratio <= ${CPU_RATIO_TARGET.toFixed(2)}`, met: ratio <= CPU_RATIO_TARGET });
      rows.push(row);
    }
  }
  for (const op of ['create', 'get', 'finish', 'findLatestCompleted'] as const) {
    const r = rt[op];
    if (r.roundTrips !== null) {
      rows.push({
        name: `redis round trips per ${op}`,
        value: round(r.roundTrips, 3),
        unit: 'round trips/op',
        baseline: null,
        ratio: null,
        target: `== ${ROUND_TRIPS_TARGET.toFixed(1)}`,
        met: Math.abs(r.roundTrips - ROUND_TRIPS_TARGET) < 1e-9,
      });
    }
  }
  for (const op of ['create', 'get', 'finish', 'findLatestCompleted'] as const) {
    rows.push({
      name: `redis commandstats calls per ${op} (incl. inside Lua)`,
      value: round(rt[op].commandstats, 3),
      unit: 'calls/op',
      baseline: null,
      ratio: null,
    });
  }
  rows.push({ name: 'redis cross-instance completion latency p50', value: round(latency.p50, 3), unit: 'ms', baseline: null, ratio: null });
  rows.push({
    name: 'redis cross-instance completion latency p99',
    value: round(latency.p99, 3),
    unit: 'ms',
    baseline: null,
    ratio: null,
    target: `<= ${LATENCY_P99_TARGET} ms`,
    met: latency.p99 <= LATENCY_P99_TARGET,
  });
  rows.push({ name: 'redis cross-instance completion latency max', value: round(latency.max, 3), unit: 'ms', baseline: null, ratio: null });
  if (latency.cpuPerAnswer) {
    for (const [side, label] of [
      ['b', 'instance B (page post, store calls, event append)'],
      ['a', 'instance A (event read → notification)'],
    ] as const) {
      const value = round(latency.cpuPerAnswer[side], 3);
      rows.push({ name: `redis cross-instance CPU per answer, ${label}`, value, unit: 'ms', baseline: null, ratio: null });
    }
  }
  for (const p of ['p50', 'p99'] as const) {
    rows.push({
      name: `redis event hop ${p}: stream (append script → XREAD BLOCK), baseline pub/sub (PUBLISH in a script → SUBSCRIBE)`,
      value: round(hop.stream[p], 3),
      unit: 'ms',
      baseline: round(hop.pubsub[p], 3),
      ratio: round(hop.stream[p] / hop.pubsub[p], 3),
    });
  }
  return rows;
}

async function main(): Promise<void> {
  const started = process.hrtime.bigint();
  if (!(await redisAnswers())) {
    console.log(`redis.bench: no Redis answers at ${REDIS_URL}: skipped (set REDIS_URL to run it). No Redis rows written.`);
    mergeResults('redis.bench', [], { quick: QUICK, seconds: seconds(started), notes: [`skipped: no Redis answered at ${REDIS_URL}`] });
    cleanedUp = true;
    return;
  }
  const info = await (async () => {
    const c = connect();
    const server = await c.info('server');
    c.disconnect();
    connections.delete(c);
    return /redis_version:(\S+)/.exec(server)?.[1] ?? '?';
  })();
  console.log(
    `redis.bench${QUICK ? ' (QUICK)' : ''}: node ${process.version}, Redis ${info} at ${REDIS_URL}, prefix {${PREFIX}}; ` +
      `${CONCURRENCIES.map((c) => `${fmt(OPS[c])} ops at ${c}`).join(', ')} caller(s) x (1 warm-up + ${MEASURED_RUNS} runs), ` +
      `${RT_OPS} ops per round-trip count, ${LATENCY_N} cross-instance completions after ${LATENCY_WARMUP} warm-up, ` +
      `${HOP_N} event hops per transport after ${HOP_WARMUP} warm-up`,
  );

  if (!existsSync(DEMO_MAIN)) throw new Error(`${DEMO_MAIN} is missing: run "npm run build:demo" first`);
  const host = (() => {
    try {
      return new URL(REDIS_URL).hostname;
    } catch {
      return '';
    }
  })();
  if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host)) {
    console.warn(`  note: ${REDIS_URL} is not a loopback address; the figures include the network and are not comparable`);
  }

  const store = new RedisElicitationStore(REDIS_URL, { keyPrefix: PREFIX });
  // What ElicitationModule does when it starts: the store names and seals with keys derived from encryptionKey.
  store.useKeys(new StoreKeyRing([Buffer.alloc(32, 1)]));
  connections.add(store.redis as Redis);
  // The floor: a plain ioredis client with its defaults (no per-command timeout), as an app would make one.
  const raw = new Redis(REDIS_URL);
  raw.on('error', () => undefined);
  connections.add(raw);
  const cleaner = connect();
  const sha = (await raw.script('LOAD', 'return 1')) as string;
  let exitCode = 0;
  try {
    console.log('\n1+3. store throughput (ops/s) next to a raw EVALSHA of "return 1":');
    let phase = process.hrtime.bigint();
    const took = () => {
      const t = seconds(phase);
      phase = process.hrtime.bigint();
      return `  (${t.toFixed(1)}s)`;
    };
    const figures = await measureThroughput(store, raw, sha, cleaner);
    console.log(took());
    console.log('\n2a. CPU per operation (Redis from INFO cpu, this client from process.cpuUsage), 32 callers:');
    const cpu = await measureCpu(store, raw, sha, cleaner);
    console.log(took());
    console.log('\n2b. Redis round trips per operation:');
    const rt = await measureRoundTrips(store, cleaner);
    console.log(took());
    console.log('\n4. cross-instance completion (two demo processes, SDK client on A, pages submitted on B 32 at once):');
    const latency = await measureLatency();
    console.log(took());
    console.log('\n5. the event hop alone: the event stream against pub/sub, one event at a time:');
    const hop = await measureHop();
    console.log(took());

    const rows = buildRows(figures, cpu, rt, latency, hop);
    console.log(
      `\nMedians of ${MEASURED_RUNS} runs (ops/s: ratio = value / raw EVALSHA at the same concurrency; ` +
        'round trips: commands the store connection sent, per MONITOR; latency: percentiles of all samples):\n',
    );
    printTable(rows);
    const outFile = mergeResults('redis.bench', rows, { quick: QUICK, seconds: seconds(started), notes: [`Redis ${info}`] });
    console.log(`\nMerged ${rows.length} rows into ${relative(process.cwd(), outFile) || outFile}.`);
  } catch (error) {
    console.error(`redis.bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    exitCode = 1;
  } finally {
    await store.onModuleDestroy().catch(() => undefined);
    await cleanUp();
  }
  console.log(`redis.bench: ${seconds(started).toFixed(1)}s total.`);
  process.exitCode = exitCode;
}

await main();
