import { RpcException } from '@nestjs/microservices';
import { ElicitationCallsInFlightError } from '../errors/elicitation-calls-in-flight.error.js';
import { ElicitationIdentityError } from '../errors/elicitation-identity.error.js';
import { ElicitationInputError } from '../errors/elicitation-input.error.js';
import { ElicitationKeyError } from '../errors/elicitation-key.error.js';
import { ElicitationNotAnsweredError } from '../errors/elicitation-not-answered.error.js';
import { ElicitationQuotaError } from '../errors/elicitation-quota.error.js';
import { ElicitationShutdownError } from '../errors/elicitation-shutdown.error.js';
import { ElicitationUnsupportedError } from '../errors/elicitation-unsupported.error.js';
import { ElicitationValidationError } from '../errors/elicitation-validation.error.js';
import { FormSchemaError } from '../errors/form-schema.error.js';
import { RequestStateError } from '../errors/request-state.error.js';
import type { SdkCopy } from '../mcp/sdk/sdk-loader.js';

/** JSON-RPC invalid params: what a refused `requestState` answers. */
const INVALID_PARAMS = -32602;
/** URL elicitation required (2025-11-25). */
const URL_ELICITATION_REQUIRED = -32042;

/** Errors whose message is written for the tool's caller: a readable tool error (`isError`). */
const READABLE = [
  ElicitationUnsupportedError,
  ElicitationNotAnsweredError,
  ElicitationIdentityError,
  ElicitationValidationError,
  ElicitationQuotaError,
  ElicitationInputError,
  ElicitationKeyError,
  ElicitationShutdownError,
  FormSchemaError,
];

/** A JSON-RPC error of some SDK copy: its `code` (and `data`). */
function protocolErrorOf(error: unknown): { code: number; message: string; data?: unknown } | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, data } = error as Error & { code?: unknown; data?: unknown };
  const sdkError = typeof code === 'number' && /ProtocolError|UrlElicitationRequiredError|McpError/.test(error.constructor.name);
  return sdkError ? { code, message: error.message, data } : undefined;
}

/**
 * An error from a tool call, as MCP-Nest must receive it so that the client gets the right answer (MCP-Nest
 * rethrows a `ProtocolError` only from inside an `RpcException`; any other error becomes "Internal server error").
 * `sdk` is the SDK copy of the call's server (`McpSdkLoader.copyFor`): MCP-Nest is CommonJS and `require`s the SDK's
 * CommonJS build, whose `ProtocolError` is another class than the ES module build's (server 2.4 brands its errors so
 * that either copy's is recognised, but older 2.x do not), so every JSON-RPC error is built from that copy:
 * - -32042 and the other JSON-RPC errors of the SDK, a refused `requestState` (-32602) and a call refused for too
 *   many calls waiting for answers (-32005): the JSON-RPC error;
 * - the library's readable errors: a tool error with their message;
 * - anything else: unchanged (the app's own errors keep MCP-Nest's handling).
 */
export function toMcpNestError(error: unknown, sdk: Pick<SdkCopy, 'ProtocolError' | 'UrlElicitationRequiredError'>): unknown {
  if (error instanceof RequestStateError) {
    // The same error the SDK's own requestState hook answers.
    return new RpcException(new sdk.ProtocolError(INVALID_PARAMS, error.message, { reason: 'invalid_request_state' }));
  }
  if (error instanceof ElicitationCallsInFlightError) {
    // Too many calls waiting for answers: a JSON-RPC error, as the binding's own guard answers it (its plain text:
    // SDK 1.x's McpError writes its code into the message, which its client writes again).
    const refusal = new sdk.ProtocolError(error.code, error.message, error.data);
    refusal.message = error.message;
    return new RpcException(refusal);
  }
  const rpc = protocolErrorOf(error);
  if (rpc) {
    const { ProtocolError, UrlElicitationRequiredError } = sdk;
    if (rpc.code === URL_ELICITATION_REQUIRED) {
      const elicitations = (rpc.data as { elicitations?: never[] } | undefined)?.elicitations ?? [];
      return new RpcException(new UrlElicitationRequiredError(elicitations, rpc.message));
    }
    return new RpcException(new ProtocolError(rpc.code, rpc.message, rpc.data));
  }
  if (READABLE.some((type) => error instanceof type)) return new RpcException((error as Error).message);
  return error;
}
