/**
 * The MCP-Nest demo's own `/mcp` route, in front of MCP-Nest's Streamable HTTP handler (`transport.httpHandlers`,
 * provided as `MCP_HTTP_HANDLER`, which also stops the transport from mounting a route of its own): the same rules
 * as the SDK demo's route (`examples/demo/mcp.controller.ts`).
 *
 * - `DemoBearerGuard` identifies every request (both eras) by its bearer name and puts the user on `req.user`,
 *   where the adapter reads it; a request without one gets 401 and reaches neither MCP-Nest nor a tool.
 * - MCP-Nest 2.0.5 bounds none of its 2025-11-25 sessions (it opens one per `initialize` and forgets it only on the
 *   client's DELETE), so the route keeps them in the package's `McpSessions` as the SDK demo does: per user, overall
 *   (the oldest idle session makes room, else 503 with `Retry-After`) and by an idle timeout. The session id MCP-Nest
 *   gives an `initialize` is the one `McpSessions` admitted (`admittedSessionId`, the transport's
 *   `sessionIdGenerator`), and a session `McpSessions` closes is ended the one way MCP-Nest offers: its DELETE.
 */
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
  type OnApplicationBootstrap,
  Post,
  Req,
  Res,
  UnauthorizedException,
  UseGuards,
} from '@nestjs/common';
import { MCP_HTTP_HANDLER, type McpHttpHandler } from '@rekog/mcp-nest';
import { bindResponse } from '../../src/index.js';
import { userFromBearer } from '../demo/demo-identity.js';
import { MCP_SESSION_RETRY_AFTER_S, mayUseSession, McpSessions, sessionOwner, type McpSessionOptions } from '../demo/mcp-sessions.js';

/** What the route is given: the session limits, the conformance flag, and whether MCP-Nest keeps sessions. */
export interface McpNestRouteOptions extends McpSessionOptions {
  /** The transport's `statefulMode`: without it, MCP-Nest opens no session and there is nothing to bound. */
  stateful: boolean;
}

/** Injection token of the {@link McpNestRouteOptions}. */
export const MCP_NEST_ROUTE_OPTIONS = Symbol('McpNestRouteOptions');

/** An Express request on the route: the parsed JSON body and, once the guard passed, the demo user. */
type McpRequest = IncomingMessage & { body?: unknown; user?: { sub: string } };
/** The Express response (Nest's default platform); only Node's `ServerResponse` members are used. */
type McpResponse = ServerResponse;

/** The `initialize` being served and the session id `McpSessions` admitted for it (see `admittedSessionId`). */
interface Admission {
  id: string;
  /** Set once MCP-Nest took the id: its SDK transport accepted the `initialize` and MCP-Nest keeps the session. */
  taken: boolean;
}
const admissions = new AsyncLocalStorage<Admission>();

/**
 * The transport's `sessionIdGenerator`: the id `McpSessions` admitted for the `initialize` the route is serving.
 * MCP-Nest asks for it only once the SDK accepted the `initialize`; outside the route there is none, and the
 * `initialize` fails instead of opening a session nobody bounds.
 */
export function admittedSessionId(): string {
  const admission = admissions.getStore();
  if (!admission) throw new Error('MCP sessions open only through the demo route (McpHttpController)');
  admission.taken = true;
  return admission.id;
}

