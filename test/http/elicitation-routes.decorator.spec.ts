import { describe, expect, it } from '@jest/globals';
import { EXCEPTION_FILTERS_METADATA, GUARDS_METADATA } from '@nestjs/common/constants.js';
import { ElicitationAssetsController } from '../../src/http/elicitation-assets.controller.js';
import { createElicitationControllers } from '../../src/http/elicitation-controllers.js';
import { ElicitationExtendController } from '../../src/http/elicitation-extend.controller.js';
import { ElicitationFileController } from '../../src/http/elicitation-file.controller.js';
import { ElicitationInboxController } from '../../src/http/elicitation-inbox.controller.js';
import { ElicitationInboxFilter } from '../../src/http/elicitation-inbox.filter.js';
import { ElicitationOAuthController } from '../../src/http/elicitation-oauth.controller.js';
import { ElicitationPageFilter } from '../../src/http/elicitation-page.filter.js';
import { ElicitationPagesController } from '../../src/http/elicitation-pages.controller.js';
import { ElicitationRoutesGuard } from '../../src/http/elicitation-routes.guard.js';
import { ElicitationStatusController } from '../../src/http/elicitation-status.controller.js';
import { ElicitationStatusFilter } from '../../src/http/elicitation-status.filter.js';

const PAGE_CONTROLLERS = [ElicitationPagesController, ElicitationOAuthController, ElicitationFileController, ElicitationExtendController];

/** What Nest reads off a controller class (its own or inherited metadata, as the router reads it). */
function stackOf(controller: object): { guards: unknown; filters: unknown } {
  return { guards: Reflect.getMetadata(GUARDS_METADATA, controller), filters: Reflect.getMetadata(EXCEPTION_FILTERS_METADATA, controller) };
}

describe('PageRoutes / StatusRoutes / InboxRoutes', () => {
  const guards = [ElicitationRoutesGuard];

  it.each(PAGE_CONTROLLERS.map((controller) => ({ name: controller.name, controller })))(
    '$name: the routes guard (observer, then draining, then throttle); failures as pages',
    ({ controller }) => {
      expect(stackOf(controller)).toEqual({ guards, filters: [ElicitationPageFilter] });
    },
  );

  it('the status controller: the same guards in the same order; failures as JSON', () => {
    expect(stackOf(ElicitationStatusController)).toEqual({ guards, filters: [ElicitationStatusFilter] });
  });

  it('the inbox controller: the same guards in the same order; failures as the request asked (JSON or a page)', () => {
    expect(stackOf(ElicitationInboxController)).toEqual({ guards, filters: [ElicitationInboxFilter] });
  });

  it('the assets controller: no guard (nothing of an elicitation there), failures as pages', () => {
    expect(stackOf(ElicitationAssetsController)).toEqual({ guards: undefined, filters: [ElicitationPageFilter] });
  });

  it('the controllers mounted under a prefix keep the stack of the class they extend (the inbox first: its path is no id)', () => {
    const mounted = createElicitationControllers('ask');
    expect(mounted.map((c) => stackOf(c).guards)).toEqual([...mounted.slice(0, -1).map(() => guards), undefined]);
    expect(mounted.map((c) => stackOf(c).filters)).toEqual([
      [ElicitationInboxFilter],
      [ElicitationPageFilter],
      [ElicitationStatusFilter],
      ...PAGE_CONTROLLERS.map(() => [ElicitationPageFilter]),
      [ElicitationPageFilter],
    ]);
  });
});
