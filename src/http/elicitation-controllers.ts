import { Controller, type Type } from '@nestjs/common';
import { ElicitationPagesController } from './elicitation-pages.controller.js';
import { ElicitationStatusController } from './elicitation-status.controller.js';

/**
 * The module's controllers, mounted under `routePrefix`: the status route and the pages. Each call makes a
 * subclass of each per prefix, so that modules with different prefixes can live in one app.
 */
export function createElicitationControllers(routePrefix: string): Type[] {
  class MountedElicitationStatusController extends ElicitationStatusController {}
  class MountedElicitationPagesController extends ElicitationPagesController {}
  Controller(routePrefix)(MountedElicitationStatusController);
  Controller(routePrefix)(MountedElicitationPagesController);
  return [MountedElicitationStatusController, MountedElicitationPagesController];
}
