/**
 * The demo on `@rekog/mcp-nest` 2.x: the same four tools, identity and pages as `examples/demo`, served by
 * MCP-Nest's microservice strategy at `/mcp` on both protocol eras (2025-11-25 on stateful sessions, 2026-07-28
 * statelessly), with `McpNestElicitationModule` handing each `@Tool()` its `ToolElicitation`; and one tool
 * registered at run time, `connect-service-dynamic` (`dynamic-tools.ts`, `interceptor.dynamicTool`).
 */
import 'reflect-metadata';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { type INestApplication, type LoggerService, type LogLevel, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { McpStrategy, StreamableHttpTransport } from '@rekog/mcp-nest';
import { ElicitationModule } from '../../src/index.js';
import { McpNestElicitationModule } from '../../src/mcp-nest/index.js';
import { userFromBearer, userFromCookie } from '../demo/demo-identity.js';
import { DemoLoginController } from '../demo/demo-login.controller.js';
import { freePort, limitSlowClients } from '../demo/http-server.js';
import { ConformanceToolsController } from './conformance-tools.controller.js';
import { DemoToolsController } from './demo-tools.controller.js';
import { DemoDynamicTools } from './dynamic-tools.js';

/** Settings of the MCP-Nest demo (from the environment in `main.ts`, from the tests directly). */
export interface McpNestDemoOptions {
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
  const strategy = new McpStrategy({
    name: 'nestjs-mcp-elicitation-mcp-nest-demo',
    version: '0.1.0',
    transports: [
      new StreamableHttpTransport({
        statefulMode: options.statefulMode ?? true,
        // DNS-rebinding protection: only the hosts the demo serves.
        security: { allowedHosts: hosts, allowedOrigins: hosts },
      }),
    ],
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
    controllers: [DemoToolsController, DemoLoginController, ...(process.env.MCP_CONFORMANCE === '1' ? [ConformanceToolsController] : [])],
    // DemoDynamicTools registers connect-service-dynamic at run time (strategy.registerTool, interceptor.dynamicTool).
    providers: [{ provide: 'MCP_STRATEGY', useValue: strategy }, DemoDynamicTools],
  })
  class McpNestDemoModule {}

  const app = await NestFactory.create(McpNestDemoModule, { logger: options.logger });
  // DEMO-ONLY identity: `Authorization: Bearer <name>` on /mcp becomes `req.user`, where an MCP-Nest auth guard
  // would put the verified user; the adapter reads `req.user.sub`.
  app.use('/mcp', (req: IncomingMessage & { user?: { sub: string } }, _res: ServerResponse, next: () => void) => {
    const user = userFromBearer(req);
    if (user) req.user = { sub: user };
    next();
  });
  strategy.setHttpAdapter(app.getHttpAdapter());
  app.connectMicroservice({ strategy });
  app.enableShutdownHooks();
  await app.startAllMicroservices();
  await app.listen(port, host);
  limitSlowClients(app.getHttpServer() as Server);
  return { app, url, mcpUrl: `${url}/mcp` };
}
