/**
 * The module's services use the store through a counting proxy (`ELICITATION_OBSERVED_STORE`), a provider of its
 * own: Nest must not call the store's lifecycle hooks through it as well, or a custom store would be initialised
 * and closed twice (closing a connection pool twice, say).
 */
import { describe, expect, it } from '@jest/globals';
import type { OnModuleDestroy, OnModuleInit } from '@nestjs/common';
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
