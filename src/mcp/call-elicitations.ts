import { Injectable } from '@nestjs/common';
import { ElicitationService } from '../lifecycle/elicitation.service.js';
import { ElicitationRecords } from '../lifecycle/elicitation-records.js';
import { ElicitationTelemetry } from '../observability/elicitation-telemetry.js';
import { InjectMcpOptions, type ElicitationMcpOptions } from '../options/mcp-options.js';
import type { CallWaits } from './calls-in-flight.js';
import { CompletionNotifications } from './completion-notifications.js';
import { InputRequiredElicitation } from './input-required/input-required-tool-elicitation.js';
import type { RequestState } from './input-required/request-state.codec.js';
import { RequestStates } from './input-required/request-states.js';
import { anySignal } from './push/push-channel.js';
import { PushElicitation } from './push/push-tool-elicitation.js';
import { PushStepStates } from './push/push-step-states.js';
import { LinkedQuestions, type CallScope } from './questions/linked-questions.js';
import { McpCallers } from './sdk/mcp-callers.js';
import { McpSdkLoader, type SdkLine } from './sdk/sdk-loader.js';
import { lowLevelServer, type SdkRequestExtra, type SdkServerOrMcpServer, type SdkV2Context } from './sdk/sdk.types.js';

/**
 * The `ToolElicitation` of one tool call, made for the era it is served under: each transport with the module's
 * parts and the binding's options it needs (narrow deps, no back-reference), and what the call itself brings (its
 * server or request, its user, the client's declared modes through `McpCallers`, its waits). `McpElicitation` picks
 * the era; tasks make theirs in `TaskRunner`.
 */
@Injectable()
export class CallElicitations {
  constructor(
    private readonly service: ElicitationService,
    private readonly records: ElicitationRecords,
    private readonly notifications: CompletionNotifications,
    private readonly states: RequestStates,
    private readonly sdks: McpSdkLoader,
    private readonly linked: LinkedQuestions,
    @InjectMcpOptions() private readonly options: ElicitationMcpOptions,
    private readonly telemetry: ElicitationTelemetry,
    private readonly callers: McpCallers,
    private readonly stepStates: PushStepStates,
  ) {}

  /** A 2025-11-25 call (or an SDK 2.x call without a per-request envelope): questions pushed within the call. */
  push(
    server: SdkServerOrMcpServer,
    extra: SdkRequestExtra,
    line: SdkLine,
    scope: CallScope,
    user: () => string | undefined,
    waits: CallWaits = {},
  ): PushElicitation {
    const low = lowLevelServer(server);
    return new PushElicitation(
      {
        service: this.service,
        records: this.records,
        notifications: this.notifications,
        linked: this.linked,
        urlRequiredError: this.sdks.copyFor(low, line).UrlElicitationRequiredError,
        maxFormAttempts: this.options.limits.maxFormAttempts,
        maxStepResultBytes: this.options.limits.maxStepResultBytes,
        stepStates: this.stepStates,
        fallback: this.options.fallback,
        instantDeclineMs: this.options.instantDeclineMs,
        keepAliveMs: this.options.keepAliveMs,
        callWaitMs: this.options.callWaitMs,
        pendingRetryWaitMs: this.options.pendingRetryWaitMs,
        telemetry: this.telemetry,
      },
      {
        server: low,
        extra,
        user,
        elicitation: this.callers.sessionElicitation(low),
        urlRequired: this.callers.sessionUrlRequired(low),
        scope,
        ...waits,
      },
    );
  }

  /** A 2026-07-28 call: everything from this request's `_meta`, `inputResponses` and verified state. */
  async inputRequired(
    ctx: SdkV2Context,
    name: string,
    args: unknown,
    scope: CallScope,
    user: () => string | undefined,
    waits: CallWaits = {},
  ): Promise<InputRequiredElicitation> {
    const raw = ctx.mcpReq.requestState();
    // With serverOptions() the SDK already verified the state; without it, it is verified here. Any other
    // value (another hook's result) is refused on redemption. The SDK turns errors thrown here into a tool
    // error result (isError); the text stays generic.
    const who = user();
    const state =
      typeof raw === 'string'
        ? await this.states.verify(raw, { user: who, method: ctx.mcpReq.method, toolHeader: ctx.http?.req?.headers?.get('mcp-name') })
        : (raw as RequestState | undefined);
    if (state !== undefined) await this.states.redeem(state, name, args);
    return new InputRequiredElicitation(
      {
        service: this.service,
        records: this.records,
        states: this.states,
        linked: this.linked,
        pendingRetryWaitMs: this.options.pendingRetryWaitMs,
        pendingRetryRounds: this.options.pendingRetryRounds,
        maxFormAttempts: this.options.limits.maxFormAttempts,
        maxStepResultBytes: this.options.limits.maxStepResultBytes,
        fallback: this.options.fallback,
        instantDeclineMs: this.options.instantDeclineMs,
        telemetry: this.telemetry,
      },
      {
        user: who,
        elicitation: this.callers.requestElicitation(ctx.mcpReq.envelope),
        scope,
        inputResponses: ctx.mcpReq.inputResponses,
        state,
        method: ctx.mcpReq.method,
        name,
        args,
        signal: anySignal(ctx.mcpReq.signal, waits.hangUp),
        waiting: waits.waiting,
      },
    );
  }
}
