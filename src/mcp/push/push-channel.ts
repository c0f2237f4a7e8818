import type { ElicitationRecords } from '../../lifecycle/elicitation-records.js';
import type { SdkRequestExtra, SdkServerLike } from '../sdk/sdk.types.js';
import { isInstantDecline } from '../questions/question-rules.js';

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
  /** How long a call without a progress token waits for a person (`callWaitMs`); 0: no limit. */
  callWaitMs: number;
  /** Aborted when the call's response stream closed and nothing can resume it (the client hung up). */
  hangUp?: AbortSignal;
  /** The call is about to wait on a person: takes its place among the calls in flight (throws past the cap). */
  waiting(): void;
}

/**
 * The push mechanism's channel to the client of one tool call (protocol 2025-11-25): `elicitation/create` on the
 * call's own stream, progress notifications while a person answers, and what counts as an instant decline.
 */
export class PushChannel {
  /** The call's signal: the client cancelled the call, closed its session, or hung up. */
  readonly signal: AbortSignal | undefined;

  /**
   * When the call stops waiting for a person (epoch ms): `callWaitMs` after it started when its request carries no
   * progress token (nothing keeps it alive past the client's request timeout); none otherwise.
   */
  readonly deadline: number | undefined;

  constructor(private readonly deps: PushChannelDeps) {
    this.signal = anySignal(deps.extra.signal, deps.hangUp);
    const kept = deps.extra._meta?.progressToken !== undefined;
    this.deadline = kept || deps.callWaitMs <= 0 ? undefined : Date.now() + deps.callWaitMs;
  }

  /** Milliseconds left before the deadline (at least 1), or `fallback` when the call has none or it is further off. */
  within(fallback: number): number;
  within(fallback: number | undefined): number | undefined;
  within(fallback: number | undefined): number | undefined {
    if (this.deadline === undefined) return fallback;
    const left = Math.max(1, this.deadline - Date.now());
    return fallback === undefined ? left : Math.min(fallback, left);
  }

  /** Whether the deadline has come. */
  overdue(): boolean {
    return this.deadline !== undefined && Date.now() >= this.deadline;
  }

  /** The call is about to wait on a person: its place among the calls in flight, or the refusal (idempotent). */
  waiting(): void {
    this.deps.waiting();
  }

  /**
   * `elicitInput` on the call's stream, ended by `signal` or by the module's shutdown, which rejects it with
   * `ElicitationShutdownError` (the SDK would wait for the client's answer, or its timeout, while the app closes).
   */
  async elicitInput(params: Record<string, unknown>, signal: AbortSignal | undefined, timeout: number) {
    this.waiting();
    const shutdown = this.deps.records.shutdownSignal;
    // The SDK never removes its listener from the signal it is given: it gets one of its own, detached when done.
    const linked = linkedSignal(signal, shutdown);
    try {
      return await this.deps.server.elicitInput(params, { relatedRequestId: this.deps.extra.requestId, signal: linked.signal, timeout });
    } catch (error) {
      // The SDK rejects an aborted request with its own error naming the reason: the reason is the error.
      if (shutdown.aborted) throw shutdown.reason as Error;
      throw this.deps.hangUp?.aborted ? (this.deps.hangUp.reason as Error) : error;
    } finally {
      linked.dispose();
    }
  }

  /**
   * Runs `wait` (a wait on a person, which ends when the call's `signal` aborts) while sending
   * `notifications/progress` for the call's `progressToken` (when the client sent one) every `keepAliveMs`, so
   * clients that reset their request timeout on progress keep waiting. The timer stops with the wait.
   */
  async keepingAlive<R>(what: string | (() => Promise<string>), wait: () => Promise<R>): Promise<R> {
    this.waiting();
    const token = this.deps.extra._meta?.progressToken;
    const send = this.deps.extra.sendNotification;
    if (token === undefined || !send || this.deps.keepAliveMs <= 0) return wait();
    let progress = 0;
    const said = (text: string) => `Waiting for the user to answer: ${text.length > 200 ? `${text.slice(0, 199)}…` : text}`;
    const timer = setInterval(() => {
      progress++;
      const sent = progress;
      // A question whose state moves (an approval's count) is read again at each notification.
      void (typeof what === 'string' ? Promise.resolve(what) : what())
        .then((text) => send({ method: 'notifications/progress', params: { progressToken: token, progress: sent, message: said(text) } }))
        .catch(() => undefined);
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
    return isInstantDecline(sentAt, this.deps.instantDeclineMs);
  }
}

/** One signal aborted when any of the given ones is. */
export function anySignal(...signals: Array<AbortSignal | undefined>): AbortSignal | undefined {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  if (present.length <= 1) return present[0];
  return AbortSignal.any(present);
}

/**
 * A fresh signal aborted (with the same reason) when any of `signals` is, for a consumer that never removes its abort
 * listener (the SDK's `request()`); `dispose` detaches it from the sources once the consumer is done. Handing such a
 * consumer a source itself would pile its listeners onto a long-lived signal (the module's shutdown signal), and
 * `AbortSignal.any` would be worse: Node keeps a combined signal that has a listener for good (its
 * `gcPersistentSignals`), with all that listener holds, even after it aborted.
 */
export function linkedSignal(...signals: Array<AbortSignal | undefined>): { signal: AbortSignal; dispose(): void } {
  const linked = new AbortController();
  const sources = signals.filter((s): s is AbortSignal => s !== undefined);
  const already = sources.find((s) => s.aborted);
  if (already) {
    linked.abort(already.reason);
    return { signal: linked.signal, dispose: () => undefined };
  }
  const onAbort = (event: Event) => {
    dispose();
    linked.abort((event.target as AbortSignal).reason);
  };
  const dispose = () => {
    for (const source of sources) source.removeEventListener('abort', onAbort);
  };
  for (const source of sources) source.addEventListener('abort', onAbort);
  return { signal: linked.signal, dispose };
}
