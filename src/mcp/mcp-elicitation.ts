import { Inject, Injectable } from '@nestjs/common';
import { ELICITATION_RESOLVED_OPTIONS } from '../elicitation.constants.js';
import type { ResolvedElicitationOptions } from '../elicitation-options.interface.js';
import { ElicitationService } from '../elicitation.service.js';
import { CompletionNotifications } from './completion-notifications.js';
import { InputRequiredElicitation } from './input-required-tool-elicitation.js';
import { InputRequiredSignal, type InputRequiredResult } from './input-required.js';
import { PushElicitation } from './push-tool-elicitation.js';
import type { RequestState } from './request-state.codec.js';
import { RequestStates } from './request-states.js';
import { McpSdkLoader, type SdkLine } from './sdk-loader.js';
import {
  CLIENT_CAPABILITIES_META_KEY,
  extraOf,
  isSdkV2Context,
  lowLevelServer,
  type SdkRequestExtra,
  type SdkServerOrMcpServer,
  type SdkV2Context,
} from './sdk.types.js';
import type { DeclaredElicitation, PushToolElicitation, ToolElicitation } from './tool-elicitation.js';

/** A tool body written once for both protocol eras: the arguments, the elicitation, the SDK's own context. */
export type ElicitingToolHandler<A, R> = (args: A, elicitation: ToolElicitation, context: unknown) => R | Promise<R>;

/** What SDK 2.x `new McpServer(info, options)` takes from `serverOptions()`. */
export interface ElicitationServerOptions {
  requestState: { verify: (state: string, ctx: unknown) => Promise<RequestState> };
}

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
  constructor(
    private readonly service: ElicitationService,
    private readonly notifications: CompletionNotifications,
    private readonly states: RequestStates,
    private readonly sdks: McpSdkLoader,
    @Inject(ELICITATION_RESOLVED_OPTIONS) private readonly options: ResolvedElicitationOptions,
  ) {}

  /**
   * Wraps a tool body written once for both eras into an SDK tool callback (1.x or 2.x, with or without
   * an input schema). `name` must be the tool's registered name: a 2026-07-28 `requestState` is bound to
   * it and to the arguments.
   */
  tool<A = unknown, R = unknown>(
    server: SdkServerOrMcpServer,
    name: string,
    handler: ElicitingToolHandler<A, R>,
  ): (...params: unknown[]) => Promise<R | InputRequiredResult> {
    return async (...params: unknown[]) => {
      // SDK callbacks are (args, ctx), or (ctx) for tools without an input schema.
      const [args, context] = params.length >= 2 && params[1] !== undefined ? [params[0] as A, params[1]] : [undefined as A, params[0]];
      if (!isSdkV2Context(context)) return handler(args, this.forRequest(server, context as SdkRequestExtra), context);
      if (!context.mcpReq.envelope) return handler(args, this.push(server, extraOf(context), '2.x'), context);
      const elicitation = await this.inputRequired(context, name, args);
      try {
        return await handler(args, elicitation, context);
      } catch (error) {
        if (error instanceof InputRequiredSignal) return error.result;
        throw error;
      }
    };
  }

  /**
   * Registers a tool written once for both eras on an SDK `McpServer` (1.x or 2.x): `config` is what
   * the SDK's `registerTool` takes (give `inputSchema` as a zod object, which both lines accept).
   */
  registerTool<A = unknown, R = unknown>(
    server: SdkServerOrMcpServer & { registerTool(name: string, config: never, callback: never): unknown },
    name: string,
    config: Record<string, unknown>,
    handler: ElicitingToolHandler<A, R>,
  ): void {
    // Each SDK line declares registerTool with its own overloads over its own zod types, which no one
    // structural signature matches; `never` parameters accept every line's method, and the values are what
    // both lines take at run time.
    server.registerTool(name, config as never, this.tool(server, name, handler) as never);
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
   * bound to this call's user, method, `name` and `args`, single use, expiring after `requestStateTtlMs`.
   * Return it in your `input_required` result; on the retry the wrapper (`tool`) and `serverOptions()`
   * verify it like the library's own, and the state carries no data of yours.
   */
  sealRequestState(ctx: SdkV2Context, name: string, args: unknown): string {
    return this.states.mint({ user: this.mcpUser(ctx), method: ctx.mcpReq.method, name, args });
  }

  /** The elicitation helpers for one tool call on a 2025-11-25 connection (SDK 1.x). */
  forRequest(server: SdkServerOrMcpServer, extra: SdkRequestExtra): PushToolElicitation {
    return this.push(server, extra, '1.x');
  }

  /** Forgets every completion pairing of this session (called automatically when the SDK server closes). */
  forgetSession(server: SdkServerOrMcpServer): void {
    this.notifications.forgetSession(lowLevelServer(server));
  }

  private push(server: SdkServerOrMcpServer, extra: SdkRequestExtra, line: SdkLine): PushElicitation {
    return new PushElicitation(
      {
        service: this.service,
        notifications: this.notifications,
        urlRequiredError: this.sdks.urlRequiredError(line),
        maxFormAttempts: this.options.limits.maxFormAttempts,
      },
      { server: lowLevelServer(server), extra, user: () => this.options.resolveMcpUser(extra) ?? undefined },
    );
  }

  /** A 2026-07-28 call: everything from this request's `_meta`, `inputResponses` and verified state. */
  private async inputRequired(ctx: SdkV2Context, name: string, args: unknown): Promise<InputRequiredElicitation> {
    const raw = ctx.mcpReq.requestState();
    // With serverOptions() the SDK already verified the state; without it, it is verified here. Any other
    // value (another hook's result) is refused on redemption. The SDK turns errors thrown here into a tool
    // error result (isError); the text stays generic.
    const state = typeof raw === 'string' ? await this.verifyRequestState(raw, ctx) : (raw as RequestState | undefined);
    if (state !== undefined) await this.states.redeem(state, name, args);
    const capabilities = ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY] as { elicitation?: DeclaredElicitation } | undefined;
    return new InputRequiredElicitation(
      {
        service: this.service,
        states: this.states,
        pendingRetryWaitMs: this.options.pendingRetryWaitMs,
        maxFormAttempts: this.options.limits.maxFormAttempts,
      },
      {
        user: this.mcpUser(ctx),
        elicitation: capabilities?.elicitation,
        inputResponses: ctx.mcpReq.inputResponses,
        state,
        method: ctx.mcpReq.method,
        name,
        args,
        signal: ctx.mcpReq.signal,
      },
    );
  }

  private mcpUser(ctx: SdkV2Context): string | undefined {
    return this.options.resolveMcpUser(extraOf(ctx)) ?? undefined;
  }
}
