import type { IncomingMessage, ServerResponse } from 'node:http';
import { All, type BeforeApplicationShutdown, Controller, Inject, type OnApplicationBootstrap, Req, Res } from '@nestjs/common';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createMcpHandler, isLegacyRequest, type McpHttpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler, toWebRequest, type NodeMcpRequestHandler } from '@modelcontextprotocol/node';
import { bindResponse, McpTaskNotifications } from '../../src/index.js';
import { DEMO_ALLOWED_HOSTS, userFromBearer } from './demo-identity.js';
import { DemoToolsService } from './demo-tools.service.js';
import {
  MCP_SESSION_OPTIONS,
  MCP_SESSION_RETRY_AFTER_S,
  mayUseSession,
  McpSessions,
  sessionOwner,
  type McpSessionOptions,
} from './mcp-sessions.js';

type McpRequest = IncomingMessage & {
  body?: unknown;
  auth?: { token: string; clientId: string; scopes: string[]; extra: Record<string, unknown> };
};

/** The parts of a Fastify request and reply used here (the demo runs on Express or Fastify). */
interface FastifyRequestLike {
  raw: IncomingMessage;
  body?: unknown;
}
interface FastifyReplyLike {
  raw: ServerResponse;
  hijack(): unknown;
}

/**
 * The Node request and response the SDK transport works on, and the parsed JSON body. On Express they are
 * the request and response themselves; on Fastify the reply is hijacked first (Fastify then sends nothing
 * itself, the transport writes to `reply.raw`, SSE streams included), and the body comes from the Fastify
 * request (the raw request's stream was already read by Fastify's parser).
 */
function nodeRequestResponse(request: McpRequest | FastifyRequestLike, response: ServerResponse | FastifyReplyLike) {
  if (typeof (response as FastifyReplyLike).hijack === 'function') {
    const reply = response as FastifyReplyLike;
    reply.hijack();
    const fastifyRequest = request as FastifyRequestLike;
    return { req: fastifyRequest.raw as McpRequest, res: reply.raw, body: fastifyRequest.body };
  }
  const req = request as McpRequest;
  return { req, res: response as ServerResponse, body: req.body };
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  /** Closes the server, which closes its transport (and the binding forgets the session's pairings). */
  close(): Promise<void>;
}

/** How long, at most, shutdown lets the MCP answers in flight go out before it closes the sessions. */
const SHUTDOWN_GRACE_MS = 5_000;

function jsonRpcError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res
    .writeHead(status, { 'Content-Type': 'application/json', ...headers })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/** 401 with `WWW-Authenticate: Bearer` to a request without a bearer user, for what needs one. */
function signInFirst(res: ServerResponse, what: string): void {
  jsonRpcError(res, 401, `Sign in first: ${what} needs Authorization: Bearer <name>`, { 'WWW-Authenticate': 'Bearer' });
}

/**
 * MCP Streamable HTTP at `/mcp`, both protocol eras on one route (on Express or Fastify), for identified users
 * only (the bearer name; `anonymous`, conformance only, lifts that):
 * - 2026-07-28 requests (the `_meta` envelope / `MCP-Protocol-Version: 2026-07-28`) are served
 *   statelessly by an SDK 2.x handler: a fresh server per request, state only in the sealed
 *   `requestState` and the elicitation store, so any instance can take any retry. Each request stands alone, so
 *   each needs the bearer user (401 otherwise, and no tool runs);
 * - 2025-11-25 traffic (`initialize`, then `Mcp-Session-Id`: POST, the GET stream, DELETE) is served on
 *   stateful SDK 1.x sessions, which can push `elicitation/create` and the completion notification. Only an
 *   identified user opens one (401 otherwise, and nothing is created), and they are bounded by `McpSessions`:
 *   per user and overall (the oldest idle session makes room, else 503 with `Retry-After`) and by an idle timeout.
 */
