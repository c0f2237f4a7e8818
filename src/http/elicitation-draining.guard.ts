import { type CanActivate, type ExecutionContext, Injectable, ServiceUnavailableException } from '@nestjs/common';
import { ElicitationService } from '../lifecycle/elicitation.service.js';
import { pageError } from './exceptions/page-text.js';
import type { PageResponse } from './page-http.js';

/** The `Retry-After` of a page or status request refused while the app shuts down, in seconds. */
export const DRAINING_RETRY_AFTER_S = 5;

/**
 * While the app shuts down (`ElicitationService.isShuttingDown`), the pages and the status route answer 503
 * before anything else runs (the throttle, the store): a readable page or JSON through the routes' filters,
 * with their security headers, `Retry-After`, and `Connection: close`, so that the browser's next try opens a
 * new connection, which the load balancer gives to an instance that is still serving.
 */
@Injectable()
export class ElicitationDrainingGuard implements CanActivate {
  constructor(private readonly service: ElicitationService) {}

  canActivate(context: ExecutionContext): boolean {
    if (!this.service.isShuttingDown) return true;
    const res = context.switchToHttp().getResponse<PageResponse>();
    res.header('Retry-After', String(DRAINING_RETRY_AFTER_S));
    res.header('Connection', 'close');
    throw pageError(ServiceUnavailableException, (m) => m.errors.shuttingDown);
  }
}
