/**
 * A completion made on another instance reaches a waiter here through the event and one store read. When that
 * read fails (the store unreachable for a moment, as the chaos test caught: #15 section 6), it is tried again,
 * backing off, while someone still waits, instead of leaving the waiter asleep until its timeout.
 */
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { ElicitationEvent, ElicitationRecord } from '../../src/core/elicitation.types.js';
import { ElicitationWaiters } from '../../src/lifecycle/elicitation-waiters.js';

const ID = '5f0c2d3e-8a41-4b6f-9c1d-2e3f4a5b6c7d';

function record(status: ElicitationRecord['status']): ElicitationRecord {
  const now = Date.now();
  return {
    id: ID,
    kind: 'api-key',
    type: 'api-key',
    userId: 'alice',
    message: 'Key?',
    status,
    createdAt: now,
    expiresAt: now + 60_000,
    purgeAt: now + 120_000,
    ...(status === 'completed' && { data: { apiKey: 'k' }, finishedAt: now }),
  } as ElicitationRecord;
}

const completedEvent = { type: 'completed', elicitationId: ID, at: Date.now() } as unknown as ElicitationEvent;

function waitersWithStoreFailing(failures: number) {
  let reads = 0;
  const waiters = new ElicitationWaiters({
    current: () => Promise.resolve(record('pending')),
    stored: () => (++reads <= failures ? Promise.reject(new Error('store unreachable')) : Promise.resolve(record('completed'))),
    outcome: (r) => ({ status: 'completed', data: r.data ?? {} }),
  });
  return { waiters, reads: () => reads };
}

describe('ElicitationWaiters.remote', () => {
  it('wakes the waiter with the answer once a failed read of the stored record succeeds again', async () => {
    const { waiters, reads } = waitersWithStoreFailing(3);
    const wait = waiters.wait(ID, { timeoutMs: 20_000 });
    await new Promise((resolve) => setImmediate(resolve));
    waiters.remote(completedEvent);
    await expect(wait).resolves.toEqual({ status: 'completed', data: { apiKey: 'k' } });
    expect(reads()).toBe(4);
    expect(waiters.size).toBe(0);
  });

  it('stops reading once nobody waits any more', async () => {
    const { waiters, reads } = waitersWithStoreFailing(Number.POSITIVE_INFINITY);
    const abort = new AbortController();
    const wait = waiters.wait(ID, { signal: abort.signal });
    await new Promise((resolve) => setImmediate(resolve));
    waiters.remote(completedEvent);
    await new Promise((resolve) => setTimeout(resolve, 150)); // the first read and one retry
    abort.abort(new Error('gone'));
    await expect(wait).rejects.toThrow('gone');
    const after = reads();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(reads()).toBe(after);
  });
});

describe('ElicitationWaiters: the waits on one id share one waiter', () => {
  const N = 50;

  /** Waiters over a record that stays pending, counting the store reads. */
  function sharedWaiters() {
    let reads = 0;
    const waiters = new ElicitationWaiters({
      current: () => {
        reads++;
        return Promise.resolve(record('pending'));
      },
      stored: () => Promise.resolve(record('completed')),
      outcome: (r) => ({ status: 'completed', data: r.data ?? {} }),
    });
    return { waiters, reads: () => reads };
  }

  /** Lets the store reads and the registrations after them run (fake timers leave promises alone). */
  const settle = async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };

  beforeEach(() => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask', 'setImmediate'] });
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('N waits cost one store read and one timer; each leaves when its caller aborts, the last takes the entry with it', async () => {
    const { waiters, reads } = sharedWaiters();
    const aborts = Array.from({ length: N }, () => new AbortController());
    const waits = aborts.map((abort, i) =>
      waiters.wait(ID, { signal: abort.signal, timeoutMs: i % 2 ? 60_000 : undefined }).catch((error: unknown) => error),
    );
    await settle();
    expect(reads()).toBe(1);
    expect(waiters.size).toBe(1);
    expect(waiters.count(ID)).toBe(N);
    expect(jest.getTimerCount()).toBe(1);

    for (const [i, abort] of aborts.entries()) {
      abort.abort(new Error(`gone ${i}`));
      expect(waiters.count(ID)).toBe(N - i - 1);
    }
    const errors = await Promise.all(waits);
    expect(errors.map((e) => (e as Error).message)).toEqual(aborts.map((_, i) => `gone ${i}`));
    expect(waiters.size).toBe(0);
    expect(jest.getTimerCount()).toBe(0);
    expect(reads()).toBe(1);
  });

  it('wakes every wait with the one outcome of a transition, and forgets the id', async () => {
    const { waiters, reads } = sharedWaiters();
    const waits = Array.from({ length: N }, () => waiters.wait(ID));
    await settle();
    waiters.finished(ID, 'completed', '{"apiKey":"k"}');
    const outcomes = await Promise.all(waits);
    expect(new Set(outcomes).size).toBe(1);
    expect(outcomes[0]).toEqual({ status: 'completed', data: { apiKey: 'k' } });
    expect(reads()).toBe(1);
    expect(waiters.count(ID)).toBe(0);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('ends each wait at its own timeout on the one timer, the others still waiting', async () => {
    const { waiters, reads } = sharedWaiters();
    const outcomes: Array<string | undefined> = [undefined, undefined, undefined];
    void waiters.wait(ID, { timeoutMs: 100 }).then((o) => (outcomes[0] = o.status));
    void waiters.wait(ID, { timeoutMs: 300 }).then((o) => (outcomes[1] = o.status));
    void waiters.wait(ID).then((o) => (outcomes[2] = o.status));
    await settle();
    expect(jest.getTimerCount()).toBe(1);
    await jest.advanceTimersByTimeAsync(150);
    expect(outcomes).toEqual(['timeout', undefined, undefined]);
    expect(waiters.count(ID)).toBe(2);
    await jest.advanceTimersByTimeAsync(200);
    expect(outcomes).toEqual(['timeout', 'timeout', undefined]);
    expect(waiters.count(ID)).toBe(1);
    expect(jest.getTimerCount()).toBe(1);
    waiters.finished(ID, 'declined');
    await settle();
    expect(outcomes).toEqual(['timeout', 'timeout', 'declined']);
    expect(reads()).toBe(1);
    expect(waiters.size).toBe(0);
  });

  it('a wait that joins once the record was read reads nothing more', async () => {
    const { waiters, reads } = sharedWaiters();
    const first = waiters.wait(ID);
    await settle();
    const later = waiters.wait(ID, { timeoutMs: 50 });
    await jest.advanceTimersByTimeAsync(60);
    await expect(later).resolves.toEqual({ status: 'timeout' });
    expect(reads()).toBe(1);
    expect(waiters.count(ID)).toBe(1);
    waiters.finished(ID, 'cancelled');
    await expect(first).resolves.toEqual({ status: 'cancelled' });
  });
});
