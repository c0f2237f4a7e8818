/**
 * Benchmark 2: the memory store at scale, and form validation.
 *
 *   npm run bench            (all benchmarks; or alone, after `npm run build:demo`:
 *                             `node --expose-gc --max-old-space-size=8192 dist-demo/bench/memory.bench.js [--quick]`)
 *
 * Everything goes through the real ElicitationService on the default MemoryElicitationStore, in a Nest
 * application context of `ElicitationModule.forRoot` (cleanup timer off, abuse limits lifted), with the
 * demo's api-key elicitation (`metadata: { service: 'github' }`). One process, nothing pinned. Measures (the
 * counts of a full run; `--quick` measures the heap at 100k pending only, 100k cycles and a sweep of 100k pending,
 * one run each, and its row names say so):
 *  1. heap bytes per pending elicitation at 100k pending (median of 3 fresh contexts) and at 1M pending
 *     (1 run), full gc before and after, next to the floor: plain objects with flat ids in a Map;
 *  2. growth after 1M create → complete cycles (1 in 10 left pending, so the sweep expires it), swept
 *     every 10k cycles at a virtual clock far enough ahead that every record expires and is purged:
 *     heapUsed after a full gc compared with the same after a 10k-cycle warm-up, and every internal
 *     structure of the store (records, user/type index, deadline heap, pending counts, counters) empty;
 *  3. `store.sweep(now)` with 1M pending of which 1% are due, against a full scan of the same records
 *     (iterating the store's records map and testing each for expiry, read only: the least a naive sweep
 *     costs), timed on the same state in the same run, each after a full gc and a pause; median of 3. The
 *     due records are one in every 100 (the target row) and, in a second sweep of each run, records created
 *     together (what a real sweep mostly meets: what was created in the same minute expires in the same
 *     minute). For scale, the latter also in a store a tenth of the size;
 *  4. validations per second of a full, valid answer to a 10-field `defineForm` schema (every common field
 *     kind), compiled once; median of 3 timed runs after a warm-up.
 *
 * Prints a table and merges its rows (names start with "memory store" or "form validation") into
 * `bench/results/latest.json`. Targets are reported, never enforced. A watchdog ends the script after
 * IDLE_LIMIT_MS without a finished step.
 */
import { randomUUID } from 'node:crypto';
import { relative } from 'node:path';
import { type INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  defineForm,
  ElicitationModule,
  ElicitationService,
  ElicitationStore,
  MemoryElicitationStore,
  type ElicitationRecord,
} from '../src/index.js';
import { ELICITATION_RESOLVED_OPTIONS } from '../src/options/elicitation.constants.js';
import { releaseTaskRunner } from './release-tasks.js';
import { MemoryTasks } from '../src/stores/memory-tasks.js';
import type { ResolvedElicitationOptions } from '../src/options/resolved-options.js';
import { bySize, fmt, fullGc, median, mergeResults, printTable, QUICK, round, seconds, startWatchdog, type Row } from './bench-kit.js';

// ---------------------------------------------------------------------------------------------- setup

/** Pending counts of the heap measurement, and runs at each. */
const HEAP_SIZES: ReadonlyArray<{ pending: number; runs: number }> = bySize(
  [
    { pending: 100_000, runs: 3 },
    { pending: 1_000_000, runs: 1 },
  ],
  [{ pending: 100_000, runs: 1 }],
  [{ pending: 10_000, runs: 1 }],
);
/** create → complete cycles of the growth measurement, after WARMUP_CYCLES, swept every SWEEP_EVERY. */
const CYCLES = bySize(1_000_000, 100_000, 20_000);
const WARMUP_CYCLES = bySize(10_000, 10_000, 2_000);
const SWEEP_EVERY = bySize(10_000, 10_000, 2_000);
/** One cycle in this many is left pending (expired by the sweep) instead of completed. */
const EXPIRE_ONE_IN = 10;
/** Pending records of the sweep measurement, the share of them due, and runs. */
const SWEEP_PENDING = bySize(1_000_000, 100_000, 10_000);
const SWEEP_DUE_SHARE = 0.01;
const SWEEP_RUNS = QUICK ? 1 : 3;
/** Least pause after a full gc before a timed sweep or scan (see settle). */
const SETTLE_MS = 200;
/** Form validation: timed runs (after one warm-up run) of at least FORM_RUN_MS each. */
const FORM_RUNS = QUICK ? 1 : 3;
const FORM_RUN_MS = bySize(1_000, 300, 100);
/** Gives up after this long without a finished step (a hang; the longest, creating 1M pending, takes well under a minute). */
const IDLE_LIMIT_MS = 180_000;

