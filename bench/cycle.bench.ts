/**
 * Benchmark 1: the in-process elicitation lifecycle on the memory store.
 *
 *   npm run bench            (all benchmarks; or alone, after `npm run build:demo`:
 *                             `node --expose-gc dist-demo/bench/cycle.bench.js [--quick]`)
 *
 * Measures, against the real module built in a Nest application context (default logger, default memory store),
 * create → complete → getResult cycles per second through ElicitationService, one cycle at a time, and in the
 * same runs, each from an empty store or Map after a full gc:
 *  - the baseline of the cycle row: the same work on a `Map` of plain objects behind three awaited async calls
 *    (what an async store API costs at least); target: the cycle at CYCLE_TARGET of it or more;
 *  - for information: the same `Map` work synchronously, and an AES-256-GCM seal + open of the answer alone
 *    (the module's `SecretBox`, node:crypto), what a cycle that seals its answer cannot beat.
 * Heap per pending elicitation is memory.bench's.
 *
 * Medians of MEASURED_RUNS runs after a warm-up run, in one process (nothing pinned). Prints a table and merges its
 * rows (names start with "cycle") into bench/results/latest.json. Targets are reported, never enforced: the exit
 * code does not depend on them.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { relative } from 'node:path';
import { type INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ElicitationModule, ElicitationService, ElicitationStore, MemoryElicitationStore } from '../src/index.js';
import { SecretBox } from '../src/security/secret-box.js';
import { bySize, fmt, fullGc, median, mergeResults, printTable, QUICK, round, seconds, startWatchdog, type Row } from './bench-kit.js';

// ---------------------------------------------------------------------------------------------- setup

/** Cycles per measured run (and per warm-up run). */
const CYCLES = bySize(100_000, 20_000, 2_000);
const MEASURED_RUNS = bySize(5, 2, 1);
/** Gives up after this long without a finished run (a hang; one run takes a few seconds). */
const IDLE_LIMIT_MS = 60_000;

const CYCLE_TARGET = 0.6; // cycles/s / the Map-behind-3-awaited-calls cycles/s, at least

const USER_ID = 'u';
const TYPE = 'api-key-github';
/** The demo's message for `connect-service github` (one shared string: the caller's data, not the library's). */
const MESSAGE = 'Enter your github API key so the assistant can connect to github for you.';
const API_KEY = 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB';
/** Far enough in the future that every record is past its purge time. */
const FAR_FUTURE = Date.now() + 100 * 365 * 24 * 3600_000;

const progress = startWatchdog('cycle.bench', IDLE_LIMIT_MS);

@Module({
  imports: [
    ElicitationModule.forRoot({
      baseUrl: 'http://127.0.0.1:3000',
      resolvePageUser: () => 'u',
      cleanupIntervalMs: 0,
      encryptionKey: Buffer.alloc(32, 1),
      // One user creates every record here: lift the abuse limits out of the way.
      limits: { createPerMinute: 1e9, maxPendingPerUser: 1e9, maxPending: 1e9 },
    }),
  ],
})
class BenchModule {}

/** A fresh application context on a fresh memory store (Nest's default logger). */
async function openContext(): Promise<{ app: INestApplicationContext; service: ElicitationService; store: MemoryElicitationStore }> {
  const app = await NestFactory.createApplicationContext(BenchModule);
  const service = app.get(ElicitationService);
  const store = app.get(ElicitationStore);
  if (!(store instanceof MemoryElicitationStore)) throw new Error('expected the default MemoryElicitationStore');
  return { app, service, store };
}

// -------------------------------------------------------------------------------------------- cycles

/** create → complete → getResult through the service, one cycle at a time. Returns cycles/s. */
async function libraryCycles(service: ElicitationService, n: number): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const { elicitationId } = await service.createUrlElicitation({
      kind: 'api-key',
      message: MESSAGE,
      userId: USER_ID,
      type: TYPE,
      metadata: { service: 'github' },
    });
    const done = await service.complete(elicitationId, { apiKey: API_KEY });
    const result = await service.getResult(elicitationId);
    if (!done.ok || result?.status !== 'completed') throw new Error(`cycle ${i} did not complete: ${JSON.stringify(result)}`);
  }
  return n / seconds(start);
}

/** The record shape a minimal store would keep. */
interface PlainRecord {
  id: string;
  kind: 'api-key' | 'confirm';
  userId: string;
  type: string;
  message: string;
  metadata: Record<string, unknown>;
  status: string;
  createdAt: number;
  expiresAt: number;
  purgeAt: number;
  finishedAt?: number;
  data?: Record<string, unknown>;
}

const TTL_MS = 10 * 60_000;

function plainRecord(now: number): PlainRecord {
  return {
    id: randomUUID(),
    kind: 'api-key',
    userId: USER_ID,
    type: TYPE,
    message: MESSAGE,
    metadata: { service: 'github' },
    status: 'pending',
    createdAt: now,
    expiresAt: now + TTL_MS,
    purgeAt: now + 2 * TTL_MS,
  };
}

/** The floor: `Map` set → get + update → get of an equivalent object with a `randomUUID()` id, synchronous. */
function baselineCycles(map: Map<string, PlainRecord>, n: number): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const record = plainRecord(Date.now());
    map.set(record.id, record);
    const r = map.get(record.id)!;
    if (r.status === 'pending') {
      const now = Date.now();
      r.status = 'completed';
      r.finishedAt = now;
      r.purgeAt = now + TTL_MS;
      r.data = { apiKey: API_KEY };
    }
    const result = map.get(record.id);
    if (result?.status !== 'completed') throw new Error(`baseline cycle ${i} did not complete`);
  }
  return n / seconds(start);
}

