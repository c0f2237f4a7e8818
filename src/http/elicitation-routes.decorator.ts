import { applyDecorators, type ExceptionFilter, type Type, UseFilters, UseGuards } from '@nestjs/common';
import { ElicitationDrainingGuard } from './elicitation-draining.guard.js';
import { ElicitationPageFilter } from './elicitation-page.filter.js';
import { ElicitationRouteObserver } from './elicitation-route-observer.js';
import { ElicitationStatusFilter } from './elicitation-status.filter.js';
import { ElicitationThrottlerGuard } from './elicitation-throttler.guard.js';

/**
 * The guards of every route of the module, in the order they run: the observer first (the request noted, the
 * page's span started, so that a refusal by the next ones is counted and audited too), then the draining guard
 * (503 while the app shuts down, before the store is touched), then the per-IP throttle (a store `hit`).
 */
const ROUTE_GUARDS = [ElicitationRouteObserver, ElicitationDrainingGuard, ElicitationThrottlerGuard] as const;

function routesAnsweredBy(filter: Type<ExceptionFilter>): ReturnType<typeof applyDecorators> {
  return applyDecorators(UseGuards(...ROUTE_GUARDS), UseFilters(filter));
}

/**
 * On a page controller (the pages, the `oauth` page and callback, the file page, "Need more time?"): the routes'
 * guards, and every failure answered as an HTML page (`ElicitationPageFilter`).
 */
export function PageRoutes(): ReturnType<typeof applyDecorators> {
  return routesAnsweredBy(ElicitationPageFilter);
}

/** On the status controller: the same guards, and every failure answered as JSON (`ElicitationStatusFilter`). */
export function StatusRoutes(): ReturnType<typeof applyDecorators> {
  return routesAnsweredBy(ElicitationStatusFilter);
}
