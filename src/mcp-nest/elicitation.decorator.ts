import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ElicitationNotWiredError } from '../errors/elicitation-not-wired.error.js';
import type { ToolElicitation } from '../mcp/tool-elicitation.js';
import { withAdapterIdentityHint } from './mcp-nest-identity.js';
import { ElicitationWiringCheck, noteElicitationParameter } from './mcp-nest-wiring.check.js';

/** The `ToolElicitation` of each MCP-Nest tool call in flight, by its `McpContext` (set by the interceptor). */
const calls = new WeakMap<object, ToolElicitation>();

/** @internal the interceptor hands a call its elicitation */
export function attachElicitation(mcpContext: object, elicitation: ToolElicitation): void {
  calls.set(mcpContext, withAdapterIdentityHint(elicitation));
}

/** @internal the call is over */
export function detachElicitation(mcpContext: object): void {
  calls.delete(mcpContext);
}

/** Nest's parameter decorator behind `@Elicitation()`: the call's `ToolElicitation`, by its `McpContext`. */
const ElicitationParameter = createParamDecorator((_data: unknown, context: ExecutionContext): ToolElicitation => {
  const mcp = context.switchToRpc().getContext<{ mcpRequest?: { method?: unknown } }>();
  const elicitation = calls.get(mcp);
  if (elicitation) return elicitation;
  const method = mcp?.mcpRequest?.method;
  if (typeof method === 'string' && method !== 'tools/call') throw new ElicitationNotWiredError(method);
  throw new ElicitationNotWiredError();
});

/**
 * Parameter decorator for an MCP-Nest `@Tool()` method: the call's `ToolElicitation` (`elicit`, `requireAnswer`,
 * `requestUrl`, `isSupported`, `era`, `userId`), the same in both protocol eras, down the fallback ladder.
 *
 * ```ts
 * @Tool({ name: 'approve-deploy', parameters: z.object({ app: z.string() }) })
 * async approve(@Payload() { app }: { app: string }, @Elicitation() elicitation: ToolElicitation) { ... }
 * ```
 *
 * It also brings a pass-through pipe (`ElicitationWiringCheck`), which Nest creates with the controller: at
 * start-up it logs an error naming `McpNestElicitationModule` when the app does not import it.
 */
export function Elicitation(): ParameterDecorator {
  const decorate = ElicitationParameter(undefined, ElicitationWiringCheck);
  return (target, key, index) => {
    noteElicitationParameter(target, key);
    decorate(target, key, index);
  };
}
