import { Inject } from '@nestjs/common';
import type { ResolvedElicitationOptions } from './resolved-options.js';

/**
 * The slice of the resolved options the MCP binding (`mcp/`) reads: who the caller is, the fallback ladder and the
 * client policy, the waits and retries of a call and how many calls may wait at once, how long a question and its
 * record live, and how long a `requestState` does. Never a secret: no `encryptionKey` ring (the states are sealed by the `RequestStateCodec` the
 * module builds from it, provided on its own), no `oauth` providers, no store.
 */
export interface ElicitationMcpOptions {
  readonly resolveMcpUser: ResolvedElicitationOptions['resolveMcpUser'];
  readonly clientPolicy?: ResolvedElicitationOptions['clientPolicy'];
  readonly hiddenExtension?: ResolvedElicitationOptions['hiddenExtension'];
  readonly urlRequired?: ResolvedElicitationOptions['urlRequired'];
  readonly fallback: ResolvedElicitationOptions['fallback'];
  readonly instantDeclineMs: ResolvedElicitationOptions['instantDeclineMs'];
  readonly keepAliveMs: ResolvedElicitationOptions['keepAliveMs'];
  readonly pendingRetryWaitMs: ResolvedElicitationOptions['pendingRetryWaitMs'];
  readonly pendingRetryRounds: ResolvedElicitationOptions['pendingRetryRounds'];
  readonly callWaitMs: ResolvedElicitationOptions['callWaitMs'];
  readonly ttlMs: ResolvedElicitationOptions['ttlMs'];
  readonly retentionMs: ResolvedElicitationOptions['retentionMs'];
  readonly requestStateTtlMs: ResolvedElicitationOptions['requestStateTtlMs'];
  readonly tasks: Readonly<ResolvedElicitationOptions['tasks']>;
  readonly limits: Readonly<
    Pick<
      ResolvedElicitationOptions['limits'],
      'maxFormAttempts' | 'maxCallsInFlightPerSession' | 'maxCallsInFlightPerUser' | 'maxStepResultBytes'
    >
  >;
}

/** Injection token of the MCP binding's slice of the options (`ElicitationMcpOptions`). */
export const ELICITATION_MCP_OPTIONS = Symbol('ElicitationMcpOptions');

/** Injects the MCP binding's slice of the options (`ELICITATION_MCP_OPTIONS`), as `@InjectPageOptions()` does. */
export const InjectMcpOptions = (): PropertyDecorator & ParameterDecorator => Inject(ELICITATION_MCP_OPTIONS);

/** The MCP binding's slice, copied field by field out of the resolved options (so nothing else comes along). */
export function mcpOptionsOf(options: ResolvedElicitationOptions): ElicitationMcpOptions {
  return Object.freeze({
    resolveMcpUser: options.resolveMcpUser,
    clientPolicy: options.clientPolicy,
    hiddenExtension: options.hiddenExtension,
    urlRequired: options.urlRequired,
    fallback: options.fallback,
    instantDeclineMs: options.instantDeclineMs,
    keepAliveMs: options.keepAliveMs,
    pendingRetryWaitMs: options.pendingRetryWaitMs,
    pendingRetryRounds: options.pendingRetryRounds,
    callWaitMs: options.callWaitMs,
    ttlMs: options.ttlMs,
    retentionMs: options.retentionMs,
    requestStateTtlMs: options.requestStateTtlMs,
    tasks: Object.freeze({ ...options.tasks }),
    limits: Object.freeze({
      maxFormAttempts: options.limits.maxFormAttempts,
      maxCallsInFlightPerSession: options.limits.maxCallsInFlightPerSession,
      maxCallsInFlightPerUser: options.limits.maxCallsInFlightPerUser,
      maxStepResultBytes: options.limits.maxStepResultBytes,
    }),
  });
}
