/**
 * What the chaos and load tests (e2e/stores/chaos.e2e-spec.ts) need beside the testing kit: a redis-server that survives
 * its own crash (AOF fsynced on every write), a seeded random source, a bounded worker pool, a browser that
 * presses reload while a page answers 503, the demo's Prometheus counters, and a demo process's memory after a
 * full GC (VmRSS from /proc, V8's heap from the process itself).
 */
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DemoProcess } from '../../examples/demo/demo-process.js';
import { submitPage } from '../../src/testing/index.js';
import { sleep } from '../../test/support/redis-server.js';

/**
 * A seeded random source (mulberry32): `CHAOS_SEED=<n>` replays a run's choices (which page on which
 * instance, in which order), the seed is printed with the figures.
 */
export function seededRandom(seed: number): () => number {
  let t = seed >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let r = Math.imul(t ^ (t >>> 15), 1 | t);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** `items` in a random order (Fisher-Yates), a new array. */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** Runs `task(0..count-1)` with at most `limit` at a time; the results in index order. */
export async function pool<T>(count: number, limit: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      results[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
  return results;
}

/** The elicitation id of a page URL (`…/<id>/<page>`). */
export const idOf = (url: string): string => {
  const id = /\/([0-9a-f-]{36})\/[a-z-]+$/.exec(new URL(url).pathname)?.[1];
  if (!id) throw new Error(`not a page URL: ${url}`);
  return id;
};

/** The same page on `instance` (instances share the store, the key ring and so the CSRF tokens). */
export const pageOn = (instance: DemoProcess, url: string): string => `${instance.url}${new URL(url).pathname}`;

/** How a browser's attempts at one page went: every status in order (0: no answer), the last one final. */
export interface BrowserVisit {
  statuses: number[];
  /** 200 (the done page: acknowledged) or 409 (answered already, e.g. by an attempt whose answer was lost). */
  final: number;
}

/**
 * A person submitting a page: `submitPage` (GET, then POST with the CSRF token and cookie), again after a short
 * pause while the page answers 503 (the store is unavailable) or not at all, until it answers 200 or 409; any
 * other status, `deadline` (epoch ms) passing or `signal` aborting throws. `page(attempt)` names the URL of each
 * attempt (a load balancer may send each to another instance); `onAttempt` hears every status.
 */
export async function visitUntilDone(
  page: (attempt: number) => string,
  fields: Record<string, string>,
  cookie: string,
  { deadline, signal, onAttempt }: { deadline: number; signal?: AbortSignal; onAttempt?: (status: number) => void },
): Promise<BrowserVisit> {
  const statuses: number[] = [];
  for (let attempt = 0; ; attempt++) {
    signal?.throwIfAborted();
    const url = page(attempt);
    const status = await submitPage(url, fields, { cookie }).then(
      (r) => r.status,
      () => 0,
    );
    statuses.push(status);
    onAttempt?.(status);
    if (status === 200 || status === 409) return { statuses, final: status };
    if (status !== 503 && status !== 0) throw new Error(`${url} answered ${status} (attempts: ${statuses.join(', ')})`);
    if (Date.now() > deadline) throw new Error(`${url} still unavailable at the deadline (attempts: ${statuses.join(', ')})`);
    // A person pressing reload: pacing, not a guess at how long anything takes.
    await sleep(50);
  }
}

/** The sum of the samples of counter `name` in a demo's `GET /metrics` whose labels include `labels`. */
export async function counter(instance: DemoProcess, name: string, labels: Record<string, string> = {}): Promise<number> {
  const res = await fetch(`${instance.url}/metrics`);
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}`);
  const text = await res.text();
  let sum = 0;
  for (const [, labelText, value] of text.matchAll(new RegExp(`^${name}\\{([^}]*)\\} (\\S+)$`, 'gm'))) {
    const found = Object.fromEntries([...labelText.matchAll(/(\w+)="([^"]*)"/g)].map(([, k, v]) => [k, v]));
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) sum += Number(value);
  }
  return sum;
}

/**
 * Loaded into a demo process (NODE_OPTIONS `--import`, with `--expose-gc`): on SIGWINCH it runs full GCs and
 * prints V8's heap in use, and the part of it that holds objects (old space and large objects: no compiled code,
 * no young generation). Several GCs, since V8 returns the pages one GC emptied only at a later one; SIGWINCH
 * because Nest's shutdown hooks take SIGTERM/SIGINT and Node takes SIGUSR1.
 */
const GC_ON_SIGNAL = `import { getHeapSpaceStatistics } from 'node:v8';
process.on('SIGWINCH', async () => {
  for (let i = 0; i < 4; i++) {
    globalThis.gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const objects = getHeapSpaceStatistics()
    .filter((space) => space.space_name === 'old_space' || space.space_name === 'large_object_space')
    .reduce((sum, space) => sum + space.space_used_size, 0);
  process.stderr.write('gc-heap-used ' + process.memoryUsage().heapUsed + ' objects ' + objects + '\\n');
});
`;

/** The preload above in a temporary file: `nodeOptions` for a demo's environment, `dispose` removes it. */
export function gcPreload(): { nodeOptions: string; dispose: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'chaos-gc-'));
  const file = join(dir, 'gc-on-signal.mjs');
  writeFileSync(file, GC_ON_SIGNAL);
  return {
    nodeOptions: `${process.env.NODE_OPTIONS ?? ''} --expose-gc --import=${pathToFileURL(file).href}`.trim(),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A demo process's memory right after a full GC, in MB. */
export interface Memory {
  /** VmRSS (/proc/<pid>/status). */
  rss: number;
  /** V8 heap in use. */
  heap: number;
  /** The heap's objects: old space and large objects (compiled code left out). */
  objects: number;
}

/** Asks a demo process started with `gcPreload()` for a full GC and reads its memory (bounded wait). */
export async function memoryAfterGc(p: DemoProcess, waitMs = 10_000): Promise<Memory> {
  const seen = p.output().length;
  p.child.kill('SIGWINCH');
  for (const deadline = Date.now() + waitMs; Date.now() < deadline; await sleep(20)) {
    const heap = /gc-heap-used (\d+) objects (\d+)/.exec(p.output().slice(seen));
    if (!heap) continue;
    const rssKb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p.child.pid}/status`, 'utf8'));
    return { rss: Number(rssKb![1]) / 1024, heap: Number(heap[1]) / 2 ** 20, objects: Number(heap[2]) / 2 ** 20 };
  }
  throw new Error(`demo on port ${p.port} did not report its heap within ${waitMs} ms:\n${p.output().slice(-2_000)}`);
}

