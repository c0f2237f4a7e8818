/**
 * Fenced task runs (#41 parts 1 and 2): two runners (two instances) on one task store. A cancel on the other
 * instance reaches the running body's signal within `leaseMs / 3`, and the run's end writes nothing; a run taken over
 * by the other instance (its lease gone, a new fencing token) stops and writes nothing, so the tool's effect happens
 * once; a run whose process was busy past its deadline sees `signal.aborted` at once, before any timer could run;
 * a healthy run is never taken over by an instance whose clock runs ahead. On the memory store and on a real Redis
 * (the lease timed by Redis's clock).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { decodeBody } from '../../../src/mcp/tasks/task-body.js';
import { TaskRunner, type TaskContext, type TaskTool } from '../../../src/mcp/tasks/task-runner.js';
import { RedisElicitationStore } from '../../../src/redis/redis.store.js';
import { MemoryTasks } from '../../../src/stores/memory-tasks.js';
import type { ElicitationTaskStore } from '../../../src/stores/task-store.js';
import { describeRedis, deletePrefix, REDIS_URL } from '../../support/redis.js';
import { keyed } from '../../support/store-keys.js';

const LEASE_MS = 600;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 10 ms for up to `ms`. */
async function eventually(check: () => boolean | Promise<boolean>, ms = 3_000): Promise<boolean> {
  const started = Date.now();
  while (Date.now() - started < ms) {
    if (await check()) return true;
    await sleep(10);
  }
  return check();
}

/** A runner (an instance) on `store`, with `tools`, a lease of LEASE_MS and its own clock offset. */
function instance(store: ElicitationTaskStore, tools: Record<string, TaskTool['body']>, clockAheadMs = 0): TaskRunner {
  return new TaskRunner({
    store,
    questions: { service: {} as never } as never,
    settings: {
      ttlMs: 60_000,
      pollIntervalMs: 1_000,
      maxOpenPerUser: 50,
      leaseMs: LEASE_MS,
      maxFinishedPerUser: 100,
      maxFinished: 10_000,
      maxOpenAnonymous: 100,
    },
    tools: new Map(Object.entries(tools).map(([name, body]) => [name, { body }])),
    now: () => Date.now() + clockAheadMs,
  });
}

/** The signal of a body's context. */
const signalOf = (context: unknown) => (context as TaskContext).task.signal;

