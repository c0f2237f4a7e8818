/**
 * `ElicitationThrottlerGuard`: per-IP fixed windows counted in the elicitation store under `ip:<address>`, the
 * RateLimit headers on every answer, 429 with Retry-After past the limit, nothing at all with `throttle: false`, and
 * a store outage let through (the route answers 503 itself). Run on real Express requests through Nest's
 * ExecutionContext, with the guard and the store of a real module.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { ElicitationStoreUnavailableError } from '../../src/errors/elicitation-store-unavailable.error.js';
import { ElicitationThrottlerGuard } from '../../src/http/elicitation-throttler.guard.js';
import { ElicitationThrottledException } from '../../src/http/exceptions/elicitation-throttled.exception.js';
import { pageTextOf } from '../../src/http/exceptions/page-text.js';
import { DE_MESSAGES } from '../../src/messages/catalogs/de.js';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';
import { ElicitationStore } from '../../src/stores/elicitation-store.js';
import { MemoryElicitationStore } from '../../src/stores/memory.store.js';
import { compileElicitation } from '../support/testing-module.js';
import { exchange } from './http-exchange.support.js';

const WINDOW_MS = 60_000;

/** A request from `ip` (X-Forwarded-For, with trust proxy) through the guard. */
function guarded(guard: ElicitationThrottlerGuard, ip: string) {
  return exchange({ headers: { 'x-forwarded-for': ip } }, (context) => guard.canActivate(context), { trustProxy: true });
}

async function setUp(options: Partial<ElicitationModuleOptions>): Promise<{ moduleRef: TestingModule; guard: ElicitationThrottlerGuard }> {
  const moduleRef = await compileElicitation(options);
  return { moduleRef, guard: moduleRef.get(ElicitationThrottlerGuard) };
}

describe('ElicitationThrottlerGuard', () => {
  let moduleRef: TestingModule;
  let guard: ElicitationThrottlerGuard;
  beforeAll(async () => {
    ({ moduleRef, guard } = await setUp({ throttle: { limit: 2, ttlMs: WINDOW_MS } }));
  });
  afterAll(() => moduleRef.close());

  it('lets the first requests of a window through, saying the limit, what is left and when the window resets', async () => {
    const first = await guarded(guard, '203.0.113.1');
    expect(first.result).toBe(true);
    expect(first.headers.get('ratelimit-limit')).toBe('2');
    expect(first.headers.get('ratelimit-remaining')).toBe('1');
    const reset = Number(first.headers.get('ratelimit-reset'));
    expect(reset).toBeGreaterThanOrEqual(1);
    expect(reset).toBeLessThanOrEqual(WINDOW_MS / 1000);
    expect(first.headers.get('retry-after')).toBeNull();
    const second = await guarded(guard, '203.0.113.1');
    expect(second.result).toBe(true);
    expect(second.headers.get('ratelimit-remaining')).toBe('0');
  });

  it('refuses past the limit with a 429 whose Retry-After and text say when to come back', async () => {
    for (let i = 0; i < 2; i++) await guarded(guard, '203.0.113.2');
    const third = await guarded(guard, '203.0.113.2');
    expect(third.thrown).toBeInstanceOf(ElicitationThrottledException);
    const exception = third.thrown as ElicitationThrottledException;
    expect(exception.getStatus()).toBe(429);
    const retryAfter = Number(third.headers.get('retry-after'));
    expect(retryAfter).toBe(exception.retryAfterSeconds);
    expect(third.headers.get('ratelimit-reset')).toBe(String(retryAfter));
    expect(third.headers.get('ratelimit-remaining')).toBe('0');
    expect(pageTextOf(exception)?.(DE_MESSAGES)).toBe(DE_MESSAGES.errors.throttled(retryAfter));
  });

  it('counts each client address on its own, in the store under ip:<address>, every instance on a shared store alike', async () => {
    for (let i = 0; i < 3; i++) await guarded(guard, '203.0.113.3');
    expect((await guarded(guard, '198.51.100.7')).result).toBe(true);
    // The store is the one count: a hit there is the fourth of 203.0.113.3's window and the second of the other's.
    const store = moduleRef.get(ElicitationStore);
    expect((await store.hit('ip:203.0.113.3', WINDOW_MS, Date.now())).count).toBe(4);
    expect((await store.hit('ip:198.51.100.7', WINDOW_MS, Date.now())).count).toBe(2);
  });

  it("uses the socket's address without trust proxy (a forwarded header is the client's to forge)", async () => {
    const answer = await exchange({ headers: { 'x-forwarded-for': '192.0.2.99' } }, (context) => guard.canActivate(context));
    expect(answer.result).toBe(true);
    const store = moduleRef.get(ElicitationStore);
    expect((await store.hit('ip:192.0.2.99', WINDOW_MS, Date.now())).count).toBe(1);
  });
});

describe('ElicitationThrottlerGuard, throttle off or store down', () => {
  it('throttle: false: every request through, no headers, nothing counted', async () => {
    const { moduleRef, guard } = await setUp({ throttle: false });
    try {
      for (let i = 0; i < 3; i++) {
        const answer = await guarded(guard, '203.0.113.4');
        expect(answer.result).toBe(true);
        expect(answer.headers.get('ratelimit-limit')).toBeNull();
      }
      expect((await moduleRef.get(ElicitationStore).hit('ip:203.0.113.4', WINDOW_MS, Date.now())).count).toBe(1);
    } finally {
      await moduleRef.close();
    }
  });

  /** A store whose counters fail as this error (a store is the app's to plug in: this one's `hit` breaks). */
  class FailingCounterStore extends MemoryElicitationStore {
    constructor(private readonly failure: Error) {
      super();
    }
    override hit(): Promise<{ count: number; resetAt: number }> {
      return Promise.reject(this.failure);
    }
  }

  it('a store outage lets the request through without headers (the route answers 503 itself); another failure is thrown', async () => {
    const down = await setUp({ store: new FailingCounterStore(new ElicitationStoreUnavailableError('hit', new Error('ECONNREFUSED'))) });
    const broken = await setUp({ store: new FailingCounterStore(new TypeError('a bug in the store')) });
    try {
      const passed = await guarded(down.guard, '203.0.113.5');
      expect(passed.result).toBe(true);
      expect(passed.headers.get('ratelimit-limit')).toBeNull();
      const thrown = await guarded(broken.guard, '203.0.113.5');
      expect(thrown.thrown).toBeInstanceOf(TypeError);
    } finally {
      await down.moduleRef.close();
      await broken.moduleRef.close();
    }
  });
});
