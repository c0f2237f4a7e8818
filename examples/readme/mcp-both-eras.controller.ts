// MCP at /mcp for both protocol eras on one route: 2026-07-28 requests served statelessly by SDK 2.x
// (@modelcontextprotocol/server, @modelcontextprotocol/node), 2025-11-25 clients on SDK 1.x
// (@modelcontextprotocol/sdk) sessions bounded with McpSessions. The same tool body serves both. Express (Nest's
// default platform, which parses the JSON body). Start it with `(await NestFactory.create(McpBothErasModule)).listen(process.env.PORT ?? 3000)`.
// The bearer check and the page's user come from mcp-auth.ts: copy it beside this file.
import type { ServerResponse } from 'node:http';
import { All, Controller, Module, type OnApplicationBootstrap, type BeforeApplicationShutdown, Req, Res } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import { createMcpHandler, isLegacyRequest, McpServer as McpServerV2 } from '@modelcontextprotocol/server';
import {
  bindResponse,
  defineForm,
  ElicitationModule,
  MCP_SESSION_RETRY_AFTER_S,
  McpElicitation,
  McpSessions,
  type SdkToolServer,
} from 'nestjs-mcp-elicitation';
import { z } from 'zod';
import { authenticate, jsonRpcError, type McpRequest, resolvePageUser, unauthorized } from './mcp-auth.js';

const confirmDelete = defineForm({
  type: 'object',
  properties: { confirmed: { type: 'boolean', title: 'Delete it' } },
  required: ['confirmed'],
});

interface Session {
  server: McpServer;
  transport: StreamableHTTPServerTransport;
  close(): Promise<void>;
}

@Controller('mcp')
export class McpBothErasController implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly stateless = createMcpHandler(() => this.createStatelessServer(), { legacy: 'reject' });
  private readonly serveStateless = toNodeHandler(this.stateless);
  // At most 5 sessions per user and 1000 in the process; a session idle for 5 minutes closes.
  private readonly sessions = new McpSessions<Session>({ idleMs: 5 * 60_000, maxPerUser: 5, max: 1000 });

  constructor(private readonly elicitation: McpElicitation) {}

  onApplicationBootstrap(): void {
    this.sessions.start();
  }

  // Before the HTTP server closes (it waits for every open stream): the answers in flight go out (a tool waiting
  // on a person has just ended with ElicitationShutdownError), for at most 5 s, then every session closes.
  async beforeApplicationShutdown(): Promise<void> {
    await this.sessions.closeAll({ graceMs: 5_000 });
    await this.stateless.close();
  }

  @All()
  async handle(@Req() req: McpRequest, @Res() res: ServerResponse): Promise<void> {
    const user = authenticate(req);
    if (!user) return unauthorized(res); // nothing created
    const sessionId = req.headers['mcp-session-id'];
    // 2026-07-28: no session id, and the SDK does not classify the request as 2025-era.
    if (req.method === 'POST' && sessionId === undefined && !(await isLegacyRequest(await toWebRequest(req, req.body), req.body))) {
      return this.serveStateless(req, res, req.body);
    }
    // 2025-11-25: initialize opens a session, later requests carry its Mcp-Session-Id.
    if (typeof sessionId === 'string') {
      const open = this.sessions.get(sessionId);
      if (!open) return jsonRpcError(res, 404, 'Session not found'); // closed or expired: the client initializes again
      if (open.user !== user) return jsonRpcError(res, 403, 'This session belongs to another user');
      if (req.method !== 'GET') res.once('close', this.sessions.begin(sessionId)); // a call in flight: not idle
      // bindResponse: a call waiting for a person stops when its client hangs up (SDK 1.x tells the tool nothing).
      return bindResponse(res, () => open.session.transport.handleRequest(req, res, req.body));
    }
    if (req.method !== 'POST' || !isInitializeRequest(req.body)) return jsonRpcError(res, 400, 'Send initialize first');

    const opened = this.sessions.open(user, (id) => {
      const server = new McpServer({ name: 'my-app', version: '1.0.0' });
      this.registerTools(server);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => id });
      transport.onclose = () => this.sessions.delete(id);
      return { server, transport, close: () => server.close() }; // closes the transport too
    });
    if (!opened) return jsonRpcError(res, 503, 'Too many open sessions', { 'Retry-After': String(MCP_SESSION_RETRY_AFTER_S) });
    const { id, session } = opened;
    res.once('close', this.sessions.begin(id));
    await session.server.connect(session.transport);
    await bindResponse(res, () => session.transport.handleRequest(req, res, req.body));
    if (session.transport.sessionId !== id) await this.sessions.close(id); // initialize refused: nobody knows the id
  }

  private createStatelessServer(): McpServerV2 {
    // serverOptions(): a tampered, expired, replayed or other user's requestState is refused before the tool runs.
    const server = new McpServerV2({ name: 'my-app', version: '1.0.0' }, { ...this.elicitation.serverOptions() });
    this.registerTools(server);
    return server;
  }

  /** The tools, written once: the same body serves a 2025-11-25 session (SDK 1.x) and a 2026-07-28 request (SDK 2.x). */
  private registerTools(server: SdkToolServer): void {
    this.elicitation.registerTool(
      server,
      'connect-service',
      { description: 'Connects a service with your API key', inputSchema: z.object({ service: z.string() }) },
      async ({ service }, elicitation) => {
        // The stored key, or the api-key page: 2025-11-25 fails the call with -32042 and the client retries after
        // the completion notification; 2026-07-28 answers input_required and the client's retry finds the key.
        await elicitation.requireAnswer({ kind: 'api-key', type: `api-key-${service}`, message: `Enter your ${service} API key.` });
        return { content: [{ type: 'text', text: `Connected to ${service}` }] };
      },
    );
    this.elicitation.registerTool(
      server,
      'delete-file',
      { description: 'Deletes a file once you confirm', inputSchema: z.object({ path: z.string() }) },
      async ({ path }, elicitation) => {
        // Form mode in the client (or, for a client without it, the hosted form page), in both eras.
        const answer = await elicitation.elicit(`Delete ${path}?`, confirmDelete);
        const confirmed = answer.action === 'accept' && answer.content.confirmed;
        return { content: [{ type: 'text', text: confirmed ? `Deleted ${path}` : `Kept ${path}` }] };
      },
    );
  }
}

@Module({
  imports: [
    ElicitationModule.forRoot({
      baseUrl: process.env.PUBLIC_URL ?? `http://localhost:${process.env.PORT ?? 3000}`, // the public origin browsers use
      resolvePageUser, // the page's user: req.user.id, set by your browser login
    }),
  ],
  controllers: [McpBothErasController],
})
export class McpBothErasModule {}