/** The same Map work behind three awaited async calls (what an async store API costs at least). */
async function asyncBaselineCycles(map: Map<string, PlainRecord>, n: number): Promise<number> {
  /* eslint-disable @typescript-eslint/require-await -- the baseline measures async functions that await nothing */
  const create = async (record: PlainRecord) => void map.set(record.id, record);
  const finish = async (id: string, data: Record<string, unknown>) => {
    const r = map.get(id);
    if (!r || r.status !== 'pending') return false;
    const now = Date.now();
    r.status = 'completed';
    r.finishedAt = now;
    r.purgeAt = now + TTL_MS;
    r.data = data;
    return true;
  };
  const get = async (id: string) => map.get(id);
  /* eslint-enable @typescript-eslint/require-await */
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const record = plainRecord(Date.now());
    await create(record);
    const ok = await finish(record.id, { apiKey: API_KEY });
    const result = await get(record.id);
    if (!ok || result?.status !== 'completed') throw new Error(`async baseline cycle ${i} did not complete`);
  }
  return n / seconds(start);
}

/**
 * The encryption a cycle cannot skip: seal the answer at `complete` and open it at `getResult`, with the
 * module's own `SecretBox` (AES-256-GCM, node:crypto) and nothing else. No cycle can run faster than this.
 */
function sealOpenCycles(n: number): number {
  const box = new SecretBox([Buffer.alloc(32, 1)]);
  const json = JSON.stringify({ apiKey: API_KEY });
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const id = randomUUID();
    if (box.open(box.seal(json, id), id) !== json) throw new Error(`seal/open ${i} did not round-trip`);
  }
  return n / seconds(start);
}

interface CycleFigures {
  library: number[];
  baseline: number[];
  asyncBaseline: number[];
  sealOpen: number[];
}

async function measureCycles(): Promise<CycleFigures> {
  const { app, service, store: memory } = await openContext();
  const map = new Map<string, PlainRecord>();
  const figures: CycleFigures = { library: [], baseline: [], asyncBaseline: [], sealOpen: [] };
  try {
    for (let run = 0; run <= MEASURED_RUNS; run++) {
      // Every run starts from an empty store: finished records are retained (until purgeAt), so
      // forget them with a far-future sweep; likewise the baselines start from an empty Map.
      await service.sweep(FAR_FUTURE);
      if (memory.size !== 0) throw new Error(`store still holds ${memory.size} records after the sweep`);
      fullGc();
      const lib = await libraryCycles(service, CYCLES);

      map.clear();
      fullGc();
      const base = baselineCycles(map, CYCLES);

      map.clear();
      fullGc();
      const asyncBase = await asyncBaselineCycles(map, CYCLES);
      map.clear();

      fullGc();
      const sealOpen = sealOpenCycles(CYCLES);

      const label = run === 0 ? 'warm-up ' : `run ${run}/${MEASURED_RUNS}`;
      console.log(
        `  cycles ${label}: library ${fmt(lib)}/s, Map ${fmt(base)}/s, Map+await ${fmt(asyncBase)}/s, seal+open ${fmt(sealOpen)}/s`,
      );
      progress();
      if (run === 0) continue;
      figures.library.push(lib);
      figures.baseline.push(base);
      figures.asyncBaseline.push(asyncBase);
      figures.sealOpen.push(sealOpen);
    }
    await service.sweep(FAR_FUTURE);
  } finally {
    await app.close();
  }
  return figures;
}

// ------------------------------------------------------------------------------------------- report

function buildRows(cycles: CycleFigures): Row[] {
  const lib = median(cycles.library);
  const base = median(cycles.baseline);
  const asyncBase = median(cycles.asyncBaseline);
  const sealOpen = median(cycles.sealOpen);
  const ratio = lib / asyncBase;
  return [
    {
      name: 'cycle create→complete→getResult (memory store)',
      value: round(lib, 0),
      unit: 'cycles/s',
      baseline: round(asyncBase, 0),
      ratio: round(ratio, 4),
      target: `ratio >= ${CYCLE_TARGET.toFixed(2)}`,
      met: ratio >= CYCLE_TARGET,
    },
    {
      name: 'cycle baseline: Map cycle behind 3 awaited async calls',
      value: round(asyncBase, 0),
      unit: 'cycles/s',
      baseline: null,
      ratio: null,
    },
    {
      name: 'cycle baseline: Map set/get/update cycle (sync)',
      value: round(base, 0),
      unit: 'cycles/s',
      baseline: null,
      ratio: null,
    },
    {
      name: 'cycle baseline: AES-256-GCM seal + open of the answer alone (node:crypto)',
      value: round(sealOpen, 0),
      unit: 'cycles/s',
      baseline: null,
      ratio: null,
    },
    {
      name: 'cycle create→complete→getResult against seal + open alone',
      value: round(lib, 0),
      unit: 'cycles/s',
      baseline: round(sealOpen, 0),
      ratio: round(lib / sealOpen, 4),
    },
  ];
}

async function main(): Promise<void> {
  const started = process.hrtime.bigint();
  console.log(
    `cycle.bench${QUICK ? ' (QUICK)' : ''}: node ${process.version}, ${fmt(CYCLES)} cycles x (1 warm-up + ${MEASURED_RUNS} runs) ` +
      'of the library, the Map baselines and seal + open',
  );
  const rows = buildRows(await measureCycles());
  console.log(`\nMedians of ${MEASURED_RUNS} runs (ratio = value / baseline; higher is better):\n`);
  printTable(rows);
  const outFile = mergeResults('cycle.bench', rows, { quick: QUICK, seconds: seconds(started) });
  console.log(`\nMerged ${rows.length} rows into ${relative(process.cwd(), outFile) || outFile} in ${seconds(started).toFixed(1)}s total.`);
}

await main();
