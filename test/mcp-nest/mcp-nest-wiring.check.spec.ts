/**
 * The adapter's start-up checks and its identity message, in a real Nest app (no MCP-Nest needed: `@Elicitation()`
 * and `McpNestElicitationModule` are the library's). That the same holds in a real MCP-Nest process is in
 * e2e/mcp/mcp-nest.e2e-spec.ts (the pins app, which uses `@Elicitation()` without the module).
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { Controller, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { ElicitationModule } from '../../src/module/elicitation.module.js';
import { ElicitationIdentityError } from '../../src/errors/elicitation-identity.error.js';
import type { ToolElicitation } from '../../src/mcp/tool-elicitation.js';
import { Elicitation, McpNestElicitationModule } from '../../src/mcp-nest/index.js';
import { MCP_NEST_NO_USER } from '../../src/errors/mcp-nest-identity.error.js';
import { withAdapterIdentityHint } from '../../src/mcp-nest/mcp-nest-identity.js';
import { NO_ELICITATION_MODULE } from '../../src/mcp-nest/mcp-nest-wiring.check.js';
import { RecordingLogger } from '../../e2e/support/recording-logger.js';

@Controller()
class ForgottenTools {
  deploy(@Elicitation() elicitation: ToolElicitation): string {
    return elicitation.era;
  }
}
// What MCP-Nest's @Tool() records on the method.
Reflect.defineMetadata(
  'mcp:tool',
  { name: 'deploy' },
  Object.getOwnPropertyDescriptor(ForgottenTools.prototype, 'deploy')!.value as object,
);

const elicitationModule = () => ElicitationModule.forRoot({ baseUrl: 'https://x.example', cleanupIntervalMs: 0 });
const apps: INestApplication[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function start(imports: Parameters<typeof Test.createTestingModule>[0]['imports']) {
  const logger = new RecordingLogger();
  const ref = await Test.createTestingModule({ imports, controllers: [ForgottenTools] }).compile();
  const app = ref.createNestApplication({ logger });
  apps.push(app);
  await app.init();
  return logger;
}

const errors = (logger: RecordingLogger) => logger.lines.filter((line) => line.startsWith('error'));

describe('start-up checks', () => {
  it('@Elicitation() without McpNestElicitationModule: one error at start-up naming the method and the module', async () => {
    const logger = await start([elicitationModule()]);
    expect(errors(logger)).toHaveLength(1);
    expect(errors(logger)[0]).toContain(
      '@Elicitation() is used (ForgottenTools.deploy) but McpNestElicitationModule.forRoot() is not imported',
    );
  });

  it('with McpNestElicitationModule: no error', async () => {
    const logger = await start([elicitationModule(), McpNestElicitationModule.forRoot()]);
    expect(errors(logger)).toEqual([]);
  });

  it('McpNestElicitationModule without ElicitationModule.forRoot(): start-up fails naming it', async () => {
    await expect(start([McpNestElicitationModule.forRoot()])).rejects.toThrow(NO_ELICITATION_MODULE);
  });
});

describe('no user on a call through the adapter', () => {
  /** A ToolElicitation whose user is missing, as the binding's are. */
  const bare = {
    era: '2026-07-28',
    get userId(): string {
      throw new ElicitationIdentityError();
    },
    requestUrl: () => Promise.reject(new ElicitationIdentityError()),
    isSupported: () => true,
  } as unknown as ToolElicitation;

  it('names McpNestElicitationModule.forRoot({ resolveUser }) and req.user, not resolveMcpUser; still an ElicitationIdentityError', async () => {
    const hinted = withAdapterIdentityHint(bare);
    expect(MCP_NEST_NO_USER).toMatch(/^No authenticated user/);
    expect(MCP_NEST_NO_USER).toContain('McpNestElicitationModule.forRoot({ resolveUser');
    expect(MCP_NEST_NO_USER).toContain('req.user');
    expect(MCP_NEST_NO_USER).not.toContain('resolveMcpUser');
    expect(() => hinted.userId).toThrow(MCP_NEST_NO_USER);
    const asked = hinted.requestUrl({ kind: 'confirm', message: 'Deploy?' });
    await expect(asked).rejects.toBeInstanceOf(ElicitationIdentityError);
    await expect(asked).rejects.toThrow(MCP_NEST_NO_USER);
    expect(hinted.era).toBe('2026-07-28');
    expect(hinted.isSupported('url')).toBe(true);
  });
});
