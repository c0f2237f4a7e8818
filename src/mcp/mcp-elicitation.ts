import { Injectable } from '@nestjs/common';
import { InjectMcpOptions, type ElicitationMcpOptions } from '../options/mcp-options.js';
import { guardToolCalls } from './call-refusals.js';
import { CallsInFlight } from './calls-in-flight.js';
import { SubmitAnswerTool, SUBMIT_ANSWER_TOOL, type ChatAnswer } from './questions/submit-answer-tool.js';
import { McpCallers } from './sdk/mcp-callers.js';
import { CallElicitations } from './call-elicitations.js';
import { CompletionNotifications } from './completion-notifications.js';
import { InputRequiredSignal } from './input-required/input-required.js';
import { PendingQuestionSignal, type CallScope } from './questions/linked-questions.js';
import { McpTasks } from './tasks/mcp-tasks.js';
import type { RequestState } from './input-required/request-state.codec.js';
import { RequestStates } from './input-required/request-states.js';
import { McpSdkLoader } from './sdk/sdk-loader.js';
import {
  callbackParams,
  extraOf,
  isSdkV2Context,
  lowLevelServer,
  type SdkRequestExtra,
  type SdkServerLike,
  type SdkServerOrMcpServer,
  type SdkV2Context,
} from './sdk/sdk.types.js';
import type { PushToolElicitation, ToolElicitation } from './tool-elicitation.js';
import type {
  ElicitationServerOptions,
  ElicitingToolConfig,
  ElicitingToolHandler,
  McpCallOptions,
  SdkToolServer,
  ToolArgs,
  WrappedToolResult,
} from './mcp-elicitation.types.js';

export type {
  ElicitationServerOptions,
  ElicitingToolConfig,
  ElicitingToolHandler,
  McpCallOptions,
  SdkToolServer,
  ToolArgs,
  WrappedToolResult,
} from './mcp-elicitation.types.js';

/**
 * The MCP binding, for both SDK lines and both protocol eras. It dispatches each tool call to the
 * mechanism of the era the client speaks:
 *
 * - push (protocol 2025-11-25: SDK 1.x, or SDK 2.x serving a 2025-11-25 session): questions are pushed
 *   to the client and awaited inside the call; `requireAnswer` suspends the call with -32042;
 * - input-required (protocol 2026-07-28, SDK 2.x): an unanswered question ends the call with
 *   `input_required` and a sealed `requestState`, and the retry resumes it.
 *
 * `tool(server, name, handler)` wraps a tool body written once; `serverOptions()` goes into SDK 2.x
 * `new McpServer(info, options)` so a bad state is refused with a JSON-RPC error before the tool runs;
 * `forRequest(server, extra)` gives the push mechanics directly (SDK 1.x).
 */
@Injectable()
export class McpElicitation {
  /** Servers (low-level, one per session or request) that have `submit-elicitation-answer`. */
  private readonly answering = new WeakSet<SdkServerLike>();
  /**
   * The user `runCall` was given for a call, by the call's SDK context: `sealRequestState` and `verifyRequestState`
   * on that context bind states to the same user as the call's own questions.
   */
  private readonly callUsers = new WeakMap<object, string | null>();
  /** The calls waiting on a person, per session and per user (`limits.maxCallsInFlightPerSession`, `...PerUser`). */
  private readonly inFlight: CallsInFlight;

  constructor(
    private readonly notifications: CompletionNotifications,
    private readonly states: RequestStates,
    private readonly sdks: McpSdkLoader,
    private readonly submitAnswerTool: SubmitAnswerTool,
    @InjectMcpOptions() private readonly options: ElicitationMcpOptions,
    private readonly tasks: McpTasks,
    private readonly callers: McpCallers,
    private readonly calls: CallElicitations,
  ) {
    this.inFlight = new CallsInFlight(options.limits);
  }