const BYTES_TARGET = 300; // heap bytes per pending elicitation, at most (#46: kept at 300)
const GROWTH_TARGET = 0.05; // heap growth after CYCLES, as a share of the heap CYCLES pending records hold, below
const SWEEP_RATIO_TARGET = 0.05; // sweep time / full scan time, at most
const FORM_TARGET = 200_000; // validations/s, at least
/** Tasks made to wait on a form question at once (MCP Tasks extension): each must hold no timer. */
const WAITING_TASKS = bySize(10_000, 2_000, 200);
/** The heap one waiting task may hold in the memory store (#46; #41 halved it from 1,550 B). */
const TASK_HEAP_TARGET = 600;

const USER_ID = 'u';
const SERVICE = 'github';
const TYPE = `api-key-${SERVICE}`;
/** The demo's message for `connect-service github`. */
const MESSAGE = `Enter your ${SERVICE} API key so the assistant can connect to ${SERVICE} for you.`;
const API_KEY = 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB';
const FLATTEN = /^[0-9a-f-]+$/;

const progress = startWatchdog('memory.bench', IDLE_LIMIT_MS);

function heapUsed(): number {
  fullGc();
  return process.memoryUsage().heapUsed;
}

@Module({
  imports: [
    ElicitationModule.forRoot({
      baseUrl: 'http://127.0.0.1:3000',
      resolvePageUser: () => USER_ID,
      cleanupIntervalMs: 0,
      encryptionKey: Buffer.alloc(32, 1),
      // One user creates every record here: lift the abuse limits out of the way.
      limits: { createPerMinute: 1e9, maxPendingPerUser: 1e9, maxPending: 1e9 },
    }),
  ],
})
class BenchModule {}

interface Context {
  app: INestApplicationContext;
  service: ElicitationService;
  store: MemoryElicitationStore;
  options: ResolvedElicitationOptions;
}

/** A fresh application context on a fresh memory store (Nest's default logger). */
async function openContext(): Promise<Context> {
  const app = await NestFactory.createApplicationContext(BenchModule, { logger: ['error', 'warn'] });
  const service = app.get(ElicitationService);
  const store = app.get(ElicitationStore);
  if (!(store instanceof MemoryElicitationStore)) throw new Error('expected the default MemoryElicitationStore');
  const options = app.get<ResolvedElicitationOptions>(ELICITATION_RESOLVED_OPTIONS);
  return { app, service, store, options };
}

/** The store's private structures, read for the leak check and the full-scan baseline (never written). */
interface StoreInternals {
  records: Map<string, ElicitationRecord>;
  index: Map<string, Map<string, Set<string>>>;
  deadlines: { size: number };
  pendingByUser: Map<string, number>;
  pendingTotal: number;
  counters: Map<string, unknown>;
}

function internals(store: MemoryElicitationStore): StoreInternals {
  const s = store as unknown as StoreInternals;
  for (const key of ['records', 'index', 'deadlines', 'pendingByUser', 'counters'] as const) {
    if (!s[key]) throw new Error(`MemoryElicitationStore has no "${key}" any more: update bench/memory.bench.ts`);
  }
  return s;
}

function structureSizes(store: MemoryElicitationStore): Record<string, number> {
  const s = internals(store);
  return {
    records: s.records.size,
    indexUsers: s.index.size,
    heapEntries: s.deadlines.size,
    pendingUsers: s.pendingByUser.size,
    pendingTotal: s.pendingTotal,
    counters: s.counters.size,
  };
}

function createApiKey(service: ElicitationService, ttlMs?: number) {
  return service.createUrlElicitation({
    kind: 'api-key',
    message: MESSAGE,
    userId: USER_ID,
    type: TYPE,
    metadata: { service: SERVICE },
    ttlMs,
  });
}

