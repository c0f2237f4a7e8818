export { McpNestElicitationModule } from './mcp-nest-elicitation.module.js';
export { McpNestElicitationInterceptor } from './mcp-nest-elicitation.interceptor.js';
export { Elicitation, type ElicitationToolOptions } from './elicitation.decorator.js';
export { ElicitationNotWiredError } from '../errors/elicitation-not-wired.error.js';
export { userFromRequest, type McpNestElicitationOptions } from './mcp-nest-elicitation.options.js';
export type { McpNestContext } from './mcp-nest.types.js';
