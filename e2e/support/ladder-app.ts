/**
 * A small Nest app for ladder tests that need tools of their own (the demo's tools are fixed): the module
 * with the given options, and the demo's MCP route (`examples/demo/mcp.controller.ts`: 2026-07-28 requests
 * through an SDK 2.x handler, 2025-11-25 sessions on SDK 1.x, the demo's bearer identity) serving the tools
 * `register` puts on each server. Pages trust the demo's `demo_user` cookie.
 */
import type { INestApplication } from '@nestjs/common';
import { Inject, Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpServer as Sdk2McpServer } from '@modelcontextprotocol/server';
import { freePort } from '../../examples/demo/demo-process.js';
import { DEMO_ALLOWED_HOSTS, userFromCookie } from '../../examples/demo/demo-identity.js';
import { DemoToolsService } from '../../examples/demo/demo-tools.service.js';
import { McpController } from '../../examples/demo/mcp.controller.js';
import { DEFAULT_MCP_SESSION_LIMITS, MCP_SESSION_OPTIONS } from '../../examples/demo/mcp-sessions.js';
import { ElicitationModule } from '../../src/module/elicitation.module.js';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';
import { McpElicitation, type SdkToolServer } from '../../src/mcp/mcp-elicitation.js';

/** Puts the test's tools on one server (an SDK 1.x server per session, an SDK 2.x server per request). */
export type RegisterLadderTools = (elicitation: McpElicitation, server: SdkToolServer) => void;

/** The running app and where to reach it. */
export interface LadderApp {
  app: INestApplication;
  /** Origin, e.g. `http://127.0.0.1:40123` (also the module's `baseUrl`). */
  url: string;
  /** The MCP endpoint. */
  mcpUrl: string;
}

const SERVER_INFO = { name: 'ladder-e2e', version: '1.0.0' };

/**
 * Starts the app on a free loopback port. `options` override the test defaults (no sweep, no throttle,
 * generous creation limits); always `await app.close()`.
 */
export async function startLadderApp(options: Partial<ElicitationModuleOptions>, register: RegisterLadderTools): Promise<LadderApp> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;

  // Stands in for the demo's tools behind the demo's controller (same two factory methods).
  @Injectable()
  class LadderTools {
    constructor(@Inject(McpElicitation) private readonly elicitation: McpElicitation) {}

    createServer(): McpServer {
      const server = new McpServer(SERVER_INFO);
      register(this.elicitation, server);
      return server;
    }

    createInputRequiredServer(): Sdk2McpServer {
      const server = new Sdk2McpServer(SERVER_INFO, {
        ...this.elicitation.serverOptions(),
        capabilities: { tools: { listChanged: false } },
      });
      register(this.elicitation, server);
      return server;
    }
  }

  const moduleRef = await Test.createTestingModule({
    imports: [
      ElicitationModule.forRoot({
        baseUrl: url,
        resolvePageUser: userFromCookie,
        cleanupIntervalMs: 0,
        throttle: false,
        limits: { createPerMinute: 100_000, maxPendingPerUser: 100_000 },
        ...options,
      }),
    ],
    controllers: [McpController],
    providers: [
      { provide: DemoToolsService, useClass: LadderTools },
      { provide: DEMO_ALLOWED_HOSTS, useValue: new Set(['127.0.0.1', 'localhost']) },
      { provide: MCP_SESSION_OPTIONS, useValue: { ...DEFAULT_MCP_SESSION_LIMITS, anonymous: false } },
    ],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.listen(port, '127.0.0.1');
  return { app, url, mcpUrl: `${url}/mcp` };
}