function ms(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

// ---------------------------------------------------------------------------------------------- 1. heap

/** Heap bytes per pending api-key elicitation, with `pending` of them held in a fresh context. */
async function libraryBytesPerPending(pending: number): Promise<number> {
  const ctx = await openContext();
  try {
    const before = heapUsed();
    const start = process.hrtime.bigint();
    for (let i = 0; i < pending; i++) await createApiKey(ctx.service);
    const took = seconds(start);
    const after = heapUsed();
    if (ctx.store.size !== pending) throw new Error(`expected ${pending} pending records, the store holds ${ctx.store.size}`);
    console.log(`    created ${fmt(pending)} in ${took.toFixed(1)}s (${fmt(pending / took)}/s), heap +${mib(after - before)}`);
    return (after - before) / pending;
  } finally {
    await ctx.app.close();
  }
}

/** The floor: the same record as a plain object with a flat id, in a Map. */
function floorBytesPerPending(pending: number): number {
  const before = heapUsed();
  const map = new Map<string, object>();
  const now = Date.now();
  for (let i = 0; i < pending; i++) {
    const id = randomUUID();
    FLATTEN.test(id);
    map.set(id, {
      id,
      kind: 'api-key',
      userId: USER_ID,
      type: TYPE,
      message: MESSAGE,
      metadata: { service: SERVICE },
      status: 'pending',
      createdAt: now,
      expiresAt: now + 600_000,
      purgeAt: now + 1_200_000,
    });
  }
  const after = heapUsed();
  if (map.size !== pending) throw new Error('floor map lost entries');
  return (after - before) / pending;
}

interface HeapFigures {
  pending: number;
  library: number[];
  floor: number[];
}

async function measureHeap(): Promise<HeapFigures[]> {
  const out: HeapFigures[] = [];
  for (const { pending, runs } of HEAP_SIZES) {
    const fig: HeapFigures = { pending, library: [], floor: [] };
    for (let run = 1; run <= runs; run++) {
      const lib = await libraryBytesPerPending(pending);
      const floor = floorBytesPerPending(pending);
      console.log(
        `  heap ${fmt(pending)} pending, run ${run}/${runs}: library ${lib.toFixed(1)} B/pending, floor (Map of plain objects, flat ids) ${floor.toFixed(1)} B`,
      );
      progress();
      fig.library.push(lib);
      fig.floor.push(floor);
    }
    out.push(fig);
  }
  return out;
}

// -------------------------------------------------------------------------------------------- 2. growth

interface GrowthFigures {
  warmHeap: number;
  endHeap: number;
  growth: number;
  sizesAfter: Record<string, number>;
  expired: number;
  cyclesPerSecond: number;
}

/**
 * `n` cycles of create → complete (1 in EXPIRE_ONE_IN left pending), then every SWEEP_EVERY cycles two
 * sweeps on a virtual clock: the first expires the pending records and purges the completed ones, the
 * second (a retention later) purges the expired ones. `clock` is the virtual time, moved forward.
 */
async function cycles(ctx: Context, n: number, clock: { now: number }): Promise<number> {
  const step = ctx.options.ttlMs + ctx.options.retentionMs + 1;
  let expired = 0;
  for (let i = 1; i <= n; i++) {
    const { elicitationId } = await createApiKey(ctx.service);
    if (i % EXPIRE_ONE_IN !== 0) {
      const done = await ctx.service.complete(elicitationId, { apiKey: API_KEY });
      if (!done.ok) throw new Error(`cycle ${i} did not complete: ${JSON.stringify(done)}`);
    }
    if (i % SWEEP_EVERY === 0 || i === n) {
      clock.now = Math.max(clock.now, Date.now()) + step;
      expired += await ctx.service.sweep(clock.now);
      clock.now += step;
      expired += await ctx.service.sweep(clock.now);
      if (ctx.store.size !== 0) throw new Error(`store still holds ${ctx.store.size} records after the sweeps at cycle ${i}`);
      progress();
    }
  }
  return expired;
}

async function measureGrowth(): Promise<GrowthFigures> {
  const ctx = await openContext();
  try {
    const clock = { now: Date.now() };
    await cycles(ctx, WARMUP_CYCLES, clock);
    const warmHeap = heapUsed();
    const sizesWarm = structureSizes(ctx.store);
    const start = process.hrtime.bigint();
    const expired = await cycles(ctx, CYCLES, clock);
    const took = seconds(start);
    const endHeap = heapUsed();
    const sizesAfter = structureSizes(ctx.store);
    console.log(
      `  growth: ${fmt(CYCLES)} cycles in ${took.toFixed(1)}s (${fmt(CYCLES / took)}/s), ${fmt(expired)} expired by the sweep; ` +
        `heap after warm-up ${mib(warmHeap)}, after the cycles ${mib(endHeap)} (${endHeap - warmHeap >= 0 ? '+' : ''}${fmt(endHeap - warmHeap)} B); ` +
        `store structures after warm-up ${JSON.stringify(sizesWarm)}, after ${JSON.stringify(sizesAfter)}`,
    );
    return { warmHeap, endHeap, growth: endHeap - warmHeap, sizesAfter, expired, cyclesPerSecond: CYCLES / took };
  } finally {
    await ctx.app.close();
  }
}

// --------------------------------------------------------------------------------------------- 3. sweep

/**
 * The naive sweep's scan: every retained record tested for being due (pending past expiresAt, or
 * finished past purgeAt). Read only, so it is the least a sweep without a deadline index costs.
 */
function fullScan(records: Map<string, ElicitationRecord>, now: number): number {
  let due = 0;
  for (const r of records.values()) {
    if (r.status === 'pending' ? r.expiresAt <= now : r.purgeAt <= now) due++;
  }
  return due;
}

/** Due records laid out one in every 1/SWEEP_DUE_SHARE (`scattered`) or created together (`together`). */
type Layout = 'scattered' | 'together';

interface SweepFigures {
  /** Milliseconds per run, by layout. */
  sweepMs: Record<Layout, number[]>;
  scanMs: Record<Layout, number[]>;
  due: number;
}

/**
 * A full gc, then a pause for V8's concurrent sweeper threads to finish (2 cores: they compete with the timed
 * code): as long as the collection took, at least SETTLE_MS, since their work grows with the heap and with
 * the machine's slowness alike.
 */
async function settle(): Promise<void> {
  const start = process.hrtime.bigint();
  fullGc();
  await new Promise((resolve) => setTimeout(resolve, Math.max(SETTLE_MS, ms(start))));
}

/**
 * One context, SWEEP_PENDING pending records through the service. Of every 1/SWEEP_DUE_SHARE records, the
 * first SWEEP_RUNS get an early `ttlMs` (tier k expires (k-1) × the tier gap after its creation), the rest
 * the module's ttlMs: run k sweeps at a clock where exactly tier k is due, scattered through the store.
 * The tier gap is the module's ttlMs shared out among the tiers and the rest, so that creating the records
 * may take most of it on a slow machine (the sweep clock is virtual: a wide gap costs no time).
 * Then, in the same run, the pending count is brought back to SWEEP_PENDING with records that are all due
 * and were created together, and swept again. Before each sweep the full scan is timed on the same state;
 * between runs, fresh never-due records top the pending count back up.
 */
async function measureSweep(): Promise<SweepFigures> {
  const ctx = await openContext();
  const { store, service, options } = ctx;
  const records = internals(store).records;
  const due = Math.round(SWEEP_PENDING * SWEEP_DUE_SHARE);
  const every = Math.round(1 / SWEEP_DUE_SHARE);
  const figures: SweepFigures = { sweepMs: { scattered: [], together: [] }, scanMs: { scattered: [], together: [] }, due };
  if (SWEEP_RUNS > every) throw new Error('more sweep runs than due tiers');
  const tierGapMs = Math.floor((options.ttlMs - 2_000) / (SWEEP_RUNS + 1));
  try {
    const t0 = Date.now();
    const start = process.hrtime.bigint();
    for (let i = 0; i < SWEEP_PENDING; i++) {
      const tier = i % every;
      await createApiKey(service, tier < SWEEP_RUNS ? 1 + tier * tierGapMs : undefined);
    }
    const created = Date.now();
    console.log(
      `  sweep: created ${fmt(SWEEP_PENDING)} pending (${SWEEP_RUNS} tiers of ${fmt(due)} early ones) in ${seconds(start).toFixed(1)}s`,
    );
    progress();
    // Tier k (from 1) is due at nowOf(k), tier k+1 is not: creating took less than the tier gap - 1 s.
    if (created - t0 > tierGapMs - 2_000) throw new Error('creating the records took too long for the tier clock');
    if (options.ttlMs <= SWEEP_RUNS * tierGapMs + (created - t0) + 2_000)
      throw new Error('the module ttlMs is too short for the tier clock');
    const nextTierAt = (k: number) => t0 + 1 + k * tierGapMs;

    const measure = async (run: number, layout: Layout, now: number): Promise<void> => {
      const pendingNow = internals(store).pendingTotal;
      if (pendingNow !== SWEEP_PENDING) throw new Error(`expected ${SWEEP_PENDING} pending, the store has ${pendingNow}`);
      if (now >= nextTierAt(run)) throw new Error('the sweep clock reached the next tier');
      fullScan(records, now); // warm-up of the scan code and of the caches (read only)
      await settle();
      let t = process.hrtime.bigint();
      const scanned = fullScan(records, now);
      const scanMs = ms(t);
      await settle();
      t = process.hrtime.bigint();
      const expired = await store.sweep(now, options.retentionMs);
      const sweepMs = ms(t);
      if (scanned !== due) throw new Error(`the full scan found ${scanned} due records, expected ${due}`);
      if (expired.length !== due) throw new Error(`the sweep expired ${expired.length} records, expected ${due}`);
      console.log(
        `  sweep run ${run}/${SWEEP_RUNS}, ${layout.padEnd(9)}: ${fmt(records.size)} records (${fmt(pendingNow)} pending, ${fmt(due)} due): ` +
          `store.sweep ${sweepMs.toFixed(2)} ms, full scan ${scanMs.toFixed(2)} ms (ratio ${(sweepMs / scanMs).toFixed(3)})`,
      );
      progress();
      figures.sweepMs[layout].push(sweepMs);
      figures.scanMs[layout].push(scanMs);
    };

    for (let run = 1; run <= SWEEP_RUNS; run++) {
      // Back to SWEEP_PENDING pending: the previous run expired `due` of them (retained until their purgeAt).
      if (run > 1) for (let i = 0; i < due; i++) await createApiKey(service);
      const now = created + 1_000 + (run - 1) * tierGapMs;
      await measure(run, 'scattered', now);
      for (let i = 0; i < due; i++) await createApiKey(service, 1);
      await measure(run, 'together', Math.max(now, Date.now() + 1_000));
    }
  } finally {
    await ctx.app.close();
  }
  return figures;
}

/**
 * The same sweep (SWEEP_PENDING × SWEEP_DUE_SHARE due, created together) in a store of a tenth of the size:
 * a sweep that costs what is due takes about as long as at full size (a scan would take a tenth).
 */
async function measureSmallSweep(due: number): Promise<number[]> {
  const pending = SWEEP_PENDING / 10;
  const out: number[] = [];
  for (let run = 1; run <= SWEEP_RUNS; run++) {
    const ctx = await openContext();
    try {
      for (let i = due; i < pending; i++) await createApiKey(ctx.service);
      for (let i = 0; i < due; i++) await createApiKey(ctx.service, 1);
      const now = Date.now() + 1_000;
      await settle();
      const t = process.hrtime.bigint();
      const expired = await ctx.store.sweep(now, ctx.options.retentionMs);
      const sweepMs = ms(t);
      if (expired.length !== due) throw new Error(`the sweep expired ${expired.length} records, expected ${due}`);
      console.log(
        `  sweep run ${run}/${SWEEP_RUNS}, ${fmt(pending)} pending, ${fmt(due)} due created together: store.sweep ${sweepMs.toFixed(2)} ms`,
      );
      progress();
      out.push(sweepMs);
    } finally {
      await ctx.app.close();
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------- 4. form

/** Ten fields, every common kind: text, e-mail, URL, date, date-time, integer, boolean, enum, titled enum, multi-select. */
const profileForm = defineForm({
  type: 'object',
  properties: {
    displayName: { type: 'string', title: 'Display name', minLength: 1, maxLength: 40 },
    email: { type: 'string', title: 'E-mail', format: 'email' },
    homepage: { type: 'string', title: 'Homepage', format: 'uri' },
    birthday: { type: 'string', title: 'Birthday', format: 'date' },
    availableFrom: { type: 'string', title: 'Available from', format: 'date-time' },
    age: { type: 'integer', title: 'Age', minimum: 13, maximum: 120 },
    newsletter: { type: 'boolean', title: 'Newsletter', default: false },
    theme: { type: 'string', title: 'Theme', enum: ['light', 'dark', 'system'], default: 'system' },
    plan: {
      type: 'string',
      title: 'Plan',
      oneOf: [
        { const: 'free', title: 'Free' },
        { const: 'team', title: 'Team' },
        { const: 'enterprise', title: 'Enterprise' },
      ],
    },
    interests: { type: 'array', title: 'Interests', items: { type: 'string', enum: ['ai', 'web', 'ops'] }, minItems: 1, maxItems: 2 },
  },
  required: ['displayName', 'email', 'age', 'plan', 'interests'],
});

/** Full, valid answers (every field given), rotated so the checks see different values. */
const ANSWERS = [
  {
    displayName: 'Ada',
    email: 'ada@example.com',
    homepage: 'https://example.com/ada',
    birthday: '1990-12-10',
    availableFrom: '2025-01-02T09:00:00Z',
    age: 35,
    newsletter: true,
    theme: 'dark',
    plan: 'team',
    interests: ['ai', 'web'],
  },
  {
    displayName: 'Grace Hopper',
    email: 'grace@navy.example.org',
    homepage: 'http://grace.example.org/',
    birthday: '1906-12-09',
    availableFrom: '2025-06-30T17:30:00+02:00',
    age: 99,
    newsletter: false,
    theme: 'light',
    plan: 'enterprise',
    interests: ['ops'],
  },
  {
    displayName: 'Linus',
    email: 'linus@kernel.example',
    homepage: 'https://example.net/~linus?x=1',
    birthday: '2000-02-29',
    availableFrom: '2024-02-29T23:59:59.123Z',
    age: 25,
    newsletter: true,
    theme: 'system',
    plan: 'free',
    interests: ['web', 'ops'],
  },
  {
    displayName: 'Margaret',
    email: 'mh@apollo.example.com',
    homepage: 'https://apollo.example.com/guidance',
    birthday: '1936-08-17',
    availableFrom: '2025-03-15T08:00:00-05:00',
    age: 88,
    newsletter: false,
    theme: 'dark',
    plan: 'team',
    interests: ['ai'],
  },
];

/** Validations per second over at least `minMs`. */
function formRun(minMs: number): number {
  const n = ANSWERS.length;
  let count = 0;
  let ok = 0;
  const start = process.hrtime.bigint();
  do {
    for (let i = 0; i < 10_000; i++) if (profileForm.validate(ANSWERS[i % n]).ok) ok++;
    count += 10_000;
  } while (ms(start) < minMs);
  const rate = count / seconds(start);
  if (ok !== count) throw new Error(`${count - ok} valid answers were refused`);
  return rate;
}

function measureForm(): number[] {
  for (const a of ANSWERS) {
    const r = profileForm.validate(a);
    if (!r.ok) throw new Error(`answer refused: ${JSON.stringify(r.issues)}`);
  }
  fullGc();
  console.log(`  form warm-up: ${fmt(formRun(FORM_RUN_MS))} validations/s`);
  const rates: number[] = [];
  for (let run = 1; run <= FORM_RUNS; run++) {
    fullGc();
    const rate = formRun(FORM_RUN_MS);
    console.log(`  form run ${run}/${FORM_RUNS}: ${fmt(rate)} validations/s`);
    progress();
    rates.push(rate);
  }
  return rates;
}

// ------------------------------------------------------------------------------------------ 5. tasks

/** Timers the process holds now (`setTimeout`/`setInterval` handles). */
function timers(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
}

interface TaskFigures {
  bytesPerTask: number;
  timersPerTask: number;
  tasks: number;
}

/**
 * WAITING_TASKS tasks made through the binding's runner on a memory task store, each run once up to its one form
 * question, where it waits: the heap each holds, and the timers (none: a waiting task is a record, nothing else). The
 * heap is the slope between half the tasks and all of them, so what the first tasks cost once (the code compiled, the
 * maps' first tables) is not spread over them.
 */
async function measureWaitingTasks(): Promise<TaskFigures> {
  const store = new MemoryTasks();
  const runner = releaseTaskRunner(store, { maxOpenPerUser: WAITING_TASKS });
  const timersBefore = timers();
  const ids: string[] = [];
  const half = Math.floor(WAITING_TASKS / 2);
  /** Makes tasks up to `count` in all and waits until every run ended at its question (input_required, no lease). */
  const waitingUpTo = async (count: number) => {
    for (let i = ids.length; i < count; i++) ids.push((await runner.start('release', { app: `app-${i}` }, USER_ID, ['form'])).task.id);
    for (;;) {
      await new Promise((r) => setTimeout(r, 20));
      const waiting = await Promise.all(ids.map((id) => store.getTask(id, Date.now())));
      if (waiting.every((t) => t?.status === 'input_required' && !t.lease)) return;
    }
  };
  await waitingUpTo(half);
  const before = heapUsed();
  await waitingUpTo(WAITING_TASKS);
  const after = heapUsed();
  const timersAfter = timers();
  if (store.size !== WAITING_TASKS) throw new Error(`expected ${WAITING_TASKS} tasks, the store holds ${store.size}`);
  console.log(
    `    ${fmt(WAITING_TASKS)} tasks waiting: heap +${mib(after - before)} for the second half, timers ${timersBefore} → ${timersAfter}`,
  );
  return {
    bytesPerTask: (after - before) / (WAITING_TASKS - half),
    timersPerTask: (timersAfter - timersBefore) / WAITING_TASKS,
    tasks: WAITING_TASKS,
  };
}

// ------------------------------------------------------------------------------------------- report

function buildRows(
  heap: HeapFigures[],
  growth: GrowthFigures,
  sweep: SweepFigures,
  smallSweep: number[],
  form: number[],
  tasks: TaskFigures,
): Row[] {
  const rows: Row[] = [];
  const k = (n: number) => (n >= 1e6 ? `${n / 1e6}M` : `${n / 1e3}k`);
  for (const h of heap) {
    const lib = median(h.library);
    const floor = median(h.floor);
    const runs = h.library.length > 1 ? `median of ${h.library.length}` : '1 run';
    rows.push({
      name: `memory store heap per pending elicitation (${k(h.pending)} pending, ${runs})`,
      value: round(lib, 1),
      unit: 'bytes',
      baseline: round(floor, 1),
      ratio: round(lib / floor, 4),
      target: `<= ${BYTES_TARGET} B`,
      met: lib <= BYTES_TARGET,
    });
    rows.push({
      name: `memory store baseline: plain object with flat id in a Map (${k(h.pending)})`,
      value: round(floor, 1),
      unit: 'bytes',
      baseline: null,
      ratio: null,
    });
  }
  // The heap CYCLES pending records would hold, from the heap figure at the nearest size.
  const nearest = [...heap].sort((a, b) => Math.abs(a.pending - CYCLES) - Math.abs(b.pending - CYCLES))[0];
  const pendingHeap = median(nearest.library) * CYCLES;
  const leftover = Object.values(growth.sizesAfter).reduce((a, b) => a + b, 0);
  const growthOk = growth.growth < GROWTH_TARGET * pendingHeap && leftover === 0;
  rows.push({
    name: `memory store heap growth after ${k(CYCLES)} create→complete→expire cycles`,
    value: round(growth.growth, 0),
    unit: 'bytes',
    baseline: round(pendingHeap, 0),
    ratio: round(growth.growth / pendingHeap, 4),
    target: `ratio < ${GROWTH_TARGET} and store empty`,
    met: growthOk,
  });
  rows.push({
    name: `memory store heap growth per cycle (${k(CYCLES)} cycles)`,
    value: round(growth.growth / CYCLES, 3),
    unit: 'bytes/cycle',
    baseline: round(median(nearest.library), 1),
    ratio: round(growth.growth / CYCLES / median(nearest.library), 4),
  });
  rows.push({
    name: `memory store entries left after ${k(CYCLES)} cycles (records, index, heap, pending, counters)`,
    value: leftover,
    unit: 'entries',
    baseline: null,
    ratio: null,
    target: '== 0',
    met: leftover === 0,
  });
  rows.push({
    name: `memory store create→complete→expire cycle rate (growth run)`,
    value: round(growth.cyclesPerSecond, 0),
    unit: 'cycles/s',
    baseline: null,
    ratio: null,
  });
  const pct = `${SWEEP_DUE_SHARE * 100}%`;
  for (const layout of ['scattered', 'together'] as const) {
    const sweepMs = median(sweep.sweepMs[layout]);
    const scanMs = median(sweep.scanMs[layout]);
    const where = layout === 'scattered' ? `1 in ${Math.round(1 / SWEEP_DUE_SHARE)} records` : 'created together';
    const row: Row = {
      name: `memory store sweep, ${k(SWEEP_PENDING)} pending, ${pct} due (${where})`,
      value: round(sweepMs, 3),
      unit: 'ms',
      baseline: round(scanMs, 3),
      ratio: round(sweepMs / scanMs, 4),
    };
    if (layout === 'scattered')
      Object.assign(row, { target: `ratio <= ${SWEEP_RATIO_TARGET}`, met: sweepMs / scanMs <= SWEEP_RATIO_TARGET });
    rows.push(row);
    rows.push({
      name: `memory store baseline: full scan of ${k(SWEEP_PENDING)}+ records for expiry, read only (${layout} run)`,
      value: round(scanMs, 3),
      unit: 'ms',
      baseline: null,
      ratio: null,
    });
    rows.push({
      name: `memory store sweep cost per due record (${where})`,
      value: round((sweepMs * 1000) / sweep.due, 3),
      unit: 'µs',
      baseline: round((scanMs * 1000) / SWEEP_PENDING, 4),
      ratio: round((sweepMs * 1000) / sweep.due / ((scanMs * 1000) / SWEEP_PENDING), 2),
    });
  }
  const big = median(sweep.sweepMs.together);
  const small = median(smallSweep);
  rows.push({
    name: `memory store sweep of ${k(sweep.due)} due created together: ${k(SWEEP_PENDING)} pending vs ${k(SWEEP_PENDING / 10)} pending`,
    value: round(big, 3),
    unit: 'ms',
    baseline: round(small, 3),
    ratio: round(big / small, 4),
  });
  const rate = median(form);
  rows.push({
    name: 'form validation, 10-field answer (defineForm, compiled once)',
    value: round(rate, 0),
    unit: 'validations/s',
    baseline: null,
    ratio: null,
    target: `>= ${fmt(FORM_TARGET)} validations/s`,
    met: rate >= FORM_TARGET,
  });
  const perPending = median(heap[0].library);
  rows.push({
    name: `memory store heap per waiting task (${k(tasks.tasks)} tasks waiting on a form question), vs per pending elicitation`,
    value: round(tasks.bytesPerTask, 1),
    unit: 'bytes',
    baseline: round(perPending, 1),
    ratio: round(tasks.bytesPerTask / perPending, 4),
    target: `<= ${TASK_HEAP_TARGET} B`,
    met: tasks.bytesPerTask <= TASK_HEAP_TARGET,
  });
  rows.push({
    name: `memory store timers held per waiting task (${k(tasks.tasks)} tasks)`,
    value: round(tasks.timersPerTask, 4),
    unit: 'timers/task',
    baseline: null,
    ratio: null,
    target: '= 0',
    met: tasks.timersPerTask === 0,
  });
  return rows;
}

async function main(): Promise<void> {
  const started = process.hrtime.bigint();
  console.log(
    `memory.bench${QUICK ? ' (QUICK)' : ''}: node ${process.version}, heap at ${HEAP_SIZES.map((h) => `${fmt(h.pending)} pending x ${h.runs}`).join(' and ')}, ` +
      `${fmt(CYCLES)} cycles after ${fmt(WARMUP_CYCLES)} warm-up, sweep of ${fmt(SWEEP_PENDING)} pending x ${SWEEP_RUNS}, ` +
      `form validation ${FORM_RUNS} x ${FORM_RUN_MS} ms`,
  );
  const form = measureForm();
  const heap = await measureHeap();
  const growth = await measureGrowth();
  const sweep = await measureSweep();
  const smallSweep = await measureSmallSweep(sweep.due);
  const tasks = await measureWaitingTasks();

  const rows = buildRows(heap, growth, sweep, smallSweep, form, tasks);
  console.log(
    `\nMedians (ratio = value / baseline; the growth baseline is the heap ${fmt(CYCLES)} pending records hold, ` +
      `the per-due-record baseline the full scan's cost per record):\n`,
  );
  printTable(rows);
  const outFile = mergeResults('memory.bench', rows, { quick: QUICK, seconds: seconds(started) });
  console.log(`\nMerged into ${relative(process.cwd(), outFile) || outFile} in ${seconds(started).toFixed(1)}s total.`);
}

await main();