  /**
   * Wraps a tool body written once for both eras into an SDK tool callback (1.x or 2.x, with or without
   * an input schema). `name` must be the tool's registered name: a 2026-07-28 `requestState` is bound to
   * it and to the arguments, and the link rung finds a question again by it. `structured: false` for a tool
   * that declares an output schema (a link result then carries its data in `_meta` only).
   */
  tool<A = unknown, R = unknown>(
    server: SdkServerOrMcpServer,
    name: string,
    handler: ElicitingToolHandler<A, R>,
    { structured = true }: { structured?: boolean } = {},
  ): (...params: unknown[]) => Promise<WrappedToolResult<R>> {
    // The server's tools/call handler answers a refused call as a JSON-RPC error: guarded now if `McpServer` has it,
    // else once the `registerTool` this callback is for has installed it.
    const low = lowLevelServer(server);
    if (!guardToolCalls(low)) queueMicrotask(() => guardToolCalls(low));
    return (...params: unknown[]) => {
      const [args, context] = callbackParams(params) as [A, unknown];
      return this.runCall(server, name, args, context, (elicitation) => handler(args, elicitation, context), { structured });
    };
  }

  /**
   * The call-shaped entry beside `tool()`, for a dispatcher of your own (the MCP-Nest adapter uses it): runs
   * `body` with the `ToolElicitation` of one tool call and answers what a wrapped tool answers: the body's
   * result, or the result a question stopped the call with (`input_required`, a link). `context` is the SDK's
   * handler context of the call (1.x `extra` or 2.x `ctx`); `name` and `args` are the tool's registered name
   * and its (validated) arguments. `options.user` names the call's verified user instead of `resolveMcpUser`
   * (`null`: the call has none).
   */
  async runCall<R>(
    server: SdkServerOrMcpServer,
    name: string,
    args: unknown,
    context: unknown,
    body: (elicitation: ToolElicitation) => R | Promise<R>,
    options: McpCallOptions = {},
  ): Promise<WrappedToolResult<R>> {
    const scope: CallScope = {
      asking: { name, args, structured: options.structured ?? true },
      modelTool: this.answering.has(lowLevelServer(server)) ? SUBMIT_ANSWER_TOOL : undefined,
      client: clientNameOf(lowLevelServer(server)),
    };
    const user = options.user === undefined ? undefined : () => options.user ?? undefined;
    if (options.user !== undefined && context && typeof context === 'object') this.callUsers.set(context, options.user);
    const low = lowLevelServer(server);
    guardToolCalls(low);
    const { release, ...waits } = this.inFlight.forCall(context, low, user ?? (() => this.callers.userOf(context)));
    try {
      let elicitation: ToolElicitation;
      if (!isSdkV2Context(context))
        elicitation = this.calls.push(
          server,
          context as SdkRequestExtra,
          '1.x',
          scope,
          user ?? (() => this.callers.userOf(context)),
          waits,
        );
      else if (!context.mcpReq.envelope)
        elicitation = this.calls.push(server, extraOf(context), '2.x', scope, user ?? (() => this.callers.userOf(context)), waits);
      else elicitation = await this.calls.inputRequired(context, name, args, scope, user ?? (() => this.mcpUser(context)), waits);
      return await body(elicitation);
    } catch (error) {
      if (error instanceof InputRequiredSignal || error instanceof PendingQuestionSignal) return error.result;
      throw error;
    } finally {
      release();
    }
  }

  /**
   * Registers a tool written once for both eras on an SDK `McpServer` (1.x or 2.x): `config` is what
   * the SDK's `registerTool` takes (give `inputSchema` as a zod object, which both lines accept); the
   * handler's arguments are typed from it. When the module's `fallback.form` has the `model` rung,
   * `submit-elicitation-answer` is registered too (once).
   */
  registerTool<S = undefined, R = unknown>(
    server: SdkToolServer,
    name: string,
    config: ElicitingToolConfig<S>,
    handler: ElicitingToolHandler<ToolArgs<S>, R>,
  ): void {
    if (this.options.fallback.form.includes('model')) this.registerAnswerTool(server);
    // Each SDK line declares registerTool with its own overloads over its own zod types, which no one
    // structural signature matches; `never` parameters accept every line's method, and the values are what
    // both lines take at run time.
    const callback = this.tool(server, name, handler, { structured: config.outputSchema === undefined });
    const tool = this.tasks.wrap(server, name, config, handler, callback, (ctx) => this.mcpUser(ctx));
    server.registerTool(name, tool.config as never, tool.callback as never);
  }

