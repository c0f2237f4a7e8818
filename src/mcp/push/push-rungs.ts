import type { ElicitationService } from '../../lifecycle/elicitation.service.js';
import type { ElicitationRecords } from '../../lifecycle/elicitation-records.js';
import type { ElicitationData, WaitOutcome } from '../../core/elicitation.types.js';
import { ElicitationCallsInFlightError } from '../../errors/elicitation-calls-in-flight.error.js';
import { ElicitationResponseClosedError } from '../../errors/elicitation-response-closed.error.js';
import { ElicitationShutdownError } from '../../errors/elicitation-shutdown.error.js';
import { BRIDGE_SCHEMA, bridgeMessage, type LadderStep } from '../../options/client-ladder.js';
import { anySignal, type PushChannel } from './push-channel.js';
import type { Page } from '../questions/question-room.js';
import type { UrlElicitationRequest } from '../tool-elicitation.js';

/** What ends a call's wait on a page without ending the page's question. */
const KEEP_PENDING = [ElicitationShutdownError, ElicitationResponseClosedError, ElicitationCallsInFlightError];

/** What the push mechanism's own rungs need. */
export interface PushRungsDeps {
  service: Pick<ElicitationService, 'waitForCompletion' | 'decline' | 'cancel' | 'getResult'>;
  records: Pick<ElicitationRecords, 'read' | 'extensionOf'>;
  /** The call's channel to its client. */
  channel: PushChannel;
  /** Form answers one question takes in all (`limits.maxFormAttempts`): invalid ones are asked again. */
  maxFormAttempts: number;
  /** How long an "I have finished" from the form bridge waits for the page's answer to land. */
  pendingRetryWaitMs: number;
}

/**
 * A page rung's step: the ladder's, or `leave` when the call may wait no longer (`callWaitMs`, a call without a
 * progress token): it ends with the link, the page still open.
 */
export type PageStep<T extends ElicitationData> = LadderStep<WaitOutcome<T>> | 'leave';

/**
 * The page rungs the push mechanism (protocol 2025-11-25) asks on, each waiting inside the call: `url` and
 * `form-bridge` on a hosted page. Each resolves the page's outcome, `cannot-ask` (an instant decline), `next`, or
 * `leave` at the call's deadline.
 */
export class PushRungs {
  constructor(private readonly deps: PushRungsDeps) {}

  /**
   * `elicitation/create` in URL mode, then the wait for the page. A decline sooner than `instantDeclineMs`
   * passes the question on (the page stays open for the next rung).
   */
  async url<T extends ElicitationData>(page: Page, timeoutMs?: number, leave = false): Promise<PageStep<T>> {
    const channel = this.deps.channel;
    const bound = <M extends number | undefined>(ms: M): M => (leave ? (channel.within(ms) as M) : ms);
    channel.waiting();
    return this.ending(page, leave, async () => {
      const sentAt = Date.now();
      const dialogMs = bound(await this.timeLeft(page));
      const consent = await channel.keepingAlive(page.progress ?? page.message, () =>
        channel.elicitInput(
          { mode: 'url', message: page.message, url: page.url, elicitationId: page.elicitationId },
          channel.signal,
          dialogMs,
        ),
      );
      if (consent.action === 'decline' && channel.instant(sentAt)) return 'cannot-ask';
      if (consent.action !== 'accept') return this.taken(page, await this.endByClient<T>(page, consent.action));
      const outcome = await channel.keepingAlive(page.progress ?? page.message, () =>
        this.deps.service.waitForCompletion<T>(page.elicitationId, { timeoutMs: bound(timeoutMs), signal: channel.signal }),
      );
      if (leave && outcome.status === 'timeout' && channel.overdue()) return 'leave';
      return this.taken(page, await this.settled(page, outcome));
    });
  }

