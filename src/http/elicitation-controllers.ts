import { Controller, type Type } from '@nestjs/common';
import { ElicitationAssetsController } from './elicitation-assets.controller.js';
import { ElicitationExtendController } from './elicitation-extend.controller.js';
import { ElicitationFileController } from './elicitation-file.controller.js';
import { ElicitationInboxController } from './elicitation-inbox.controller.js';
import { ElicitationPasskeysController } from './elicitation-passkeys.controller.js';
import { ElicitationOAuthController } from './elicitation-oauth.controller.js';
import { ElicitationPagesController } from './elicitation-pages.controller.js';
import { ElicitationStatusController } from './elicitation-status.controller.js';

/**
 * The module's controllers, mounted under `routePrefix`: the inbox (`ElicitationInboxController`, first: its path is
 * one fixed segment, never an id), the passkey page (`ElicitationPasskeysController`, likewise), the status route, the pages, the OAuth page and callback, the file page
 * (`ElicitationFileController`), "Need more time?" (`ElicitationExtendController`) and the pages' stylesheet and
 * scripts (`ElicitationAssetsController`), every answer with the
 * routes' security headers (`PageSecurity`) and observed (`ElicitationRouteObserver`, the first check of their guard), each handler in its
 * request's context for the audit log and the page's span (`InRouteContext`). Neither uses an interceptor: Nest
 * runs a handler with interceptors through an RxJS pipeline, a measurable share of a page's time. Each call makes
 * a subclass of each per prefix, so that modules with different prefixes can live in one app. What the framework answers on these paths
 * before any controller runs is `ElicitationFrameworkErrors`'s, provided with them.
 */
export function createElicitationControllers(routePrefix: string): Type[] {
  class MountedElicitationInboxController extends ElicitationInboxController {}
  class MountedElicitationPasskeysController extends ElicitationPasskeysController {}
  class MountedElicitationStatusController extends ElicitationStatusController {}
  class MountedElicitationPagesController extends ElicitationPagesController {}
  class MountedElicitationOAuthController extends ElicitationOAuthController {}
  class MountedElicitationExtendController extends ElicitationExtendController {}
  class MountedElicitationFileController extends ElicitationFileController {}
  class MountedElicitationAssetsController extends ElicitationAssetsController {}
  const mounted = [
    MountedElicitationInboxController,
    MountedElicitationPasskeysController,
    MountedElicitationStatusController,
    MountedElicitationPagesController,
    MountedElicitationOAuthController,
    MountedElicitationExtendController,
    MountedElicitationFileController,
    MountedElicitationAssetsController,
  ];
  for (const controller of mounted) Controller(routePrefix)(controller);
  return mounted;
}
