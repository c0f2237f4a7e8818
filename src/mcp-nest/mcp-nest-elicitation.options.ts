import type { McpNestContext } from './mcp-nest.types.js';

/** Options of `McpNestElicitationModule.forRoot()`. */
export interface McpNestElicitationOptions {
  /**
   * Names the verified user of an MCP-Nest tool call. Return `undefined` to fall back to the module's
   * `resolveMcpUser` (the SDK's `authInfo`).
   * @default `req.user.sub`, else `req.user.id` (what MCP-Nest's auth guards set), else `resolveMcpUser`
   */
  resolveUser?: (context: McpNestContext) => string | undefined | null;
}

/** The DI token of the adapter's options. */
export const MCP_NEST_ELICITATION_OPTIONS = Symbol('MCP_NEST_ELICITATION_OPTIONS');

/** `req.user.sub`, else `req.user.id`, as strings (numbers are accepted); `undefined` otherwise. */
export function userFromRequest(context: McpNestContext): string | undefined {
  const user = context.getRawRequest<{ user?: { sub?: unknown; id?: unknown } }>()?.user;
  for (const value of [user?.sub, user?.id]) {
    if (typeof value === 'string' && value) return value;
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  }
  return undefined;
}
