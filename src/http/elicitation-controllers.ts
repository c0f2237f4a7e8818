import { Controller, type Type, UseInterceptors } from '@nestjs/common';
import { ElicitationPagesController } from './elicitation-pages.controller.js';
import { ElicitationRouteHeadersInterceptor } from './elicitation-route-headers.interceptor.js';
import { ElicitationRouteContext } from './elicitation-route-observer.js';
import { ElicitationStatusController } from './elicitation-status.controller.js';

/**
 * The module's controllers, mounted under `routePrefix`: the status route and the pages, every answer with the
 * routes' security headers (`ElicitationRouteHeadersInterceptor`) and the request's context for the audit log and
 * the page's span (`ElicitationRouteContext`; `ElicitationRouteObserver`, the first guard, observes each answer). Each call makes a subclass of each per prefix,
 * so that modules with different prefixes can live in one app. What the framework answers on these paths
 * before any controller runs is `ElicitationFrameworkErrors`'s, provided with them.
 */
export function createElicitationControllers(routePrefix: string): Type[] {
  class MountedElicitationStatusController extends ElicitationStatusController {}
  class MountedElicitationPagesController extends ElicitationPagesController {}
  for (const mounted of [MountedElicitationStatusController, MountedElicitationPagesController]) {
    Controller(routePrefix)(mounted);
    UseInterceptors(ElicitationRouteHeadersInterceptor, ElicitationRouteContext)(mounted);
  }
  return [MountedElicitationStatusController, MountedElicitationPagesController];
}
