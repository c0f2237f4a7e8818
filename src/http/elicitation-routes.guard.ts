import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { ElicitationDrainingGuard } from './elicitation-draining.guard.js';
import { ElicitationRouteObserver } from './elicitation-route-observer.js';
import { ElicitationThrottlerGuard } from './elicitation-throttler.guard.js';

/**
 * The one guard of every route of the module: the three checks of a request, in the order they run, as one
 * guard (Nest awaits each guard of a route in turn, with a context of its own: one guard costs a third of three).
 *  1. `ElicitationRouteObserver`: the request noted and the page's span started, so that a refusal by the next
 *     ones is counted and audited too; never refuses.
 *  2. `ElicitationDrainingGuard`: 503 while the app shuts down, before the store is touched.
 *  3. `ElicitationThrottlerGuard`: the per-IP throttle (a store `hit`); 429 past the limit.
 */
@Injectable()
export class ElicitationRoutesGuard implements CanActivate {
  constructor(
    private readonly observer: ElicitationRouteObserver,
    private readonly draining: ElicitationDrainingGuard,
    private readonly throttler: ElicitationThrottlerGuard,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    this.observer.canActivate(context);
    this.draining.canActivate(context);
    return this.throttler.canActivate(context);
  }
}
