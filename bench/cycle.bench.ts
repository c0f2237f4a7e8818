/**
 * Benchmark 1: in-process elicitation lifecycle on the memory store.
 *
 *   npm run bench            (builds, then runs `node --expose-gc dist-demo/bench/cycle.bench.js`)
 *
 * Measures, against the real module built in a Nest application context:
 *  - create → complete → getResult cycles per second, next to a plain `Map` doing the same work
 *    (the floor of any in-memory store) and the ratio of the two;
 *  - heap bytes per pending elicitation at 100,000 pending, next to a `Map` of equivalent plain objects.
 *
 * Prints a table and writes the same rows to `bench/results/latest.json`. Targets (from the
 * performance issue) are reported, never enforced: the exit code does not depend on them.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { relative } from 'node:path';
import { type INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ElicitationModule, ElicitationService, ElicitationStore, MemoryElicitationStore } from '../src/index.js';
import { SecretBox } from '../src/security/secret-box.js';
import { fmt, fullGc, median, mergeResults, printTable, round, seconds, startWatchdog, type Row } from './bench-kit.js';

// ---------------------------------------------------------------------------------------------- setup

/** Cycles per measured run (and per warm-up run). */
const CYCLES = 100_000;
const MEASURED_RUNS = 5;
/** Pending elicitations held for the memory measurement. */
const PENDING = 100_000;
const HEAP_RUNS = 3;
/** Gives up after this long without a finished run (a hang; one run takes a few seconds). */
const IDLE_LIMIT_MS = 60_000;

const CYCLES_TARGET = 300_000; // cycles/s, at least
const BYTES_TARGET = 500; // heap bytes per pending elicitation, at most

const USER_ID = 'u';
const TYPE = 'api-key-github';
/** The demo's message for `connect-service github` (one shared string: the caller's data, not the library's). */
const MESSAGE = 'Enter your github API key so the assistant can connect to github for you.';
const API_KEY = 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB';
/** Any RegExp run over a string makes V8 flatten it in place. */
const FLATTEN = /^[0-9a-f-]+$/;

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

// ---------------------------------------------------------------------------------------------- heap

/** Heap bytes per pending api-key elicitation, with `PENDING` of them held in a fresh context. */
async function libraryBytesPerPending(): Promise<number> {
  const { app, service, store } = await openContext();
  try {
    fullGc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < PENDING; i++) {
      await service.createUrlElicitation({
        kind: 'api-key',
        message: MESSAGE,
        userId: USER_ID,
        type: TYPE,
        metadata: { service: 'github' },
      });
    }
    fullGc();
    const after = process.memoryUsage().heapUsed;
    const size = store.size;
    if (size !== PENDING) throw new Error(`expected ${PENDING} pending records, the store holds ${size}`);
    return (after - before) / PENDING;
  } finally {
    await app.close();
  }
}

/**
 * The same for a Map of plain objects. With `flatIds`, each id is flattened first: Node 20's
 * `randomUUID()` returns a tree of concatenated (cons) strings, about 420 bytes more than the flat
 * 36-character string it becomes once anything (a RegExp test, for one) reads it whole.
 */
function baselineBytesPerPending(flatIds: boolean): number {
  fullGc();
  const before = process.memoryUsage().heapUsed;
  const map = new Map<string, PlainRecord>();
  const now = Date.now();
  for (let i = 0; i < PENDING; i++) {
    const record = plainRecord(now);
    if (flatIds) FLATTEN.test(record.id);
    map.set(record.id, record);
  }
  fullGc();
  const after = process.memoryUsage().heapUsed;
  if (map.size !== PENDING) throw new Error('baseline map lost entries');
  return (after - before) / PENDING;
}