  /**
   * The form bridge: a form-mode question that carries the page URL and one "I have finished" box. Whichever
   * comes first wins: the page's answer (the form is then withdrawn) or the client's reply. Accept → the
   * page's answer (waiting `pendingRetryWaitMs` for it to land); still none → asked again, up to
   * `limits.maxFormAttempts`, then the next rung. Decline or cancel ends the elicitation that way.
   */
  async bridge<T extends ElicitationData>(page: Page, timeoutMs?: number, leave = false): Promise<PageStep<T>> {
    const { service, channel } = this.deps;
    const bound = <M extends number | undefined>(ms: M): M => (leave ? (channel.within(ms) as M) : ms);
    const waitUntil = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
    channel.waiting();
    return this.ending(page, leave, async () => {
      for (let attempt = 1; attempt <= this.deps.maxFormAttempts; attempt++) {
        const sentAt = Date.now();
        const stop = new AbortController();
        const signal = anySignal(channel.signal, stop.signal);
        const left = bound(waitUntil === undefined ? undefined : Math.max(1, waitUntil - Date.now()));
        const pageDone = service
          .waitForCompletion<T>(page.elicitationId, { timeoutMs: left, signal: stop.signal })
          .then((outcome) => ({ outcome }))
          // Aborted once the client's reply won; a shutdown ends the call.
          .catch((error: unknown) =>
            error instanceof ElicitationShutdownError ? Promise.reject(error) : new Promise<never>(() => undefined),
          );
        let first: { outcome: WaitOutcome<T> } | { answer: { action: string } };
        try {
          const reply = channel
            .elicitInput(
              { mode: 'form', message: bridgeMessage(page.message, page.url, attempt > 1), requestedSchema: BRIDGE_SCHEMA },
              signal,
              bound(await this.timeLeft(page)),
            )
            .then((answer) => ({ answer }));
          reply.catch(() => undefined);
          first = await channel.keepingAlive(page.progress ?? page.message, () => Promise.race([pageDone, reply]));
        } finally {
          // Whichever way the race ended (the client's reply failing too: a cancel, a hang-up), the page's wait ends.
          stop.abort();
        }
        if ('outcome' in first && leave && first.outcome.status === 'timeout' && channel.overdue()) return 'leave';
        if ('outcome' in first) return this.taken(page, await this.settled(page, first.outcome));
        const { action } = first.answer;
        if (action === 'decline' && channel.instant(sentAt)) return 'cannot-ask';
        if (action !== 'accept') return this.taken(page, await this.endByClient<T>(page, action));
        const outcome = await service.waitForCompletion<T>(page.elicitationId, {
          timeoutMs: bound(this.deps.pendingRetryWaitMs),
          signal: channel.signal,
        });
        if (outcome.status !== 'timeout') return this.taken(page, outcome);
        if (leave && channel.overdue()) return 'leave';
      }
      return 'next';
    });
  }

  /**
   * Runs a rung that waits on a page: an error (the client cancelled the call, a timeout) cancels the
   * elicitation, so its page says so and the completion notification goes out; but a dialog that ran out at the call's
   * deadline (`leave`: `callWaitMs`) ends the wait with `deadline`, the page still open. A shutdown, a hang-up (the response
   * stream closed) or a refusal (too many calls in flight) leaves it pending: the person may still answer, another
   * instance may take the answer, and the tool's next call takes the page up again.
   */
  private async ending<R>(page: UrlElicitationRequest, leave: boolean, run: () => Promise<R | 'leave'>): Promise<R | 'leave'> {
    try {
      return await run();
    } catch (error) {
      if (KEEP_PENDING.some((type) => error instanceof type)) throw error;
      // The client's dialog timed out at the call's deadline (`callWaitMs`): the call ends with the link, the page open.
      if (leave && this.deps.channel.overdue() && !this.deps.channel.signal?.aborted) return 'leave';
      await this.endByBinding(page, 'cancel').catch(() => undefined);
      throw error;
    }
  }

  /** The client declined or cancelled: the elicitation ends that way. */
  private async endByClient<T extends ElicitationData>(page: UrlElicitationRequest, action: string): Promise<WaitOutcome<T>> {
    return this.endByBinding(page, action === 'decline' ? 'decline' : 'cancel');
  }

  /** Ends the elicitation from this side (its outcome is claimed by `taken`, so a later call asks anew). */
  private async endByBinding<T extends ElicitationData>(page: UrlElicitationRequest, how: 'decline' | 'cancel'): Promise<WaitOutcome<T>> {
    const service = this.deps.service;
    const ended = how === 'decline' ? await service.decline(page.elicitationId) : await service.cancel(page.elicitationId);
    const outcome = ended.ok || ended.reason === 'not-found' ? undefined : await service.getResult<T>(page.elicitationId);
    if (outcome && outcome.status !== 'pending') return outcome;
    return { status: how === 'decline' ? 'declined' : 'cancelled' };
  }

  /** A wait's outcome: a timeout withdraws the question. */
  private async settled<T extends ElicitationData>(page: UrlElicitationRequest, outcome: WaitOutcome<T>): Promise<WaitOutcome<T>> {
    if (outcome.status === 'timeout') await this.deps.service.cancel(page.elicitationId);
    return outcome;
  }

  /** A page's final outcome (the engine claims it for this call: one call takes an answer). */
  private taken<T extends ElicitationData>(_page: UrlElicitationRequest, outcome: WaitOutcome<T>): PageStep<T> {
    return { done: outcome };
  }

  /**
   * How long the client's dialog for `page` may stay open: until the latest the elicitation can expire ("Need more
   * time?" may move its expiry on while the dialog is open; the wait on the page itself follows the real expiry).
   */
  private async timeLeft(page: UrlElicitationRequest): Promise<number> {
    const record = await this.deps.records.read(page.elicitationId);
    const latest = record ? (this.deps.records.extensionOf(record) ?? record.expiresAt) : page.expiresAt.getTime();
    return Math.max(1, latest - Date.now());
  }
}
