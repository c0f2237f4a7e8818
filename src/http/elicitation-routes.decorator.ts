import { applyDecorators, type ExceptionFilter, type Type, UseFilters, UseGuards } from '@nestjs/common';
import { ElicitationInboxFilter } from './elicitation-inbox.filter.js';
import { ElicitationPageFilter } from './elicitation-page.filter.js';
import { ElicitationRoutesGuard } from './elicitation-routes.guard.js';
import { ElicitationStatusFilter } from './elicitation-status.filter.js';

/** The routes' one guard (the observer, then draining, then the throttle: `ElicitationRoutesGuard`), and `filter`. */
function routesAnsweredBy(filter: Type<ExceptionFilter>): ReturnType<typeof applyDecorators> {
  return applyDecorators(UseGuards(ElicitationRoutesGuard), UseFilters(filter));
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

/**
 * On the inbox's controller: the same guards, and every failure answered as the request asked for the inbox, JSON or a
 * page (`ElicitationInboxFilter`).
 */
export function InboxRoutes(): ReturnType<typeof applyDecorators> {
  return routesAnsweredBy(ElicitationInboxFilter);
}
