import { DEFAULT_FORM_TIMEOUT_MS } from '../../options/elicitation.constants.js';
import type { ElicitationService } from '../../lifecycle/elicitation.service.js';
import type { ElicitationRecords } from '../../lifecycle/elicitation-records.js';
import type { ElicitationData, WaitOutcome } from '../../core/elicitation.types.js';
import { ElicitationCallsInFlightError } from '../../errors/elicitation-calls-in-flight.error.js';
import { ElicitationResponseClosedError } from '../../errors/elicitation-response-closed.error.js';
import { ElicitationShutdownError } from '../../errors/elicitation-shutdown.error.js';
import { ElicitationValidationError, type FieldIssue } from '../../errors/elicitation-validation.error.js';
import type { FormDefinition } from '../../forms/define-form.js';
import { BRIDGE_SCHEMA, bridgeMessage, type LadderStep } from '../../options/client-ladder.js';
import type { LinkedQuestions } from '../questions/linked-questions.js';
import { anySignal, type PushChannel } from './push-channel.js';
import { reaskMessage, type ElicitationElicitOptions, type ElicitResult, type UrlElicitationRequest } from '../tool-elicitation.js';

/** What ends a call's wait on a page without ending the page's question. */
const KEEP_PENDING = [ElicitationShutdownError, ElicitationResponseClosedError, ElicitationCallsInFlightError];

/** What the push mechanism's own rungs need. */
export interface PushRungsDeps {
  service: Pick<ElicitationService, 'waitForCompletion' | 'decline' | 'cancel' | 'getResult'>;
  records: Pick<ElicitationRecords, 'read' | 'extensionOf'>;
  /** Claims a page's outcome for this call (one call takes an answer). */
  linked: Pick<LinkedQuestions, 'claim'>;
  /** The call's channel to its client. */
  channel: PushChannel;
  /** Form answers one question takes in all (`limits.maxFormAttempts`): invalid ones are asked again. */
  maxFormAttempts: number;
  /** How long an "I have finished" from the form bridge waits for the page's answer to land. */
  pendingRetryWaitMs: number;
}

/**
 * A page rung's step: the ladder's, `spent` when the page was answered but another call claimed the answer
 * (`LinkedQuestions.claim`): this call asks anew; `deadline` when the call may wait no longer (`callWaitMs`, a call
 * without a progress token): it ends with the link, the page still open.
 */
export type PageStep<T extends ElicitationData> = LadderStep<WaitOutcome<T>> | 'spent' | 'deadline';

/**
 * The rungs the push mechanism (protocol 2025-11-25) asks on itself, each waiting inside the call: `url` and
 * `form-bridge` on a hosted page, `form` in form mode. Each resolves the answer, `cannot-ask` (an instant
 * decline) or `next`; a page rung also `spent`.
 */
export class PushRungs {
  constructor(private readonly deps: PushRungsDeps) {}

  /**
   * `elicitation/create` in URL mode, then the wait for the page. A decline sooner than `instantDeclineMs`
   * passes the question on (the page stays open for the next rung).
   */
  async url<T extends ElicitationData>(page: UrlElicitationRequest, timeoutMs?: number, leave = false): Promise<PageStep<T>> {
    const channel = this.deps.channel;
    const bound = <M extends number | undefined>(ms: M): M => (leave ? (channel.within(ms) as M) : ms);
    channel.waiting();
    return this.ending(page, leave, async () => {
      const sentAt = Date.now();
      const dialogMs = bound(await this.timeLeft(page));
      const consent = await channel.keepingAlive(page.message, () =>
        channel.elicitInput(
          { mode: 'url', message: page.message, url: page.url, elicitationId: page.elicitationId },
          channel.signal,
          dialogMs,
        ),
      );
      if (consent.action === 'decline' && channel.instant(sentAt)) return 'cannot-ask';
      if (consent.action !== 'accept') return this.taken(page, await this.endByClient<T>(page, consent.action));
      const outcome = await channel.keepingAlive(page.message, () =>
        this.deps.service.waitForCompletion<T>(page.elicitationId, { timeoutMs: bound(timeoutMs), signal: channel.signal }),
      );
      if (leave && outcome.status === 'timeout' && channel.overdue()) return 'deadline';
      return this.taken(page, await this.settled(page, outcome));
    });
  }

