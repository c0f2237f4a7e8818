import { ConfigurableModuleBuilder } from '@nestjs/common';
import { DEFAULT_ROUTE_PREFIX, ELICITATION_ROUTE_PREFIX } from '../options/elicitation.constants.js';
import type { ElicitationModuleOptions } from '../options/elicitation-options.interface.js';
import { createElicitationControllers } from '../http/elicitation-controllers.js';
import { ElicitationFrameworkErrors } from '../http/elicitation-framework-errors.js';
import { ElicitationMultipartParser } from '../http/elicitation-multipart.js';
import { ElicitationUploads } from '../http/elicitation-uploads.js';
import { validateRoutePrefix } from '../options/elicitation-options.validation.js';

/**
 * Options known synchronously, at import time: whether the module is global, whether its HTTP routes
 * are mounted, and the URL segment they are mounted under.
 */
export interface ElicitationModuleExtras {
  /** Make `ElicitationService` injectable everywhere. @default false */
  isGlobal?: boolean;
  /** Mount the pages and the status route. @default true */
  controllers?: boolean;
  /** URL segment the routes are mounted under (`/elicit/:id/...`). @default 'elicit' */
  routePrefix?: string;
}

export const {
  ConfigurableModuleClass: ElicitationConfigurableModule,
  MODULE_OPTIONS_TOKEN: ELICITATION_MODULE_OPTIONS,
  ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<ElicitationModuleOptions>({ moduleName: 'Elicitation' })
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createElicitationOptions')
  .setExtras<ElicitationModuleExtras>({ isGlobal: false, controllers: true, routePrefix: DEFAULT_ROUTE_PREFIX }, (definition, extras) => {
    const routePrefix = validateRoutePrefix(extras.routePrefix ?? DEFAULT_ROUTE_PREFIX);
    const mounted = extras.controllers !== false;
    return {
      ...definition,
      global: extras.isGlobal,
      controllers: mounted ? createElicitationControllers(routePrefix) : [],
      providers: [
        ...(definition.providers ?? []),
        { provide: ELICITATION_ROUTE_PREFIX, useValue: routePrefix },
        // The framework's own errors on the routes' paths, answered by the module (only where it mounts routes).
        ...(mounted ? [ElicitationFrameworkErrors] : []),
        // The file page's multipart posts left unread on Fastify too, and its uploads' budget (only where it mounts routes).
        ...(mounted ? [ElicitationMultipartParser, ElicitationUploads] : []),
      ],
    };
  })
  .build();

/**
 * What `ElicitationModule.forRootAsync` takes: `imports`, `inject` and one of `useFactory`, `useClass`
 * (an `ElicitationOptionsFactory`) or `useExisting`, plus the synchronous extras (`isGlobal`,
 * `controllers`, `routePrefix`).
 */
export type ElicitationModuleAsyncOptions = typeof ASYNC_OPTIONS_TYPE;
