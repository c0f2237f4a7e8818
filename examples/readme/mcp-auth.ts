// What the three MCP controllers (mcp-sessions, mcp-stateless, mcp-both-eras) share: the MCP request's user (the
// bearer check), the JSON-RPC errors they answer with, and the page's user. Copy it beside the controller you copy.
// It imports no MCP SDK, so it serves either SDK line.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The verified token, shaped as both SDK lines' `AuthInfo`. */
export interface McpAuthInfo {
  token: string;
  clientId: string;
  scopes: string[];
  extra?: Record<string, unknown>;
}

/** An MCP request as Express hands it to the controller: its parsed JSON body, and `auth` once verified. */
export type McpRequest = IncomingMessage & { body?: unknown; auth?: McpAuthInfo };

/**
 * Your MCP authorization goes here: verify the bearer token (your OAuth server's JWT or introspection) and
 * return its user. To try the files: MCP_DEV_TOKENS='token-a=alice,token-b=bob' (unset, every request gets 401).
 */
function verifyToken(token: string): string | undefined {
  for (const entry of (process.env.MCP_DEV_TOKENS ?? '').split(',')) {
    const [devToken, userId] = entry.split('=');
    if (devToken === token && userId) return userId;
  }
  return undefined;
}

/**
 * The request's verified user, also put on `req.auth`: both SDK lines hand it to tools (`extra.authInfo` on SDK 1.x,
 * `ctx.http.authInfo` on SDK 2.x), where the default `resolveMcpUser` reads `authInfo.extra.userId`.
 */
export function authenticate(req: McpRequest): string | undefined {
  const token = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  const userId = token && verifyToken(token);
  if (!token || !userId) return undefined;
  req.auth = { token, clientId: userId, scopes: [], extra: { userId } };
  return userId;
}

/** Answers a JSON-RPC error (code -32000, no id) with an HTTP status. */
export function jsonRpcError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/** The answer to a request without a verified user: 401 with `WWW-Authenticate: Bearer`. */
export function unauthorized(res: ServerResponse): void {
  jsonRpcError(res, 401, 'Unauthorized', { 'WWW-Authenticate': 'Bearer' });
}

/**
 * The page's user, for `ElicitationModule.forRoot({ resolvePageUser })`: `req.user.id`, set by your browser login
 * (a Passport session, say). The browser that answers a page must be the user the MCP call came from.
 */
export const resolvePageUser = (req: { user?: { id: string } }): string | undefined => req.user?.id;
