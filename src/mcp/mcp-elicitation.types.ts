import type { InferStandardOutput, StandardSchemaV1 } from '../forms/standard-schema.js';
import type { InputRequiredResult } from './input-required/input-required.js';
import type { PendingQuestionResult } from './questions/linked-questions.js';
import type { RequestState } from './input-required/request-state.codec.js';
import type { SdkServerOrMcpServer } from './sdk/sdk.types.js';
import type { ToolElicitation } from './tool-elicitation.js';

/** A tool body written once for both protocol eras: the arguments, the elicitation, the SDK's own context. */
export type ElicitingToolHandler<A, R> = (args: A, elicitation: ToolElicitation, context: unknown) => R | Promise<R>;

/**
 * The arguments a tool receives, from its `inputSchema`: a zod object (zod 4, or zod 3.24+ on SDK 1.x) gives
 * its output type, SDK 1.x's raw shape (`{ service: z.string() }`) the output of each field, no schema
 * `undefined` (the SDK calls such a tool without arguments). A config typed loosely (`inputSchema: unknown`, as
 * in a list of tools of several shapes) gives `never`: annotate the handler's arguments; any other schema gives
 * `Record<string, unknown>`.
 */
export type ToolArgs<S> = [S] extends [undefined]
  ? undefined
  : unknown extends S
    ? never
    : S extends StandardSchemaV1
      ? InferStandardOutput<S>
      : S extends { readonly [field: string]: StandardSchemaV1 }
        ? { [K in keyof S]: InferStandardOutput<S[K]> }
        : Record<string, unknown>;

/**
 * What `McpElicitation.registerTool` takes as `config`: the SDK's own tool config, passed on as it is.
 * `inputSchema` also types the handler's arguments ({@link ToolArgs}).
 */
export interface ElicitingToolConfig<S = undefined> {
  title?: string;
  description?: string;
  /** A zod object (both SDK lines), or SDK 1.x's raw shape of zod fields. */
  inputSchema?: S;
  /** The tool's output schema; with one, a link result carries its data in `_meta` only. */
  outputSchema?: unknown;
  annotations?: Record<string, unknown>;
  /**
   * Task support (the MCP Tasks extension, protocol 2026-07-28): `optional` runs a call as a task when the request
   * declares the extension, `required` also refuses a call that does not (-32021). @default forbidden
   */
  execution?: { taskSupport?: 'forbidden' | 'optional' | 'required' };
  /**
   * With task support: when a call that declared the extension becomes a task. `immediately`: at once, every question
   * is the task's; `continueAsTask`: when the body calls `elicitation.continueAsTask()` (questions before it are asked
   * in `input_required` rounds, and their answers go to the task). The module's own key: not passed to the SDK.
   * @default 'immediately'
   */
  taskStart?: 'immediately' | 'continueAsTask';
  _meta?: Record<string, unknown>;
  /** Anything else the SDK line you use takes. */
  [key: string]: unknown;
}

/** Options of `McpElicitation.runCall`. */
export interface McpCallOptions {
  /** The call's verified user, instead of `resolveMcpUser` (`null`: the call has none). @default resolved from the context */
  user?: string | null;
  /** The tool declares no output schema, so a link result may carry `structuredContent`. @default true */
  structured?: boolean;
}

/** An SDK `McpServer` (1.x or 2.x) with its `registerTool`. */
export type SdkToolServer = SdkServerOrMcpServer & { registerTool(name: string, config: never, callback: never): unknown };

/** What a wrapped tool may answer besides the tool's own result. */
export type WrappedToolResult<R> = R | InputRequiredResult | PendingQuestionResult;

/** What SDK 2.x `new McpServer(info, options)` takes from `serverOptions()`. */
export interface ElicitationServerOptions {
  requestState: { verify: (state: string, ctx: unknown) => Promise<RequestState> };
}
