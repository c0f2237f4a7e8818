/**
 * The parts of the MCP TypeScript SDKs (1.x, and 2.x in both protocol eras) the binding reads, as
 * structural types: both SDK lines are optional peers, so nothing here imports them.
 */

/** The part of the SDK low-level `Server` (1.x, or 2.x on a 2025-11-25 connection) the binding uses. */
export interface SdkServerLike {
  getClientCapabilities(): { elicitation?: { form?: object; url?: object }; extensions?: Record<string, unknown> } | undefined;
  elicitInput(
    params: Record<string, unknown>,
    options?: Record<string, unknown>,
  ): Promise<{ action: string; content?: Record<string, unknown> }>;
  createElicitationCompletionNotifier(elicitationId: string): () => Promise<void>;
  /** `clientInfo` from `initialize`. */
  getClientVersion?(): { name?: string; version?: string } | undefined;
  onclose?: () => void;
}

/** An SDK `McpServer` (its `.server`) or the low-level `Server` itself. */
export type SdkServerOrMcpServer = SdkServerLike | { server: SdkServerLike };

/** `notifications/progress`, which the binding sends while a person answers (keep-alive). */
export interface ProgressNotification {
  method: 'notifications/progress';
  params: { progressToken: string | number; progress: number; message?: string };
}

/** The part of the SDK 1.x handler `extra` the binding reads. */
export interface SdkRequestExtra {
  requestId: string | number;
  signal?: AbortSignal;
  sessionId?: string;
  authInfo?: unknown;
  /** The request's `_meta` (its `progressToken`, when the client wants progress). */
  _meta?: { progressToken?: string | number };
  /** Sends a notification related to this request (the binding sends progress only). */
  sendNotification?(this: void, notification: ProgressNotification): Promise<void>;
  /** Present only when the transport can replay this request's stream to a client that resumes it (an event store). */
  closeSSEStream?: () => void;
}

/** The part of the SDK 2.x handler context (`ctx`) the binding reads. */
export interface SdkV2Context {
  sessionId?: string;
  mcpReq: {
    id: string | number;
    method: string;
    signal?: AbortSignal;
    _meta?: { progressToken?: string | number };
    notify?(this: void, notification: ProgressNotification): Promise<void>;
    /** The request's `_meta` on a 2026-07-28 request; absent on a 2025-11-25 session. */
    envelope?: Record<string, unknown>;
    inputResponses?: Record<string, unknown>;
    requestState(): unknown;
  };
  http?: {
    authInfo?: unknown;
    /** The HTTP request; its `signal` aborts when the client closes the connection before the response ends. */
    req?: { headers?: { get(name: string): string | null }; signal?: AbortSignal };
    /** Present only when the transport can replay this request's stream to a client that resumes it (an event store). */
    closeSSE?: () => void;
  };
}

/** The constructor of an SDK's `UrlElicitationRequiredError` (-32042). */
export type UrlRequiredErrorClass = new (
  elicitations: Array<{ mode: 'url'; elicitationId: string; url: string; message: string }>,
  message?: string,
) => Error;

/** The `_meta` key under which a 2026-07-28 request declares the client's capabilities. */
export const CLIENT_CAPABILITIES_META_KEY = 'io.modelcontextprotocol/clientCapabilities';

/** The `_meta` key under which a 2026-07-28 request names the client (`clientInfo`). */
export const CLIENT_INFO_META_KEY = 'io.modelcontextprotocol/clientInfo';

/** The low-level server of an `McpServer`, or the server itself. */
export function lowLevelServer(server: SdkServerOrMcpServer): SdkServerLike {
  return 'server' in server ? server.server : server;
}

/** Whether a tool callback's context comes from SDK 2.x (it has `mcpReq`; 1.x has `requestId`). */
export function isSdkV2Context(context: unknown): context is SdkV2Context {
  return !!context && typeof context === 'object' && typeof (context as Partial<SdkV2Context>).mcpReq?.requestState === 'function';
}

/** An SDK 2.x context read as the SDK 1.x `extra` (what `resolveMcpUser` receives in every era). */
export function extraOf(ctx: SdkV2Context): SdkRequestExtra {
  return {
    requestId: ctx.mcpReq.id,
    signal: ctx.mcpReq.signal,
    sessionId: ctx.sessionId,
    authInfo: ctx.http?.authInfo,
    _meta: ctx.mcpReq._meta,
    sendNotification: ctx.mcpReq.notify,
    closeSSEStream: ctx.http?.closeSSE,
  };
}

/** A tool callback's arguments and SDK context: SDK callbacks are (args, ctx), or (ctx) for tools without an input schema. */
export function callbackParams(params: readonly unknown[]): [args: unknown, context: unknown] {
  return params.length >= 2 && params[1] !== undefined ? [params[0], params[1]] : [undefined, params[0]];
}
