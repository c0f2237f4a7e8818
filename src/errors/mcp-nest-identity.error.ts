import { ElicitationIdentityError } from './elicitation-identity.error.js';

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
