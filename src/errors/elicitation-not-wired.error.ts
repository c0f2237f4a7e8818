import { RpcException } from '@nestjs/microservices';

const NOT_WIRED =
  '@Elicitation() found no elicitation for this call: import McpNestElicitationModule.forRoot() (from ' +
  "'nestjs-mcp-elicitation/mcp-nest') in the module of your MCP-Nest app, beside ElicitationModule.forRoot(); " +
  'its interceptor hands each @Tool() call its ToolElicitation.';

/**
 * The error of `@Elicitation()` outside the interceptor: it names the missing import. An `RpcException`, so that
 * MCP-Nest shows its message as a tool error instead of masking it as "Internal server error". Imported only by
 * `mcp-nest/` (`@nestjs/microservices` is the adapter's peer).
 */
export class ElicitationNotWiredError extends RpcException {
  override readonly name = 'ElicitationNotWiredError';

  /** `method`: the MCP request of a handler that is not a tool (`@Elicitation()` serves `@Tool()` methods only). */
  constructor(method?: string) {
    const text = method
      ? `@Elicitation() is for @Tool() methods: a ${method} handler cannot ask the user (elicitation belongs to tool calls).`
      : NOT_WIRED;
    super(text);
    this.message = text;
  }
}
