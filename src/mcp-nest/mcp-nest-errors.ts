import { createRequire } from 'node:module';
import { RpcException } from '@nestjs/microservices';
import { ElicitationIdentityError } from '../errors/elicitation-identity.error.js';
import { ElicitationInputError } from '../errors/elicitation-input.error.js';
import { ElicitationKeyError } from '../errors/elicitation-key.error.js';
import { ElicitationNotAnsweredError } from '../errors/elicitation-not-answered.error.js';
import { ElicitationQuotaError } from '../errors/elicitation-quota.error.js';
import { ElicitationShutdownError } from '../errors/elicitation-shutdown.error.js';
import { ElicitationUnsupportedError } from '../errors/elicitation-unsupported.error.js';
import { ElicitationValidationError } from '../errors/elicitation-validation.error.js';
import { FormSchemaError } from '../errors/form-schema.error.js';
import { RequestStateError } from '../mcp/request-state.codec.js';

/** The SDK classes MCP-Nest recognises: its own copy of `@modelcontextprotocol/server`. */
interface McpNestSdk {
  ProtocolError: new (code: number, message: string, data?: unknown) => Error;
  UrlElicitationRequiredError: new (elicitations: unknown[], message?: string) => Error;
}

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

let sdk: McpNestSdk | undefined;

/**
 * `@modelcontextprotocol/server` as MCP-Nest loads it. MCP-Nest is CommonJS, so it `require`s the SDK's CommonJS
 * build, whose `ProtocolError` is another class than the ES module build's. Server 2.4 brands its errors so that
 * either copy's is recognised, but older 2.x and SDK 1.x errors are not: the adapter builds every JSON-RPC error
 * from MCP-Nest's own copy, which MCP-Nest always rethrows.
 */
function mcpNestSdk(): McpNestSdk {
  if (!sdk) {
    const fromHere = createRequire(import.meta.url);
    sdk = createRequire(fromHere.resolve('@rekog/mcp-nest'))('@modelcontextprotocol/server') as McpNestSdk;
  }
  return sdk;
}

/** A JSON-RPC error of some SDK copy: its `code` (and `data`). */
function protocolErrorOf(error: unknown): { code: number; message: string; data?: unknown } | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, data } = error as Error & { code?: unknown; data?: unknown };
  const sdkError = typeof code === 'number' && /ProtocolError|UrlElicitationRequiredError|McpError/.test(error.constructor.name);
  return sdkError ? { code, message: error.message, data } : undefined;
}

/**
 * An error from a tool call, as MCP-Nest must receive it so that the client gets the right answer (MCP-Nest
 * rethrows a `ProtocolError` only from inside an `RpcException`; any other error becomes "Internal server error"):
 * - -32042 and the other JSON-RPC errors of the SDK, and a refused `requestState` (-32602): the JSON-RPC error;
 * - the library's readable errors: a tool error with their message;
 * - anything else: unchanged (the app's own errors keep MCP-Nest's handling).
 */
export function toMcpNestError(error: unknown): unknown {
  if (error instanceof RequestStateError) {
    // The same error the SDK's own requestState hook answers.
    return new RpcException(new (mcpNestSdk().ProtocolError)(INVALID_PARAMS, error.message, { reason: 'invalid_request_state' }));
  }
  const rpc = protocolErrorOf(error);
  if (rpc) {
    const { ProtocolError, UrlElicitationRequiredError } = mcpNestSdk();
    if (rpc.code === URL_ELICITATION_REQUIRED) {
      const elicitations = (rpc.data as { elicitations?: unknown[] } | undefined)?.elicitations ?? [];
      return new RpcException(new UrlElicitationRequiredError(elicitations, rpc.message));
    }
    return new RpcException(new ProtocolError(rpc.code, rpc.message, rpc.data));
  }
  if (READABLE.some((type) => error instanceof type)) return new RpcException((error as Error).message);
  return error;
}
