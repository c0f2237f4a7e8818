import { describe, expect, it } from '@jest/globals';
import { resolveElicitationOptions } from '../../src/options/elicitation-options.validation.js';
import { ElicitationConfigError } from '../../src/errors/elicitation-config.error.js';
import { observedStore } from '../../src/observability/observed-store.js';
import { formatTraceparent, parseTraceparent } from '../../src/observability/otel-api.js';
import { MemoryElicitationStore } from '../../src/stores/memory.store.js';

const resolve = (audit: unknown) =>
  resolveElicitationOptions({ baseUrl: 'http://127.0.0.1:3000', audit: audit as never, allowUnverifiedPages: true }, 'elicit', {}).options
    .audit;

describe('the audit option', () => {
  it("is off by default, and takes 'log', a function or false", () => {
    const sink = () => undefined;
    expect(resolve(undefined)).toBe(false);
    expect(resolve(false)).toBe(false);
    expect(resolve('log')).toBe('log');
    expect(resolve(sink)).toBe(sink);
  });

  it.each([['yes'], [true], [{ sink: 'log' }], [null], ['LOG']])('refuses %p at start-up, naming the option', (bad) => {
    expect(() => resolve(bad)).toThrow(ElicitationConfigError);
    expect(() => resolve(bad)).toThrow(/option "audit" must be 'log'/);
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

describe('traceparent (the trace context in the cross-instance event)', () => {
  const context = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: 1 };

  it('formats a span context and reads it back as a remote one', () => {
    const value = formatTraceparent(context);
    expect(value).toBe('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    expect(parseTraceparent(value)).toEqual({ ...context, isRemote: true });
  });

  it.each([
    [undefined],
    [42],
    ['00-00000000000000000000000000000000-00f067aa0ba902b7-01'],
    ['00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01'],
    ['01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01'],
    ['00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra'],
  ])('reads %p as no trace context', (value) => {
    expect(parseTraceparent(value)).toBeUndefined();
  });
});
