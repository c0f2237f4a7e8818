import { describe, expect, it } from '@jest/globals';
import { EXCEPTION_FILTERS_METADATA, GUARDS_METADATA } from '@nestjs/common/constants.js';
import { createElicitationControllers } from '../../src/http/elicitation-controllers.js';
import { ElicitationDrainingGuard } from '../../src/http/elicitation-draining.guard.js';
import { ElicitationExtendController } from '../../src/http/elicitation-extend.controller.js';
import { ElicitationFileController } from '../../src/http/elicitation-file.controller.js';
import { ElicitationOAuthController } from '../../src/http/elicitation-oauth.controller.js';
import { ElicitationPageFilter } from '../../src/http/elicitation-page.filter.js';
import { ElicitationPagesController } from '../../src/http/elicitation-pages.controller.js';
import { ElicitationRouteObserver } from '../../src/http/elicitation-route-observer.js';
import { ElicitationStatusController } from '../../src/http/elicitation-status.controller.js';
import { ElicitationStatusFilter } from '../../src/http/elicitation-status.filter.js';
import { ElicitationThrottlerGuard } from '../../src/http/elicitation-throttler.guard.js';

const PAGE_CONTROLLERS = [ElicitationPagesController, ElicitationOAuthController, ElicitationFileController, ElicitationExtendController];

/** What Nest reads off a controller class (its own or inherited metadata, as the router reads it). */
function stackOf(controller: object): { guards: unknown; filters: unknown } {
  return { guards: Reflect.getMetadata(GUARDS_METADATA, controller), filters: Reflect.getMetadata(EXCEPTION_FILTERS_METADATA, controller) };
}

describe('PageRoutes / StatusRoutes', () => {
  const guards = [ElicitationRouteObserver, ElicitationDrainingGuard, ElicitationThrottlerGuard];

  it.each(PAGE_CONTROLLERS.map((controller) => ({ name: controller.name, controller })))(
    '$name: observer, then draining, then throttle; failures as pages',
    ({ controller }) => {
      expect(stackOf(controller)).toEqual({ guards, filters: [ElicitationPageFilter] });
    },
  );

  it('the status controller: the same guards in the same order; failures as JSON', () => {
    expect(stackOf(ElicitationStatusController)).toEqual({ guards, filters: [ElicitationStatusFilter] });
  });

  it('the controllers mounted under a prefix keep the stack of the class they extend', () => {
    const mounted = createElicitationControllers('ask');
    expect(mounted.map((c) => stackOf(c).guards)).toEqual(mounted.map(() => guards));
    expect(mounted.map((c) => stackOf(c).filters)).toEqual([
      [ElicitationStatusFilter],
      ...PAGE_CONTROLLERS.map(() => [ElicitationPageFilter]),
    ]);
  });
});
