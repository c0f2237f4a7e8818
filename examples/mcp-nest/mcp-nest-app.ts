/**
 * The demo on `@rekog/mcp-nest` 2.x: the same tools (plan-release a task), identity and pages as `examples/demo`, served by
 * MCP-Nest's microservice strategy at `/mcp` on both protocol eras (2025-11-25 on stateful sessions, 2026-07-28
 * statelessly), with `McpNestElicitationModule` handing each `@Tool()` its `ToolElicitation`; and one tool
 * registered at run time, `connect-service-dynamic` (`dynamic-tools.ts`, `interceptor.dynamicTool`). The demo owns
 * the route (`mcp-http.controller.ts`): a bearer name on every request and bounded sessions, as in `examples/demo`.
 */
import 'reflect-metadata';
import type { Server } from 'node:http';
import { type INestApplication, type LoggerService, type LogLevel, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MCP_HTTP_HANDLER, McpStrategy, StreamableHttpTransport } from '@rekog/mcp-nest';
import { ElicitationModule } from '../../src/index.js';
import { McpNestElicitationModule } from '../../src/mcp-nest/index.js';
import { userFromCookie } from '../demo/demo-identity.js';
import { DemoLoginController } from '../demo/demo-login.controller.js';
import { freePort, limitSlowClients } from '../demo/http-server.js';
import { mcpSessionOptions, type DemoSessionSettings } from '../demo/mcp-sessions.js';
import { ConformanceToolsController } from './conformance-tools.controller.js';
import { DemoToolsController } from './demo-tools.controller.js';
import { DemoDynamicTools } from './dynamic-tools.js';
import {
  admittedSessionId,
  DemoBearerGuard,
  MCP_NEST_ROUTE_OPTIONS,
  McpHttpController,
  type McpNestRouteOptions,
} from './mcp-http.controller.js';

/** Settings of the MCP-Nest demo (from the environment in `main.ts`, from the tests directly). */
export interface McpNestDemoOptions extends DemoSessionSettings {
  /** @default '127.0.0.1' */
  host?: string;
  /** 0 picks a free port. @default 3000 */
  port?: number;
  /** Public origin used in elicitation URLs. @default `http://<host>:<port>` */
  publicUrl?: string;
  ttlMs?: number;
  pendingRetryWaitMs?: number;
  instantDeclineMs?: number;
  keepAliveMs?: number;
  store?: 'memory' | 'redis';
  redisUrl?: string;
  redisPrefix?: string;
  encryptionKey?: string;
  /** MCP-Nest sessions for 2025-11-25 (push needs them). @default true */
  statefulMode?: boolean;
  logger?: LoggerService | LogLevel[] | false;
}

export interface McpNestDemo {
  app: INestApplication;
  url: string;
  mcpUrl: string;
}

/** Builds and starts the MCP-Nest demo. */
export async function startMcpNestDemo(options: McpNestDemoOptions = {}): Promise<McpNestDemo> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port === 0 ? await freePort(host) : (options.port ?? 3000);
  const url = (options.publicUrl ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, '');
  const store =
    options.store === 'redis'
      ? new (await import('../../src/redis/index.js')).RedisElicitationStore(options.redisUrl ?? 'redis://127.0.0.1:6379', {
          keyPrefix: options.redisPrefix,
        })
      : undefined;
  const hosts = ['localhost', '127.0.0.1', '[::1]', new URL(url).hostname.toLowerCase()];
  const route: McpNestRouteOptions = { ...mcpSessionOptions(options), stateful: options.statefulMode ?? true };
  const transport = new StreamableHttpTransport({
    statefulMode: route.stateful,
    // A session's id is the one McpSessions admitted on the demo route (mcp-http.controller.ts).
    sessionIdGenerator: admittedSessionId,
    // DNS-rebinding protection: only the hosts the demo serves.
    security: { allowedHosts: hosts, allowedOrigins: hosts },
  });
  const strategy = new McpStrategy({
    name: 'nestjs-mcp-elicitation-mcp-nest-demo',
    version: '0.1.0',
    transports: [transport],
    logging: options.logger === false ? false : undefined,
  });

  @Module({
    imports: [
      ElicitationModule.forRoot({
        baseUrl: url,
        ttlMs: options.ttlMs,
        pendingRetryWaitMs: options.pendingRetryWaitMs,
        instantDeclineMs: options.instantDeclineMs,
        keepAliveMs: options.keepAliveMs,
        title: 'nestjs-mcp-elicitation demo (MCP-Nest)',
        store,
        encryptionKey: options.encryptionKey,
        resolvePageUser: userFromCookie,
        loginUrl: '/demo/login',
      }),
      McpNestElicitationModule.forRoot(),
    ],
    // MCP conformance suite only (`npm run conformance` sets MCP_CONFORMANCE=1): the suite's test tools.
    controllers: [
      McpHttpController,
      DemoToolsController,
      DemoLoginController,
      ...(process.env.MCP_CONFORMANCE === '1' ? [ConformanceToolsController] : []),
    ],
    providers: [
      { provide: 'MCP_STRATEGY', useValue: strategy },
      // The demo's route delegates to MCP-Nest's handler; reading httpHandlers stops MCP-Nest mounting its own.
      { provide: MCP_HTTP_HANDLER, useValue: transport.httpHandlers },
      { provide: MCP_NEST_ROUTE_OPTIONS, useValue: route },
      DemoBearerGuard,
      // DemoDynamicTools registers connect-service-dynamic at run time (strategy.registerTool, interceptor.dynamicTool).
      DemoDynamicTools,
    ],
  })
  class McpNestDemoModule {}

  const app = await NestFactory.create(McpNestDemoModule, { logger: options.logger });
  strategy.setHttpAdapter(app.getHttpAdapter());
  app.connectMicroservice({ strategy });
  app.enableShutdownHooks();
  await app.startAllMicroservices();
  await app.listen(port, host);
  limitSlowClients(app.getHttpServer() as Server);
  return { app, url, mcpUrl: `${url}/mcp` };
}
