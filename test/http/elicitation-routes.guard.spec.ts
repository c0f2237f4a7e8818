/**
 * `ElicitationRoutesGuard`, the one guard of the module's routes: the observer first (a refusal by the next checks is
 * audited), then draining (503 before the store is touched), then the per-IP throttle, on real Express requests
 * through Nest's ExecutionContext, with the guards of a real module and its real memory store.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { Get, ServiceUnavailableException } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import { ElicitationDrainingGuard } from '../../src/http/elicitation-draining.guard.js';
import { ElicitationRouteObserver } from '../../src/http/elicitation-route-observer.js';
import { ElicitationRoutesGuard } from '../../src/http/elicitation-routes.guard.js';
import { ElicitationThrottlerGuard } from '../../src/http/elicitation-throttler.guard.js';
import { ElicitationThrottledException } from '../../src/http/exceptions/elicitation-throttled.exception.js';
import { ElicitationPageFilter } from '../../src/http/elicitation-page.filter.js';
import type { ElicitationAuditRecord } from '../../src/options/audit-record.js';
import { ElicitationStore } from '../../src/stores/elicitation-store.js';
import { compileElicitation } from '../support/testing-module.js';
import { exchange } from './http-exchange.support.js';

const ID = '0b6f3a64-9c52-4d0e-8c1e-2f8f1b7a5d10';

class Routes {
  @Get(':id/api-key')
  apiKey(this: void): void {}
}

describe('ElicitationRoutesGuard', () => {
  let moduleRef: TestingModule | undefined;
  afterEach(() => moduleRef?.close());

  /** The guard Nest makes for the routes, from the module's providers. */
  const guardOf = (ref: TestingModule) =>
    new ElicitationRoutesGuard(ref.get(ElicitationRouteObserver), ref.get(ElicitationDrainingGuard), ref.get(ElicitationThrottlerGuard));

  /** One request through the guard; a refusal is answered by the page filter, as on the routes. */
  async function request(guard: ElicitationRoutesGuard, ip: string) {
    return exchange(
      { path: `/elicit/${ID}/api-key`, headers: { 'x-forwarded-for': ip } },
      async (context) => {
        try {
          return await guard.canActivate(context);
        } catch (error) {
          moduleRef!.get(ElicitationPageFilter).catch(error, context);
          throw error;
        }
      },
      { route: '/elicit/:id/:page', controller: Routes, handler: Routes.prototype.apiKey, trustProxy: true },
    );
  }

  async function pageRecords(audited: ElicitationAuditRecord[], count: number): Promise<ElicitationAuditRecord[]> {
    for (let i = 0; i < 100 && audited.filter((r) => r.event.startsWith('page.')).length < count; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return audited.filter((r) => r.event.startsWith('page.'));
  }

  it('counts a request in the throttle and lets it through; past the limit, a 429 that the audit log records as throttled', async () => {
    const audited: ElicitationAuditRecord[] = [];
    moduleRef = await compileElicitation({ throttle: { limit: 1, ttlMs: 60_000 }, audit: (record) => void audited.push(record) });
    const guard = guardOf(moduleRef);
    const first = await request(guard, '203.0.113.7');
    expect(first.result).toBe(true);
    expect(first.headers.get('ratelimit-remaining')).toBe('0');
    const second = await request(guard, '203.0.113.7');
    expect(second.thrown).toBeInstanceOf(ElicitationThrottledException);
    expect(second.status).toBe(429);
    const [refused] = await pageRecords(audited, 1);
    expect(refused).toMatchObject({ event: 'page.refused', reason: 'throttled', status: 429, ip: '203.0.113.7' });
  });

  it('while the app shuts down: 503 before the throttle touches the store, and the refusal still observed', async () => {
    moduleRef = await compileElicitation({ throttle: { limit: 100, ttlMs: 60_000 } });
    const guard = guardOf(moduleRef);
    const store = moduleRef.get(ElicitationStore);
    let hits = 0;
    const hit = store.hit.bind(store);
    store.hit = (...args) => {
      hits++;
      return hit(...args);
    };
    await moduleRef.close();
    const draining = await request(guard, '203.0.113.8');
    moduleRef = undefined;
    expect(draining.thrown).toBeInstanceOf(ServiceUnavailableException);
    expect(draining.status).toBe(503);
    expect(hits).toBe(0);
  });
});
