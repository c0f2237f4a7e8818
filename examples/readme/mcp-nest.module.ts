// src/app.module.ts and src/main.ts of an MCP-Nest app (MCP at /mcp), in one file here.
import { AsyncLocalStorage } from 'node:async_hooks';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import {
  type BeforeApplicationShutdown,
  type CanActivate,
  Controller,
  Delete,
  type ExecutionContext,
  Get,
  Inject,
  Injectable,
  Module,
  type OnApplicationBootstrap,
  Post,
  Req,
  Res,
  UnauthorizedException,
  UseGuards,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Payload } from '@nestjs/microservices';
import { MCP_HTTP_HANDLER, McpController, McpStrategy, StreamableHttpTransport, Tool, type McpHttpHandler } from '@rekog/mcp-nest';
import { z } from 'zod';
import { bindResponse, ElicitationModule, MCP_SESSION_RETRY_AFTER_S, McpSessions, type ToolElicitation } from 'nestjs-mcp-elicitation';
import { Elicitation, McpNestElicitationModule } from 'nestjs-mcp-elicitation/mcp-nest';

/** What your auth puts on the request (McpAuthGuard below on MCP requests; your browser login on the pages). */
type SignedInRequest = IncomingMessage & { body?: unknown; user?: { id: string } };
/** An MCP request past McpAuthGuard. */
type McpRequest = SignedInRequest & { user: { id: string } };

/**
 * Your MCP authorization goes here: verify the bearer token (your OAuth server's JWT or introspection) and
 * return its user. To try this file: MCP_DEV_TOKENS='token-a=dev-user' (unset, every MCP request gets 401).
 */
function verifyToken(token: string): string | undefined {
  for (const entry of (process.env.MCP_DEV_TOKENS ?? '').split(',')) {
    const [devToken, userId] = entry.split('=');
    if (devToken === token && userId) return userId;
  }
  return undefined;
}

/** Every MCP request, on both eras, needs a verified user: put on `req.user`, where the adapter reads it; else 401. */
@Injectable()
export class McpAuthGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<SignedInRequest>();
    const token = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const userId = token && verifyToken(token);
    if (userId) {
      req.user = { id: userId };
      return true;
    }
    context.switchToHttp().getResponse<ServerResponse>().setHeader('WWW-Authenticate', 'Bearer');
    throw new UnauthorizedException({ jsonrpc: '2.0', error: { code: -32000, message: 'Unauthorized' }, id: null });
  }
}

/** DEVELOPMENT ONLY: until your browser login sets `req.user`, every browser is "dev-user" outside production. */
function pageUser(req: SignedInRequest): string | undefined {
  if (req.user?.id) return req.user.id;
  return process.env.NODE_ENV === 'production' ? undefined : 'dev-user'; // DEVELOPMENT ONLY
}

@McpController()
export class DeployTools {
  @Tool({ name: 'approve-deploy', description: 'Deploys after you confirm', parameters: z.object({ app: z.string() }) })
  async approve(@Payload() { app }: { app: string }, @Elicitation() elicitation: ToolElicitation) {
    const outcome = await elicitation.requestUrl({ kind: 'confirm', message: `Deploy ${app}?` });
    return { content: [{ type: 'text', text: outcome.status === 'completed' ? `Deployed ${app}` : 'Deployment cancelled' }] };
  }
}

/** The session id MCP-Nest gives the `initialize` being served: the one `McpSessions` admitted (McpHttpController). */
const admitted = new AsyncLocalStorage<{ id: string; taken: boolean }>();

const transport = new StreamableHttpTransport({
  // statefulMode: 2025-11-25 clients get URL and form mode only on sessions (2026-07-28 needs none).
  statefulMode: true,
  sessionIdGenerator: () => {
    const admission = admitted.getStore();
    if (!admission) throw new Error('sessions open only through McpHttpController');
    admission.taken = true;
    return admission.id;
  },
});

export const mcp = new McpStrategy({ name: 'my-server', version: '1.0.0', transports: [transport] });

/** MCP-Nest 2.0.5 ends a session only on its DELETE: an idle or evicted one is ended by handing it one. */
function endSession(handler: McpHttpHandler, id: string): Promise<void> {
  const req = new IncomingMessage(new Socket());
  Object.assign(req, { method: 'DELETE', url: '/mcp', headers: { host: 'localhost', 'mcp-session-id': id } });
  req.rawHeaders = ['Host', 'localhost', 'Mcp-Session-Id', id];
  req.push(null);
  return Promise.resolve(handler.handleDelete(req, new ServerResponse(req)));
}

