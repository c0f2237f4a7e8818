import type { Server } from 'node:http';
import type { INestApplication, LoggerService, Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { ElicitationModule } from '../../src/module/elicitation.module.js';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { ElicitationStore } from '../../src/stores/elicitation-store.js';

/** The Content-Security-Policy of every HTML page of the module: nothing but its own nonce'd style and script. */
export const PAGE_CSP =
  /^default-src 'none';\s*style-src 'nonce-([A-Za-z0-9_-]+)';\s*script-src 'nonce-\1';\s*img-src 'self' https: data:;\s*form-action 'self';\s*frame-ancestors 'none';\s*base-uri 'none'$/;

/** Test identity: the browser user is whatever the `x-test-user` header says. */
export const headerUser = (req: { headers: Record<string, string | undefined> }) => req.headers['x-test-user'];

/** The browser-user header for `user` (none for an unidentified browser). */
export const as = (user?: string): Record<string, string> => (user ? { 'x-test-user': user } : {});

/**
 * Module options for page tests: header identity, no sweep, no throttle and generous creation limits
 * (these tests send far more than a browser would; throttling and quotas have their own tests). `options`
 * override any of them; its `limits` are merged into the generous ones.
 */
export function pageTestOptions(options: Partial<ElicitationModuleOptions> & Record<string, unknown> = {}): ElicitationModuleOptions {
  return {
    baseUrl: 'http://127.0.0.1:3000',
    resolvePageUser: headerUser,
    cleanupIntervalMs: 0,
    throttle: false,
    ...options,
    limits: { createPerMinute: 100_000, maxPendingPerUser: 100_000, ...options.limits },
  };
}

/** A real Nest app with the module (and any extra controllers), initialised or listening on a free loopback port. */
export async function startPageApp(
  options: Partial<ElicitationModuleOptions> & Record<string, unknown> = {},
  extra: { logger?: LoggerService; controllers?: Type[]; listen?: boolean } = {},
): Promise<{ app: INestApplication<Server>; service: ElicitationService; store: ElicitationStore }> {
  const builder = Test.createTestingModule({
    imports: [ElicitationModule.forRoot(pageTestOptions(options))],
    controllers: extra.controllers ?? [],
  });
  if (extra.logger) builder.setLogger(extra.logger);
  const app = (await builder.compile()).createNestApplication<INestApplication<Server>>({ logger: extra.logger ?? false });
  if (extra.listen) await app.listen(0, '127.0.0.1');
  else await app.init();
  return { app, service: app.get(ElicitationService), store: app.get(ElicitationStore) };
}
