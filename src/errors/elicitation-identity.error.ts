/** A tool call asked for an elicitation but no verified user could be found for it. */
export class ElicitationIdentityError extends Error {
  override readonly name = 'ElicitationIdentityError';

  constructor() {
    super('No authenticated user on this MCP request: elicitations are bound to a verified user ' + '(see the resolveMcpUser option).');
  }
}
