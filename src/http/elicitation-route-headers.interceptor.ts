import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { Observable } from 'rxjs';
import type { PageResponse } from './page-http.js';
import { PageSecurity } from './page-security.js';

/**
 * Puts the security headers every answer of the module's routes carries on the response before the route
 * runs (`PageSecurity.applyBaseHeaders`), so that answers without a body of their own carry them too: the
 * status route's JSON and the pages' redirects (to sign in, to the canonical path). Pages set their own CSP
 * over it; errors get them from the routes' filters.
 */
@Injectable()
export class ElicitationRouteHeadersInterceptor implements NestInterceptor {
  constructor(private readonly security: PageSecurity) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    this.security.applyBaseHeaders(context.switchToHttp().getResponse<PageResponse>());
    return next.handle();
  }
}
