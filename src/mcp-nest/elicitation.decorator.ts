import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { RpcException } from '@nestjs/microservices';
import type { ToolElicitation } from '../mcp/tool-elicitation.js';

/** The `ToolElicitation` of each MCP-Nest tool call in flight, by its `McpContext` (set by the interceptor). */
const calls = new WeakMap<object, ToolElicitation>();

/** @internal the interceptor hands a call its elicitation */
export function attachElicitation(mcpContext: object, elicitation: ToolElicitation): void {
  calls.set(mcpContext, elicitation);
}

/** @internal the call is over */
export function detachElicitation(mcpContext: object): void {
  calls.delete(mcpContext);
}

const NOT_WIRED =
  '@Elicitation() found no elicitation for this call: import McpNestElicitationModule.forRoot() (from ' +
  "'nestjs-mcp-elicitation/mcp-nest') in the module of your MCP-Nest app, beside ElicitationModule.forRoot(); " +
  'its interceptor hands each @Tool() call its ToolElicitation.';

/**
 * The error of `@Elicitation()` outside the interceptor: it names the missing import. An `RpcException`, so that
 * MCP-Nest shows its message as a tool error instead of masking it as "Internal server error".
 */
export class ElicitationNotWiredError extends RpcException {
  override readonly name = 'ElicitationNotWiredError';

  constructor() {
    super(NOT_WIRED);
    this.message = NOT_WIRED;
  }
}

/**
 * Parameter decorator for an MCP-Nest `@Tool()` method: the call's `ToolElicitation` (`elicit`, `requireAnswer`,
 * `requestUrl`, `isSupported`, `era`, `userId`), the same in both protocol eras, down the fallback ladder.
 *
 * ```ts
 * @Tool({ name: 'approve-deploy', parameters: z.object({ app: z.string() }) })
 * async approve(@Payload() { app }: { app: string }, @Elicitation() elicitation: ToolElicitation) { ... }
 * ```
 */
export const Elicitation = createParamDecorator((_data: unknown, context: ExecutionContext): ToolElicitation => {
  const elicitation = calls.get(context.switchToRpc().getContext<object>());
  if (!elicitation) throw new ElicitationNotWiredError();
  return elicitation;
});
