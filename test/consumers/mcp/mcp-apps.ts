// The README's MCP controllers, run as an app runs them. scripts/consumer-test.mjs copies this file into a
// fixture's src/ (and examples/readme's controllers into src/readme/); the fixture's main.ts, started as
// production starts it (`node dist/main.js`), boots the app CONSUMER_APP names, on PORT, with PUBLIC_URL the
// origin the pages are served on, as the README's files read them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { All, Controller, Module, type OnApplicationShutdown, Req, Res, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import { createMcpHandler, isInitializeRequest, isLegacyRequest, type AuthInfo } from '@modelcontextprotocol/server';
import { ElicitationModule } from 'nestjs-mcp-elicitation';
import { Tools } from './readme/mcp-binding.js';
import { McpBothErasModule } from './readme/mcp-both-eras.controller.js';
import { McpSessionsModule } from './readme/mcp-sessions.controller.js';
import { McpStatelessModule } from './readme/mcp-stateless.controller.js';

type McpRequest = IncomingMessage & { body?: unknown; auth?: AuthInfo };

/**
 * Stands in for the app's browser login (a Passport session, say): the `user` cookie becomes `req.user`, which
 * the README files' `resolvePageUser` reads (`id`); on the MCP-Nest snippet's MCP route its McpAuthGuard sets
 * `req.user` from the bearer token instead.
 */
export function browserLogin(req: IncomingMessage & { user?: { id: string; sub: string } }, _res: ServerResponse, next: () => void): void {
  const user = /(?:^|;\s*)user=(\w+)/.exec(req.headers.cookie ?? '')?.[1];
  if (user) req.user = { id: user, sub: user };
  next();
}

/**
 * The README's MCP binding (examples/readme/mcp-binding.ts: SDK 2.x servers) served for both eras: 2026-07-28
 * requests statelessly, 2025-11-25 clients on SDK 2.x sessions (NodeStreamableHTTPServerTransport). The bearer
 * token is checked as the README files check it (MCP_DEV_TOKENS).
 */
@Controller('mcp')
export class McpBindingController implements OnApplicationShutdown {
  private readonly stateless = createMcpHandler(() => this.tools.createServer(), { legacy: 'reject' });
  private readonly serveStateless = toNodeHandler(this.stateless);
  private readonly sessions = new Map<string, NodeStreamableHTTPServerTransport>();

  constructor(private readonly tools: Tools) {}

  @All()
  async handle(@Req() req: McpRequest, @Res() res: ServerResponse): Promise<void> {
    const token = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const userId = (process.env.MCP_DEV_TOKENS ?? '')
      .split(',')
      .map((entry) => entry.split('='))
      .find(([devToken]) => devToken === token)?.[1];
    if (!token || !userId) return void res.writeHead(401, { 'WWW-Authenticate': 'Bearer' }).end();
    req.auth = { token, clientId: userId, scopes: [], extra: { userId } };
    const sessionId = req.headers['mcp-session-id'];
    if (req.method === 'POST' && sessionId === undefined && !(await isLegacyRequest(await toWebRequest(req, req.body), req.body))) {
      return this.serveStateless(req, res, req.body);
    }
    let transport = typeof sessionId === 'string' ? this.sessions.get(sessionId) : undefined;
    if (!transport && req.method === 'POST' && sessionId === undefined && isInitializeRequest(req.body)) {
      const id = randomUUID();
      transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: () => id });
      transport.onclose = () => this.sessions.delete(id);
      this.sessions.set(id, transport);
      await this.tools.createServer().connect(transport);
    }
    if (!transport) return void res.writeHead(404).end();
    await transport.handleRequest(req, res, req.body);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((transport) => transport.close()));
    await this.stateless.close();
  }
}

@Module({
  imports: [
    ElicitationModule.forRoot({
      baseUrl: process.env.PUBLIC_URL ?? 'http://localhost:3000',
      resolvePageUser: (req: { user?: { id: string } }) => req.user?.id,
    }),
  ],
  providers: [Tools],
  controllers: [McpBindingController],
})
export class McpBindingModule {}

/** The apps CONSUMER_APP names. */
const APPS: Record<string, Type> = {
  'both-eras': McpBothErasModule,
  sessions: McpSessionsModule,
  stateless: McpStatelessModule,
  binding: McpBindingModule,
};

export async function startMcpApp(name: string): Promise<void> {
  const module = APPS[name];
  if (!module) throw new Error(`CONSUMER_APP: no app "${name}" (one of ${Object.keys(APPS).join(', ')})`);
  const app = await NestFactory.create(module);
  app.use(browserLogin);
  await app.listen(process.env.PORT ?? 3000);
  // What the consumer test waits for: this app, not another on the same port, is listening.
  console.log(`listening on port ${process.env.PORT ?? 3000}`);
}
