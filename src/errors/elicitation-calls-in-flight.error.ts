/** Which cap on the tool calls waiting for answers refused a call. */
export type CallsInFlightLimit = 'limits.maxCallsInFlightPerSession' | 'limits.maxCallsInFlightPerUser';

/**
 * The JSON-RPC error code of a refused call: in the server-error range, apart from MCP's own (-32000 to -32002,
 * -32020 to -32022, -32042); the "limit exceeded" code of EIP-1474, the best-known JSON-RPC catalogue that has one.
 */
export const CALLS_IN_FLIGHT_ERROR_CODE = -32005;

const WHERE: Record<CallsInFlightLimit, string> = {
  'limits.maxCallsInFlightPerSession': 'in this session',
  'limits.maxCallsInFlightPerUser': 'for this user',
};

/**
 * A tool call was refused before it waited on a person: the session (or the user) already has as many calls
 * waiting for answers as `limit` allows. The client gets it as a JSON-RPC error (`code`, `message`, `data`: the
 * limit's name and value), not as a tool result; nothing stored is touched (a question the call would have waited
 * on stays open, and a later call takes it up). Internal: the binding throws it, the SDK or MCP-Nest sends it.
 */
export class ElicitationCallsInFlightError extends Error {
  override readonly name = 'ElicitationCallsInFlightError';
  readonly code = CALLS_IN_FLIGHT_ERROR_CODE;
  readonly data: { limit: CallsInFlightLimit; value: number };

  constructor(limit: CallsInFlightLimit, value: number) {
    super(`Too many tool calls waiting for answers ${WHERE[limit]} (${limit} = ${value}): answer or cancel one, then call again.`);
    this.data = { limit, value };
  }
}