/** How many sockets process `pid` holds open (its /proc/<pid>/fd links to `socket:[…]`). */
export function openSockets(pid: number): number {
  let sockets = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) sockets++;
    } catch {
      // closed meanwhile
    }
  }
  return sockets;
}

/**
 * Waits until a demo process holds no more sockets than `idle` (what it held before any request: its listener and
 * its Redis connections), i.e. until the browsers' keep-alive connections have closed (the server closes an idle one
 * after 5 s), so that two measurements see the same connections.
 */
export async function untilIdle(p: DemoProcess, idle: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (openSockets(p.child.pid!) > idle) {
    if (Date.now() > deadline) throw new Error(`demo on port ${p.port} still holds ${openSockets(p.child.pid!)} sockets (idle: ${idle})`);
    await sleep(100);
  }
}

/** `VmRSS a → b MB (+d), heap …, objects …` for the figures. */
export const memoryFigures = (before: Memory, after: Memory): string =>
  (['rss', 'heap', 'objects'] as const)
    .map((k) => `${k === 'rss' ? 'VmRSS' : k} ${before[k].toFixed(2)} → ${after[k].toFixed(2)} MB (${signed(after[k] - before[k])})`)
    .join(', ');

const signed = (n: number) => `${n >= 0 ? '+' : ''}${n.toFixed(2)}`;