async function measureHeap(): Promise<{ library: number[]; baseline: number[]; flatBaseline: number[] }> {
  const library: number[] = [];
  const baseline: number[] = [];
  const flatBaseline: number[] = [];
  for (let run = 1; run <= HEAP_RUNS; run++) {
    const lib = await libraryBytesPerPending();
    const base = baselineBytesPerPending(false);
    const flat = baselineBytesPerPending(true);
    console.log(
      `  heap run ${run}/${HEAP_RUNS}: library ${lib.toFixed(0)} B/pending, Map ${base.toFixed(0)} B/entry, ` +
        `Map with flat ids ${flat.toFixed(0)} B/entry`,
    );
    progress();
    library.push(lib);
    baseline.push(base);
    flatBaseline.push(flat);
  }
  return { library, baseline, flatBaseline };
}

// ------------------------------------------------------------------------------------------- report

async function main(): Promise<void> {
  const started = process.hrtime.bigint();
  console.log(
    `cycle.bench: node ${process.version}, ${CYCLES.toLocaleString('en-US')} cycles x (1 warm-up + ${MEASURED_RUNS} runs), ` +
      `${PENDING.toLocaleString('en-US')} pending x ${HEAP_RUNS} heap runs`,
  );

  const cycles = await measureCycles();
  const heap = await measureHeap();

  const lib = median(cycles.library);
  const base = median(cycles.baseline);
  const asyncBase = median(cycles.asyncBaseline);
  const sealOpen = median(cycles.sealOpen);
  const libBytes = median(heap.library);
  const baseBytes = median(heap.baseline);
  const flatBaseBytes = median(heap.flatBaseline);

  const rows: Row[] = [
    {
      name: 'cycle create→complete→getResult (memory store)',
      value: round(lib, 0),
      unit: 'cycles/s',
      baseline: round(base, 0),
      ratio: round(lib / base, 4),
      target: `>= ${CYCLES_TARGET}`,
      met: lib >= CYCLES_TARGET,
    },
    {
      name: 'baseline: Map set/get/update cycle (sync)',
      value: round(base, 0),
      unit: 'cycles/s',
      baseline: null,
      ratio: null,
    },
    {
      name: 'baseline: Map cycle behind 3 awaited async calls',
      value: round(asyncBase, 0),
      unit: 'cycles/s',
      baseline: round(base, 0),
      ratio: round(asyncBase / base, 4),
    },
    {
      name: 'baseline: AES-256-GCM seal + open of the answer alone (node:crypto)',
      value: round(sealOpen, 0),
      unit: 'cycles/s',
      baseline: round(base, 0),
      ratio: round(sealOpen / base, 4),
    },
    {
      name: 'cycle as a share of the seal + open ceiling',
      value: round(lib / sealOpen, 4),
      unit: 'ratio',
      baseline: round(sealOpen, 0),
      ratio: round(lib / sealOpen, 4),
    },
    {
      name: `heap per pending elicitation (${PENDING / 1000}k pending)`,
      value: round(libBytes, 1),
      unit: 'bytes',
      baseline: round(baseBytes, 1),
      ratio: round(libBytes / baseBytes, 4),
      target: `<= ${BYTES_TARGET}`,
      met: libBytes <= BYTES_TARGET,
    },
    {
      name: `baseline: heap per plain object in a Map (${PENDING / 1000}k)`,
      value: round(baseBytes, 1),
      unit: 'bytes',
      baseline: null,
      ratio: null,
    },
    {
      name: `baseline: same, ids flattened (${PENDING / 1000}k)`,
      value: round(flatBaseBytes, 1),
      unit: 'bytes',
      baseline: round(baseBytes, 1),
      ratio: round(flatBaseBytes / baseBytes, 4),
    },
  ];

  console.log(`\nMedians (ratio = value / baseline; for cycles/s higher is better, for bytes lower is better):\n`);
  printTable(rows);

  const outFile = mergeResults(rows, /^(cycle|baseline|heap per)/);
  console.log(`\nWrote ${relative(process.cwd(), outFile) || outFile} in ${seconds(started).toFixed(1)}s total.`);
}

await main();