@Controller('mcp')
export class McpController implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly sessions: McpSessions<Session>;
  /** MCP requests whose response is still open, the sessions' GET streams aside (shutdown lets them answer). */
  private readonly answering = new Set<ServerResponse>();
  private readonly inputRequiredHandler: McpHttpHandler;
  private readonly inputRequired: NodeMcpRequestHandler;

  constructor(
    private readonly tools: DemoToolsService,
    @Inject(DEMO_ALLOWED_HOSTS) private readonly allowedHosts: Set<string>,
    @Inject(MCP_SESSION_OPTIONS) private readonly sessionOptions: McpSessionOptions,
    taskNotifications: McpTaskNotifications,
  ) {
    // legacy: 'reject' — legacy traffic never reaches this handler (it is routed to the sessions below). Wrapped so
    // that a subscriptions/listen for task ids gets notifications/tasks.
    this.inputRequiredHandler = taskNotifications.handler(
      createMcpHandler(() => this.tools.createInputRequiredServer(), { legacy: 'reject' }),
    );
    this.inputRequired = toNodeHandler(this.inputRequiredHandler);
    this.sessions = new McpSessions<Session>(sessionOptions);
  }

  /** Number of open sessions (tests check that closed ones are forgotten). */
  get openSessions(): number {
    return this.sessions.size;
  }

  onApplicationBootstrap(): void {
    this.sessions.start();
  }

  @All()
  async handle(@Req() request: McpRequest | FastifyRequestLike, @Res() response: ServerResponse | FastifyReplyLike): Promise<void> {
    const { req, res, body } = nodeRequestResponse(request, response);
    if (req.method !== 'GET') {
      this.answering.add(res);
      res.once('close', () => this.answering.delete(res));
    }
    if (!this.isLocalRequest(req)) return jsonRpcError(res, 403, 'Forbidden host or origin');
    const user = userFromBearer(req);
    if (user) req.auth = { token: user, clientId: user, scopes: [], extra: { userId: user } };
    // A session id means a 2025-11-25 session (2026-07-28 clients never send one); otherwise the SDK decides.
    const sessionId = req.headers['mcp-session-id'];
    if (req.method === 'POST' && sessionId === undefined && !(await isLegacyRequest(await toWebRequest(req, body), body))) {
      if (!user && !this.sessionOptions.anonymous) return signInFirst(res, 'a request');
      return this.inputRequired(req, res, body);
    }

    if (typeof sessionId === 'string') {
      const open = this.sessions.get(sessionId);
      if (!open) return jsonRpcError(res, 404, 'Session not found');
      if (!mayUseSession(open.user, user)) return jsonRpcError(res, 403, 'This session belongs to another user');
      // A GET is the session's standing stream: it neither counts as activity nor keeps the session open.
      if (req.method !== 'GET') res.once('close', this.sessions.begin(sessionId));
      // A call waiting for a person stops when the client hangs up (SDK 1.x tells the tool nothing of its stream).
      return bindResponse(res, () => open.session.transport.handleRequest(req, res, body));
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      return jsonRpcError(res, 400, 'Bad request: no valid session id (send initialize first)');
    }
    if (!user && !this.sessionOptions.anonymous) return signInFirst(res, 'a session');

    const opened = this.sessions.open(sessionOwner(user), (id) => {
      const server = this.tools.createServer();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => id });
      transport.onclose = () => this.sessions.delete(id);
      return { server, transport, close: () => server.close() };
    });
    if (!opened) {
      return jsonRpcError(res, 503, 'Too many open sessions: close one or retry later', {
        'Retry-After': String(MCP_SESSION_RETRY_AFTER_S),
      });
    }
    const { id, session } = opened;
    res.once('close', this.sessions.begin(id));
    try {
      await session.server.connect(session.transport);
      await bindResponse(res, () => session.transport.handleRequest(req, res, body));
    } finally {
      // The transport refused the initialize (e.g. a bad Accept header): no client knows this session.
      if (session.transport.sessionId !== id) await this.sessions.close(id);
    }
  }

  /**
   * Before the HTTP server closes, which waits for every open response (the sessions' GET streams too): the
   * answers in flight go out first (a tool waiting on a person has already ended with ElicitationShutdownError,
   * when the elicitation module was destroyed), for at most SHUTDOWN_GRACE_MS; then every session closes.
   */
  async beforeApplicationShutdown(): Promise<void> {
    const deadline = Date.now() + SHUTDOWN_GRACE_MS;
    while (this.answering.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    await this.inputRequiredHandler.close().catch(() => undefined);
    await this.sessions.closeAll();
  }

  /** DNS-rebinding protection: only the hosts the demo serves, and same-host origins. */
  private isLocalRequest(req: IncomingMessage): boolean {
    const hostname = (host: string) => host.replace(/:\d+$/, '').toLowerCase();
    const host = req.headers.host;
    if (!host || !this.allowedHosts.has(hostname(host))) return false;
    const origin = req.headers.origin;
    if (!origin) return true;
    try {
      return this.allowedHosts.has(new URL(origin).hostname.toLowerCase());
    } catch {
      return false;
    }
  }
}
