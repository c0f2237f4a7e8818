import { Test } from '@nestjs/testing';
import { ElicitationModule } from '../../src/module/elicitation.module.js';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';

const noop = () => undefined;
/** Quiet: expected errors (a throwing listener, a failing sweep) are asserted, not printed. */
const silent = { log: noop, error: noop, warn: noop, debug: noop, verbose: noop, fatal: noop };

/** Compiles a testing module around `ElicitationModule.forRoot` (no HTTP server) and initialises it. */
export async function compileElicitation(options: Partial<ElicitationModuleOptions> = {}) {
  const moduleRef = await Test.createTestingModule({
    imports: [
      ElicitationModule.forRoot({
        baseUrl: 'https://mcp.example.com',
        resolvePageUser: () => 'alice',
        cleanupIntervalMs: 0,
        // Unit tests create far more than a user would; the limits have their own tests.
        limits: { createPerMinute: 100_000, maxPendingPerUser: 100_000 },
        ...options,
      }),
    ],
  })
    .setLogger(silent)
    .compile();
  await moduleRef.init();
  return moduleRef;
}
