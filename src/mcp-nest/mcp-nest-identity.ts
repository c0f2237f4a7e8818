import { ElicitationIdentityError } from '../errors/elicitation-identity.error.js';
import { McpNestIdentityError } from '../errors/mcp-nest-identity.error.js';
import type { ToolElicitation } from '../mcp/tool-elicitation.js';

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
