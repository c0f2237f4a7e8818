/**
 * `observedStore`, the proxy counting the store's failed operations (`elicitation.store.errors`). The module's
 * services use the store through it (`ELICITATION_OBSERVED_STORE`), a provider of its own: Nest must not call the
 * store's lifecycle hooks through it as well, or a custom store would be initialised and closed twice (closing a
 * connection pool twice, say).
 */
import { describe, expect, it } from '@jest/globals';
import type { OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { observedStore } from '../../src/observability/observed-store.js';
import { MemoryElicitationStore } from '../../src/stores/memory.store.js';
import { compileElicitation } from '../support/testing-module.js';

class CountingStore extends MemoryElicitationStore implements OnModuleInit, OnModuleDestroy {
  readonly calls: string[] = [];
  onModuleInit(): void {
    this.calls.push('init');
  }
  onModuleDestroy(): void {
    this.calls.push('destroy');
  }
}

describe('the observed store', () => {
  it("leaves the store's lifecycle hooks to the store's own provider: each runs once", async () => {
    const store = new CountingStore();
    const ref = await compileElicitation({ store });
    await ref.init();
    await ref.close();
    expect(store.calls).toEqual(['init', 'destroy']);
  });
});

/** A memory store whose next `get` fails as an unreachable backend would. */
class FailingStore extends MemoryElicitationStore {
  #failures = 0;
  override async get(id: string, now: number) {
    if (this.#failures-- > 0) throw new Error('connection refused');
    return super.get(id, now);
  }
  failNext(times: number): void {
    this.#failures = times;
  }
}

describe('observedStore (elicitation.store.errors)', () => {
  it('counts each failed operation by its method name and passes results and errors through unchanged', async () => {
    const failing = new FailingStore();
    const counted: string[] = [];
    const store = observedStore(failing, { storeError: (operation) => void counted.push(operation) });
    expect(await store.get('00000000-0000-4000-8000-000000000000', Date.now())).toBeUndefined();
    expect(counted).toEqual([]);
    failing.failNext(2);
    await expect(store.get('x', 0)).rejects.toThrow('connection refused');
    await expect(store.get('x', 0)).rejects.toThrow('connection refused');
    expect(await store.hit('k', 1_000, 0)).toEqual({ count: 1, resetAt: 1_000 });
    expect(counted).toEqual(['get', 'get']);
  });

  it('runs methods on the store itself: private fields, members it lacks, and a method replaced later (a spy) all work', async () => {
    const failing = new FailingStore();
    const counted: string[] = [];
    const store = observedStore(failing, { storeError: (operation) => void counted.push(operation) });
    expect(store).toBeInstanceOf(FailingStore);
    expect((store as { openEventChannel?: unknown }).openEventChannel).toBeUndefined();
    failing.hit = () => Promise.reject(new Error('replaced'));
    await expect(store.hit('k', 1, 0)).rejects.toThrow('replaced');
    expect(counted).toEqual(['hit']);
  });
});