function jsonRpcError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/** MCP at /mcp through MCP-Nest's handler, for verified users only, its 2025-11-25 sessions bounded with McpSessions. */
@Controller('mcp')
@UseGuards(McpAuthGuard)
export class McpHttpController implements OnApplicationBootstrap, BeforeApplicationShutdown {
  // At most 5 sessions per user and 1000 in the process; a session idle for 5 minutes closes.
  private readonly sessions = new McpSessions<{ close(): Promise<void> }>({ idleMs: 5 * 60_000, maxPerUser: 5, max: 1000 });

  constructor(@Inject(MCP_HTTP_HANDLER) private readonly handler: McpHttpHandler) {}

  onApplicationBootstrap(): void {
    this.sessions.start();
  }

  // The answers in flight go out (at most 5 s), then every session ends.
  async beforeApplicationShutdown(): Promise<void> {
    await this.sessions.closeAll({ graceMs: 5_000 });
  }

  @Post()
  async post(@Req() req: McpRequest, @Res() res: ServerResponse): Promise<void> {
    const sessionId = req.headers['mcp-session-id'];
    if (sessionId !== undefined) {
      if (!this.mayUse(sessionId, req, res)) return;
      res.once('close', this.sessions.begin(sessionId)); // a call in flight: not idle
      return bindResponse(res, () => this.handler.handlePost(req, res)); // a hang-up ends the call's waits
    }
    // 2026-07-28 requests carry no session: nothing to bound.
    if ((req.body as { method?: string } | undefined)?.method !== 'initialize')
      return bindResponse(res, () => this.handler.handlePost(req, res));

    const admission = { id: '', taken: false };
    const opened = this.sessions.open(req.user.id, (id) => ({
      close: () => (admission.taken ? endSession(this.handler, id) : Promise.resolve()),
    }));
    if (!opened) return jsonRpcError(res, 503, 'Too many open sessions', { 'Retry-After': String(MCP_SESSION_RETRY_AFTER_S) });
    admission.id = opened.id;
    res.once('close', this.sessions.begin(opened.id));
    await admitted.run(admission, () => bindResponse(res, () => this.handler.handlePost(req, res)));
    if (!admission.taken) await this.sessions.close(opened.id); // initialize refused: MCP-Nest kept nothing
  }

  @Get() // the session's standing stream: it does not count as activity
  get(@Req() req: McpRequest, @Res() res: ServerResponse): Promise<void> | void {
    const sessionId = req.headers['mcp-session-id'];
    if (sessionId !== undefined && !this.mayUse(sessionId, req, res)) return;
    return this.handler.handleGet(req, res);
  }

  @Delete()
  async delete(@Req() req: McpRequest, @Res() res: ServerResponse): Promise<void> {
    const sessionId = req.headers['mcp-session-id'];
    if (sessionId !== undefined && !this.mayUse(sessionId, req, res)) return;
    await this.handler.handleDelete(req, res);
    if (typeof sessionId === 'string' && res.statusCode === 200) this.sessions.delete(sessionId); // MCP-Nest closed it
  }

  private mayUse(id: string | string[], req: McpRequest, res: ServerResponse): id is string {
    const open = typeof id === 'string' ? this.sessions.get(id) : undefined;
    if (open?.user === req.user.id) return true;
    if (open) jsonRpcError(res, 403, 'This session belongs to another user');
    else jsonRpcError(res, 404, 'Session not found'); // closed or expired: the client initializes again
    return false;
  }
}

@Module({
  imports: [
    ElicitationModule.forRoot({
      baseUrl: process.env.PUBLIC_URL ?? `http://localhost:${process.env.PORT ?? 3000}`, // the origin browsers use
      resolvePageUser: (req: SignedInRequest) => pageUser(req), // who opened a page
    }),
    // Who makes a tool call: req.user.sub, then req.user.id (set by McpAuthGuard); or forRoot({ resolveUser }).
    McpNestElicitationModule.forRoot(),
  ],
  controllers: [McpHttpController, DeployTools],
  providers: [
    McpAuthGuard,
    { provide: MCP_HTTP_HANDLER, useValue: transport.httpHandlers }, // your controller owns /mcp: MCP-Nest mounts none
    { provide: 'MCP_STRATEGY', useValue: mcp }, // lets the adapter check statefulMode at start-up
  ],
})
export class AppModule {}

// src/main.ts, as MCP-Nest documents it
export async function bootstrap() {
  const app = await NestFactory.create(AppModule);
  mcp.setHttpAdapter(app.getHttpAdapter());
  app.connectMicroservice({ strategy: mcp });
  await app.startAllMicroservices();
  await app.listen(process.env.PORT ?? 3000);
}
