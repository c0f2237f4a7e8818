/**
 * The parts of `@rekog/mcp-nest` 2.x the adapter reads, as structural types: it is an optional peer, so
 * nothing here imports it. `e2e/mcp/mcp-nest.e2e-spec.ts` pins each of these behaviours against the installed version,
 * in a real MCP-Nest process; `test/mcp-nest/mcp-nest.types.spec.ts` checks that MCP-Nest's `McpContext` fits.
 */
import type { SdkServerOrMcpServer } from '../mcp/sdk/sdk.types.js';

/** The `@Ctx()` argument of an MCP-Nest handler (`McpContext`, a Nest `BaseRpcContext`). */
export interface McpNestContext {
  readonly mcpServer: SdkServerOrMcpServer;
  readonly mcpRequest: { method?: string; params?: object };
  getSession(): { stateless?: boolean; era?: 'legacy' | 'modern'; sessionId?: string };
  /** The Express or Fastify request (HTTP), `undefined` on stdio. */
  getRawRequest<T = unknown>(): T | undefined;
  /** Argument 4 is the SDK's per-request handler context (`ServerContext`). */
  getArgByIndex(index: number): unknown;
}

/** The metadata key of MCP-Nest's `@Tool()` on the handler method. */
export const MCP_NEST_TOOL_METADATA_KEY = 'mcp:tool';

/** The DI token under which an app may provide its `McpStrategy`. */
export const MCP_NEST_STRATEGY_TOKEN = 'MCP_STRATEGY';

/** What `@Tool()` records on a handler. */
export interface McpNestToolMetadata {
  name: string;
  outputSchema?: unknown;
}

/** Whether `value` is an MCP-Nest `McpContext` (duck-typed: the adapter never imports MCP-Nest). */
export function isMcpNestContext(value: unknown): value is McpNestContext {
  const ctx = value as Partial<McpNestContext> | undefined;
  return (
    !!ctx &&
    typeof ctx === 'object' &&
    typeof ctx.getSession === 'function' &&
    typeof ctx.getArgByIndex === 'function' &&
    typeof ctx.getRawRequest === 'function' &&
    'mcpServer' in ctx &&
    'mcpRequest' in ctx
  );
}
