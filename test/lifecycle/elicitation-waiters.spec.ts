/**
 * A completion made on another instance reaches a waiter here through the event and one store read. When that
 * read fails (the store unreachable for a moment, as the chaos test caught: #15 section 6), it is tried again,
 * backing off, while someone still waits, instead of leaving the waiter asleep until its timeout.
 */
import { describe, expect, it } from '@jest/globals';
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
