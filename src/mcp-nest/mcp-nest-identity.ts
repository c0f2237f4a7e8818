import { ElicitationIdentityError } from '../errors/elicitation-identity.error.js';
import type { ToolElicitation } from '../mcp/tool-elicitation.js';

/** What the adapter's call without a user says: where the user of an MCP-Nest call comes from. */
export const MCP_NEST_NO_USER =
  'No authenticated user on this MCP-Nest tool call: elicitations are bound to a verified user. Put the verified ' +
  "user on req.user (its sub or id, as MCP-Nest's auth guards do), or name it with " +
  "McpNestElicitationModule.forRoot({ resolveUser: (context) => ... }) (from 'nestjs-mcp-elicitation/mcp-nest').";

/**
 * The identity error of a call through the adapter: still an `ElicitationIdentityError` (a readable tool error, and
 * what a tool may catch), but naming what to set in an MCP-Nest app instead of the SDK-level `resolveMcpUser`.
 */
export class McpNestIdentityError extends ElicitationIdentityError {
  constructor() {
    super();
    this.message = MCP_NEST_NO_USER;
  }
}

const hinted = (error: unknown): unknown =>
  error instanceof ElicitationIdentityError && !(error instanceof McpNestIdentityError) ? new McpNestIdentityError() : error;

/**
 * `elicitation` as `@Elicitation()` hands it to a tool: the same object and methods, except that its identity error
 * (thrown by `userId` or by asking) names the adapter's settings. Methods run on the original object.
 */
export function withAdapterIdentityHint(elicitation: ToolElicitation): ToolElicitation {
  return new Proxy(elicitation, {
    get(target, key) {
      let value: unknown;
      try {
        value = Reflect.get(target, key, target);
      } catch (error) {
        throw hinted(error);
      }
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      return (...args: unknown[]): unknown => {
        try {
          const result = method.apply(target, args);
          if (!(result instanceof Promise)) return result;
          return result.catch((error: unknown) => {
            throw hinted(error);
          });
        } catch (error) {
          throw hinted(error);
        }
      };
    },
  });
}
