import { Logger } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { ElicitationModule } from '../../src/elicitation.module.js';
import type { ElicitationModuleOptions } from '../../src/elicitation-options.interface.js';

/** Compiles a testing module around `ElicitationModule.forRoot` (no HTTP server) and initialises it. */
export async function compileElicitation(options: Partial<ElicitationModuleOptions> = {}) {
  // Quiet: expected errors (a throwing listener, a failing sweep) are asserted, not printed.
  Logger.overrideLogger(false);
  const moduleRef = await Test.createTestingModule({
    imports: [
      ElicitationModule.forRoot({
        baseUrl: 'https://mcp.example.com',
        resolvePageUser: () => 'alice',
        cleanupIntervalMs: 0,
        ...options,
      }),
    ],
  })
    .setLogger(false as never)
    .compile();
  await moduleRef.init();
  return moduleRef;
}