function jsonRpcError(res: McpResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/** Whether a JSON-RPC body (or batch) holds an `initialize`, the request that opens a 2025-11-25 session. */
function opensSession(body: unknown): boolean {
  return [body].flat().some((message) => (message as { method?: unknown } | null)?.method === 'initialize');
}

/**
 * DEMO-ONLY identity on the MCP route: `Authorization: Bearer <name>` becomes `req.user = { sub: name }`, where
 * an MCP-Nest auth guard puts the verified user (the adapter reads `req.user.sub`). Without one: 401 with
 * `WWW-Authenticate: Bearer` and a JSON-RPC error, unless `anonymous` (conformance only).
 */
@Injectable()
export class DemoBearerGuard implements CanActivate {
  constructor(@Inject(MCP_NEST_ROUTE_OPTIONS) private readonly options: McpNestRouteOptions) {}

  canActivate(context: ExecutionContext): boolean {
    const http = context.switchToHttp();
    const req = http.getRequest<McpRequest>();
    const user = userFromBearer(req);
    if (user) req.user = { sub: user };
    if (user || this.options.anonymous) return true;
    http.getResponse<McpResponse>().setHeader('WWW-Authenticate', 'Bearer');
    throw new UnauthorizedException({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Sign in first: MCP requests need Authorization: Bearer <name>' },
      id: null,
    });
  }
}

/** One 2025-11-25 session MCP-Nest keeps, as `McpSessions` holds it. */
class McpNestSession {
  constructor(
    private readonly id: string,
    private readonly admission: Admission,
    private readonly mcp: McpHttpHandler,
  ) {}

  /**
   * Ends the session in MCP-Nest, which forgets one only on its DELETE: one is handed to its handler from inside
   * the process (its SDK transport closes, the elicitation binding forgets the session's pairings). Nothing to end
   * when MCP-Nest never took the id.
   */
  async close(): Promise<void> {
    if (!this.admission.taken) return;
    const req = new IncomingMessage(new Socket());
    req.method = 'DELETE';
    req.url = '/mcp';
    req.headers = { host: 'localhost', 'mcp-session-id': this.id };
    req.rawHeaders = ['Host', 'localhost', 'Mcp-Session-Id', this.id];
    req.push(null);
    await this.mcp.handleDelete(req, new ServerResponse(req));
  }
}

/**
 * MCP Streamable HTTP at `/mcp` (both eras) through MCP-Nest's handler, for identified users only, with the
 * 2025-11-25 sessions bounded. 2026-07-28 requests carry no session and go straight to MCP-Nest.
 */
@Controller('mcp')
@UseGuards(DemoBearerGuard)
export class McpHttpController implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly sessions: McpSessions<McpNestSession>;

  constructor(
    @Inject(MCP_HTTP_HANDLER) private readonly mcp: McpHttpHandler,
    @Inject(MCP_NEST_ROUTE_OPTIONS) private readonly options: McpNestRouteOptions,
  ) {
    this.sessions = new McpSessions<McpNestSession>(options);
  }

  /** Number of open sessions. */
  get openSessions(): number {
    return this.sessions.size;
  }

  onApplicationBootstrap(): void {
    this.sessions.start();
  }

  /** The answers in flight go out first (at most 5 s), then every session ends (before MCP-Nest's own shutdown). */
  async beforeApplicationShutdown(): Promise<void> {
    await this.sessions.closeAll({ graceMs: 5_000 });
  }

  @Post()
  async post(@Req() req: McpRequest, @Res() res: McpResponse): Promise<void> {
    const sessionId = req.headers['mcp-session-id'];
    if (sessionId !== undefined) {
      if (!this.mayUse(sessionId, req, res)) return;
      res.once('close', this.sessions.begin(sessionId)); // a call in flight: not idle
      return bindResponse(res, () => this.mcp.handlePost(req, res)); // a hang-up ends the call's waits
    }
    // 2026-07-28 (no sessions), or MCP-Nest without statefulMode: nothing to bound.
    if (!this.options.stateful || !opensSession(req.body)) return bindResponse(res, () => this.mcp.handlePost(req, res));

    const admission: Admission = { id: '', taken: false };
    const opened = this.sessions.open(sessionOwner(req.user?.sub), (id) => new McpNestSession(id, admission, this.mcp));
    if (!opened) {
      return jsonRpcError(res, 503, 'Too many open sessions: close one or retry later', {
        'Retry-After': String(MCP_SESSION_RETRY_AFTER_S),
      });
    }
    admission.id = opened.id;
    res.once('close', this.sessions.begin(opened.id));
    try {
      await admissions.run(admission, () => bindResponse(res, () => this.mcp.handlePost(req, res)));
    } finally {
      // Refused (a bad Accept header, a second initialize in a batch): MCP-Nest kept nothing, no client knows the id.
      if (!admission.taken) await this.sessions.close(opened.id);
    }
  }

  /** The session's standing stream: it neither counts as activity nor keeps the session open. */
  @Get()
  get(@Req() req: McpRequest, @Res() res: McpResponse): Promise<void> | void {
    const sessionId = req.headers['mcp-session-id'];
    if (sessionId !== undefined && !this.mayUse(sessionId, req, res)) return;
    return this.mcp.handleGet(req, res);
  }

  @Delete()
  async delete(@Req() req: McpRequest, @Res() res: McpResponse): Promise<void> {
    const sessionId = req.headers['mcp-session-id'];
    if (sessionId === undefined) return this.mcp.handleDelete(req, res);
    if (!this.mayUse(sessionId, req, res)) return;
    await this.mcp.handleDelete(req, res);
    if (res.statusCode === 200) this.sessions.delete(sessionId); // MCP-Nest closed it
  }

  /** Whether the request may use session `id` (else 404 for a closed or unknown session, 403 for another user's). */
  private mayUse(id: string | string[], req: McpRequest, res: McpResponse): id is string {
    const open = typeof id === 'string' ? this.sessions.get(id) : undefined;
    if (!open) {
      jsonRpcError(res, 404, 'Session not found');
      return false;
    }
    if (!mayUseSession(open.user, req.user?.sub)) {
      jsonRpcError(res, 403, 'This session belongs to another user');
      return false;
    }
    return true;
  }
}