  /**
   * Registers `submit-elicitation-answer { elicitationId, action, content }` on a server (once): the way
   * back of the `model` rung, where the model collects a form's answer in the chat. Without it on a server,
   * the `model` rung does not fit there. Needs zod v4 as the SDK resolves it.
   */
  registerAnswerTool(server: SdkToolServer): void {
    const low = lowLevelServer(server);
    if (this.answering.has(low)) return;
    const z = this.sdks.zod();
    if (!z)
      throw new Error('nestjs-mcp-elicitation: submit-elicitation-answer needs zod 4, as @modelcontextprotocol/sdk or /server resolves it');
    const inputSchema = z.object({
      elicitationId: z.string().describe('The elicitationId the tool result gave'),
      action: z.enum(['accept', 'decline', 'cancel']).describe('accept with content; decline if the user refuses; cancel to stop'),
      content: z.record(z.string(), z.unknown()).optional().describe('The fields the user gave (action "accept")'),
    });
    const callback = async (answer: ChatAnswer, context: unknown) => this.submitAnswerTool.submit(this.callers.userOf(context), answer);
    server.registerTool(SUBMIT_ANSWER_TOOL, { description: SubmitAnswerTool.description, inputSchema } as never, callback as never);
    this.answering.add(low);
  }

  /**
   * Options for SDK 2.x `new McpServer(info, { ...elicitation.serverOptions() })`: the `requestState`
   * hook that opens the sealed state before the tool runs, so a tampered, expired, already used or
   * other user's state gets a JSON-RPC error (-32602) and the tool never runs.
   */
  serverOptions(): ElicitationServerOptions {
    return { requestState: { verify: (state, ctx) => this.verifyRequestState(state, ctx as SdkV2Context) } };
  }

  /**
   * Opens a `requestState` and checks everything the request alone tells: AEAD seal, expiry, the same
   * verified user and method, the tool (from the validated `Mcp-Name` header, over HTTP), and that it was
   * not used before (across instances on a shared store). It does not use the state up: the tool wrapper
   * redeems it once it has also matched the arguments, so a refused call leaves it as it was. Throws
   * `RequestStateError` (the reason is for logs; clients get one generic error).
   */
  verifyRequestState(state: unknown, ctx: SdkV2Context): Promise<RequestState> {
    return this.states.verify(state, {
      user: this.mcpUser(ctx),
      method: ctx.mcpReq.method,
      toolHeader: ctx.http?.req?.headers?.get('mcp-name'),
    });
  }

  /**
   * A sealed `requestState` for your own 2026-07-28 input requests (sampling, roots, several at once):
   * bound to this call's user (the one `runCall` was given for this context, else `resolveMcpUser`), method,
   * `name` and `args`, single use, expiring after `requestStateTtlMs`.
   * Return it in your `input_required` result; on the retry the wrapper (`tool`) and `serverOptions()`
   * verify it like the library's own, and the state carries no data of yours.
   */
  sealRequestState(ctx: SdkV2Context, name: string, args: unknown): string {
    return this.states.mint({ user: this.mcpUser(ctx), method: ctx.mcpReq.method, name, args });
  }

  /**
   * The elicitation helpers for one tool call on a 2025-11-25 connection (SDK 1.x). Outside `tool()` the
   * call's tool is unknown, so the `link` and `model` rungs do not fit.
   */
  forRequest(server: SdkServerOrMcpServer, extra: SdkRequestExtra): PushToolElicitation {
    return this.calls.push(server, extra, '1.x', {}, () => this.callers.userOf(extra));
  }

  /** Forgets every completion pairing of this session (called automatically when the SDK server closes). */
  forgetSession(server: SdkServerOrMcpServer): void {
    this.notifications.forgetSession(lowLevelServer(server));
  }

  private mcpUser(ctx: SdkV2Context): string | undefined {
    const given = this.callUsers.get(ctx);
    if (given !== undefined) return given ?? undefined;
    return this.callers.userOf(ctx);
  }
}

/** The client's name from its session's `initialize` (a short printable string), or `undefined`. */
function clientNameOf(server: { getClientVersion?(): { name?: string } | undefined }): string | undefined {
  const name = server.getClientVersion?.()?.name;
  return typeof name === 'string' && /^[\x20-\x7e]{1,128}$/.test(name) ? name : undefined;
}