function leaseTests(name: string, storeOf: () => Promise<ElicitationTaskStore>): void {
  describe(`fenced task runs on ${name}`, () => {
    it('a cancel on the other instance reaches the running body within leaseMs / 3; its end writes nothing', async () => {
      const store = await storeOf();
      let aborted: { at: number; reason: unknown } | undefined;
      const effects: string[] = [];
      const tool = async (_args: unknown, _e: unknown, context: unknown) => {
        const signal = signalOf(context);
        signal.addEventListener('abort', () => (aborted = { at: Date.now(), reason: signal.reason }));
        await eventually(() => signal.aborted, 5_000);
        if (!signal.aborted) effects.push('done');
        return 'finished';
      };
      const a = instance(store, { work: tool });
      const b = instance(store, { work: tool });
      const { task } = await a.start('work', {}, 'u1', []);
      await sleep(50);
      const cancelledAt = Date.now();
      await b.cancel(task.id, 'u1');
      expect(await eventually(() => aborted !== undefined)).toBe(true);
      expect(aborted!.at - cancelledAt).toBeLessThanOrEqual(LEASE_MS / 3 + 250);
      expect(String(aborted!.reason)).toMatch(/cancelled/);
      await sleep(100);
      const stored = await store.getTask(task.id, Date.now());
      expect(stored?.status).toBe('cancelled');
      expect(decodeBody(stored!).result).toBeUndefined();
      expect(effects).toEqual([]);
    });

    it('a run taken over by the other instance (its lease ran out while it was stuck) stops and writes nothing: the effect happens once', async () => {
      const store = await storeOf();
      const effects: string[] = [];
      let stuck = true;
      const work = async (_args: unknown, _e: unknown, context: unknown) => {
        const signal = signalOf(context);
        // The first run is stuck (a pause, a slow call) past its lease; a run taken over after it is not.
        while (stuck && !signal.aborted) await sleep(5);
        if (signal.aborted) return 'stopped';
        effects.push('effect');
        return 'ran';
      };
      const a = instance(store, { work });
      const b = instance(store, { work });
      const { task } = await a.start('work', {}, 'u1', []);
      await sleep(20);
      // A's renewals stop (its store calls hang, as in a paused process): B's read finds the lease run out and takes over.
      const real = store.putTask.bind(store);
      const aWrites = (task: Parameters<typeof store.putTask>[0], now: number) => {
        const owner = task.lease?.owner;
        return owner && owner !== (b as unknown as { instanceId: string }).instanceId
          ? new Promise<never>(() => undefined)
          : real(task, now);
      };
      store.putTask = aWrites;
      await sleep(LEASE_MS + 100);
      // B takes the task over while A is still stuck (on a loaded machine A's body could otherwise go on first).
      await b.read(task.id, 'u1');
      expect(await eventually(async () => decodeBody((await store.getTask(task.id, Date.now()))!).fence === 2)).toBe(true);
      store.putTask = real;
      stuck = false;
      expect(await eventually(async () => (await store.getTask(task.id, Date.now()))?.status === 'completed')).toBe(true);
      await sleep(200);
      const done = await store.getTask(task.id, Date.now());
      expect(effects).toEqual(['effect']);
      expect(decodeBody(done!).result).toEqual({ content: [{ type: 'text', text: 'ran' }] });
      // Two runs took the task: the fencing token grew with each.
      expect(decodeBody(done!).fence).toBe(2);
    });

    it("a body busy past its lease's deadline reads signal.aborted at once (no timer had its turn)", async () => {
      const store = await storeOf();
      let seen: { aborted: boolean; reason: unknown } | undefined;
      const busy = (_args: unknown, _e: unknown, context: unknown) => {
        const signal = signalOf(context);
        if (seen) return 'the run after';
        const until = performance.now() + LEASE_MS + 50;
        while (performance.now() < until) {
          // A synchronous loop: no timer, no renewal runs meanwhile.
        }
        seen = { aborted: signal.aborted, reason: signal.reason };
        return 'late';
      };
      const a = instance(store, { busy });
      const { task } = await a.start('busy', {}, 'u1', []);
      expect(await eventually(() => seen !== undefined)).toBe(true);
      expect(seen!.aborted).toBe(true);
      expect(String(seen!.reason)).toMatch(/lease on the task ran out/);
      // Nobody took the task meanwhile: the run leaves it due and unleased, and a run after it completes it.
      expect(await eventually(async () => (await store.getTask(task.id, Date.now()))?.status === 'completed')).toBe(true);
    });

    it('an instance whose clock runs ahead never takes over a healthy run by serving tasks/get', async () => {
      const store = await storeOf();
      let runs = 0;
      let finish!: () => void;
      const finished = new Promise<void>((resolve) => (finish = resolve));
      const slow = async (_args: unknown, _e: unknown, context: unknown) => {
        runs++;
        await Promise.race([finished, new Promise((resolve) => signalOf(context).addEventListener('abort', resolve))]);
        return 'ok';
      };
      const a = instance(store, { slow });
      const ahead = instance(store, { slow }, 1_200);
      const { task } = await a.start('slow', {}, 'u1', []);
      for (let i = 0; i < 8; i++) {
        await ahead.read(task.id, 'u1');
        await sleep(LEASE_MS / 4);
      }
      finish();
      expect(await eventually(async () => (await store.getTask(task.id, Date.now()))?.status === 'completed')).toBe(true);
      expect(runs).toBe(1);
    });
  });
}

leaseTests('the memory store', () => Promise.resolve(new MemoryTasks()));

const PREFIX = `test-lease-${randomUUID().slice(0, 8)}`;
describeRedis('on a real Redis', () => {
  let client: Redis;
  let n = 0;
  beforeAll(() => {
    client = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    await deletePrefix(client, PREFIX);
    await client.quit();
  });
  leaseTests('Redis (its clock: TIME)', () =>
    Promise.resolve(keyed(new RedisElicitationStore(client, { keyPrefix: `${PREFIX}-${++n}` })) as unknown as ElicitationTaskStore),
  );
});
