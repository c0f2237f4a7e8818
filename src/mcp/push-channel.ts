import type { ElicitationRecords } from '../lifecycle/elicitation-records.js';
import type { SdkRequestExtra, SdkServerLike } from './sdk.types.js';

/** What a 2025-11-25 call's channel to its client needs. */
export interface PushChannelDeps {
  /** The call's session server (`elicitInput`). */
  server: SdkServerLike;
  /** The call's `extra`: its request id, signal, progress token and notification sender. */
  extra: SdkRequestExtra;
  /** Its `shutdownSignal`, aborted when the module shuts down. */
  records: Pick<ElicitationRecords, 'shutdownSignal'>;
  /** A decline sooner than this (ms) means "this client cannot ask"; 0: off. */
  instantDeclineMs: number;
  /** Progress notifications while a person answers, every this many ms; 0: off. */
  keepAliveMs: number;
}

/**
 * The push mechanism's channel to the client of one tool call (protocol 2025-11-25): `elicitation/create` on the
 * call's own stream, progress notifications while a person answers, and what counts as an instant decline.
 */
export class PushChannel {
  constructor(private readonly deps: PushChannelDeps) {}

  /** The tool call's own signal (the client cancelled the call). */
  get signal(): AbortSignal | undefined {
    return this.deps.extra.signal;
  }

  /**
   * `elicitInput` on the call's stream, ended by `signal` or by the module's shutdown, which rejects it with
   * `ElicitationShutdownError` (the SDK would wait for the client's answer, or its timeout, while the app closes).
   */
  async elicitInput(params: Record<string, unknown>, signal: AbortSignal | undefined, timeout: number) {
    const shutdown = this.deps.records.shutdownSignal;
    try {
      return await this.deps.server.elicitInput(params, {
        relatedRequestId: this.deps.extra.requestId,
        signal: anySignal(signal, shutdown),
        timeout,
      });
    } catch (error) {
      // The SDK rejects an aborted request with its own error naming the reason: the reason is the error.
      throw shutdown.aborted ? (shutdown.reason as Error) : error;
    }
  }

  /**
   * Runs `wait` while sending `notifications/progress` for the call's `progressToken` (when the client sent
   * one) every `keepAliveMs`, so clients that reset their request timeout on progress keep waiting.
   */
  async keepingAlive<R>(what: string, wait: () => Promise<R>): Promise<R> {
    const token = this.deps.extra._meta?.progressToken;
    const send = this.deps.extra.sendNotification;
    if (token === undefined || !send || this.deps.keepAliveMs <= 0) return wait();
    let progress = 0;
    const message = `Waiting for the user to answer: ${what.length > 200 ? `${what.slice(0, 199)}…` : what}`;
    const timer = setInterval(() => {
      progress++;
      send({ method: 'notifications/progress', params: { progressToken: token, progress, message } }).catch(() => undefined);
    }, this.deps.keepAliveMs);
    timer.unref();
    try {
      return await wait();
    } finally {
      clearInterval(timer);
    }
  }

  /** Whether a decline of a question sent at `sentAt` came sooner than `instantDeclineMs` (the client cannot ask). */
  instant(sentAt: number): boolean {
    return this.deps.instantDeclineMs > 0 && Date.now() - sentAt < this.deps.instantDeclineMs;
  }
}

/** One signal aborted when any of the given ones is. */
export function anySignal(...signals: Array<AbortSignal | undefined>): AbortSignal | undefined {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  if (present.length <= 1) return present[0];
  return AbortSignal.any(present);
}