  /**
   * The form bridge: a form-mode question that carries the page URL and one "I have finished" box. Whichever
   * comes first wins: the page's answer (the form is then withdrawn) or the client's reply. Accept → the
   * page's answer (waiting `pendingRetryWaitMs` for it to land); still none → asked again, up to
   * `limits.maxFormAttempts`, then the next rung. Decline or cancel ends the elicitation that way.
   */
  async bridge<T extends ElicitationData>(page: UrlElicitationRequest, timeoutMs?: number, leave = false): Promise<PageStep<T>> {
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
          first = await channel.keepingAlive(page.message, () => Promise.race([pageDone, reply]));
        } finally {
          // Whichever way the race ended (the client's reply failing too: a cancel, a hang-up), the page's wait ends.
          stop.abort();
        }
        if ('outcome' in first && leave && first.outcome.status === 'timeout' && channel.overdue()) return 'deadline';
        if ('outcome' in first) return this.taken(page, await this.settled(page, first.outcome));
        const { action } = first.answer;
        if (action === 'decline' && channel.instant(sentAt)) return 'cannot-ask';
        if (action !== 'accept') return this.taken(page, await this.endByClient<T>(page, action));
        const outcome = await service.waitForCompletion<T>(page.elicitationId, {
          timeoutMs: bound(this.deps.pendingRetryWaitMs),
          signal: channel.signal,
        });
        if (outcome.status !== 'timeout') return this.taken(page, outcome);
        if (leave && channel.overdue()) return 'deadline';
      }
      return 'next';
    });
  }

  /** Form mode with the re-ask loop. A decline sooner than `instantDeclineMs` passes the question on. */
  async form<T>(message: string, definition: FormDefinition<T>, options: ElicitationElicitOptions): Promise<LadderStep<ElicitResult<T>>> {
    const channel = this.deps.channel;
    const signal = anySignal(channel.signal, options.signal);
    const timeout = options.timeoutMs ?? DEFAULT_FORM_TIMEOUT_MS;
    for (let attempt = 1, issues: FieldIssue[] = []; ; attempt++) {
      const sentAt = Date.now();
      const result = await channel.keepingAlive(message, () =>
        channel.elicitInput({ mode: 'form', message: reaskMessage(message, issues), requestedSchema: definition.schema }, signal, timeout),
      );
      if (result.action === 'decline' && attempt === 1 && channel.instant(sentAt)) return 'cannot-ask';
      if (result.action === 'decline') return { done: { action: 'decline', via: 'form' } };
      if (result.action !== 'accept') return { done: { action: 'cancel', via: 'form' } };
      const checked = definition.validate(result.content);
      if (checked.ok) return { done: { action: 'accept', content: checked.value, via: 'form' } };
      if (attempt >= this.deps.maxFormAttempts) throw new ElicitationValidationError(checked.issues);
      issues = checked.issues;
    }
  }

  /**
   * Runs a rung that waits on a page: an error (the client cancelled the call, a timeout) cancels the
   * elicitation, so its page says so and the completion notification goes out; but a dialog that ran out at the call's
   * deadline (`leave`: `callWaitMs`) ends the wait with `deadline`, the page still open. A shutdown, a hang-up (the response
   * stream closed) or a refusal (too many calls in flight) leaves it pending: the person may still answer, another
   * instance may take the answer, and the tool's next call takes the page up again.
   */
  private async ending<R>(page: UrlElicitationRequest, leave: boolean, run: () => Promise<R | 'deadline'>): Promise<R | 'deadline'> {
    try {
      return await run();
    } catch (error) {
      if (KEEP_PENDING.some((type) => error instanceof type)) throw error;
      // The client's dialog timed out at the call's deadline (`callWaitMs`): the call ends with the link, the page open.
      if (leave && this.deps.channel.overdue() && !this.deps.channel.signal?.aborted) return 'deadline';
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

  /**
   * A page's final outcome, claimed for this call: every call that waited on the page counts a claim (so a later
   * call passes it over), and an answer goes to the one call that claimed it first; the others get `spent` and ask
   * anew. A decline, cancel or expiry is no answer and reaches every call that waited.
   */
  private async taken<T extends ElicitationData>(page: UrlElicitationRequest, outcome: WaitOutcome<T>): Promise<PageStep<T>> {
    const mine = await this.deps.linked.claim(page.elicitationId);
    return outcome.status === 'completed' && !mine ? 'spent' : { done: outcome };
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
