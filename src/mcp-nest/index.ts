export { McpNestElicitationModule } from './mcp-nest-elicitation.module.js';
export { McpNestElicitationInterceptor } from './mcp-nest-elicitation.interceptor.js';
export { Elicitation, ElicitationNotWiredError } from './elicitation.decorator.js';
export { userFromRequest, type McpNestElicitationOptions } from './mcp-nest-elicitation.options.js';
export type { McpNestContext } from './mcp-nest.types.js';
