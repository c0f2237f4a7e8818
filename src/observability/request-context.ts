import { AsyncLocalStorage } from 'node:async_hooks';

/** What the audit log records of the browser request behind an event, when there is one. */
export interface ElicitationRequestInfo {
  /** The client IP as the HTTP adapter gives it (`req.ip`; set `trust proxy` behind a proxy). */
  ip?: string;
  /** The `User-Agent` header, cut to `MAX_USER_AGENT_LENGTH` characters. */
  userAgent?: string;
}

/** Longest user agent an audit record keeps, in characters. */
export const MAX_USER_AGENT_LENGTH = 256;

const requests = new AsyncLocalStorage<ElicitationRequestInfo>();

/** Runs `fn` with `info` as the request behind whatever the service does meanwhile (the routes' interceptor). */
export function runInRequest<R>(info: ElicitationRequestInfo, fn: () => R): R {
  return requests.run(info, fn);
}

/** The request the current code runs for (a page route), or `undefined` (an MCP call, the sweep). */
export function currentRequest(): ElicitationRequestInfo | undefined {
  return requests.getStore();
}

/** The part of an Express or Fastify request (or the Node one under it) the client's address and agent come from. */
export interface RequestInfoSource {
  ip?: string;
  socket?: { remoteAddress?: string };
  headers?: Record<string, string | string[] | undefined>;
  raw?: RequestInfoSource;
}

/** The client IP and user agent of a request. */
export function requestInfoOf(req: RequestInfoSource): ElicitationRequestInfo {
  const ip = req.ip ?? req.socket?.remoteAddress ?? req.raw?.socket?.remoteAddress;
  const agent = (req.headers ?? req.raw?.headers)?.['user-agent'];
  const userAgent = typeof agent === 'string' && agent ? agent.slice(0, MAX_USER_AGENT_LENGTH) : undefined;
  return { ...(ip && { ip }), ...(userAgent && { userAgent }) };
}
