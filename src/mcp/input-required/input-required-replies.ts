import type { ElicitationService } from '../../lifecycle/elicitation.service.js';
import type { ElicitationData, ElicitationOutcome, FinalStatus } from '../../core/elicitation.types.js';
import { ElicitationValidationError } from '../../errors/elicitation-validation.error.js';
import type { FormDefinition } from '../../forms/define-form.js';
import type { LadderStep, PageFallbackRung } from '../../options/client-ladder.js';
import { statusOfAction, type MechanismTelemetry } from '../questions/form-telemetry.js';
import type { InputRequiredRounds, Slot } from './input-required-rounds.js';
import type { LinkedQuestions } from '../questions/linked-questions.js';
import { bridgeRequest, formRequests, urlRequest, type Page } from './input-required-requests.js';
import type { FormResponse, PendingQuestion } from './request-state.codec.js';
import type { ElicitResult } from '../tool-elicitation.js';

/** What reading a 2026-07-28 retry's replies needs. */
export interface InputRequiredRepliesDeps {
  service: Pick<ElicitationService, 'decline' | 'cancel' | 'getResult' | 'waitForCompletion'>;
  rounds: Pick<InputRequiredRounds, 'answer' | 'suspend'>;
  telemetry: Pick<MechanismTelemetry, 'finished'>;
  /** `params.inputResponses` of the retry (bare results keyed by the keys this server chose). */
  inputResponses: Record<string, unknown> | undefined;
  /** The call's signal. */
  signal: AbortSignal | undefined;
  /** The call is about to wait on a person: takes its place among the calls in flight (throws past the cap). */
  waiting(): void;
  /** Claims a page's outcome for this call (one call takes an answer). */
  linked: Pick<LinkedQuestions, 'claim'>;
  /** A decline sooner than this (ms) after the question went out means "this client cannot ask"; 0: off. */
  instantDeclineMs: number;
  maxFormAttempts: number;
  pendingRetryWaitMs: number;
  /** Retries of an unanswered page question before `resume` answers `exhausted`. */
  pendingRetryRounds: number;
}

/**
 * The client's replies in a 2026-07-28 retry to the question the call was waiting on: a form-mode answer, or
 * the reply to a page question asked on `url` or `form-bridge`. Each ends the question, asks it again (a fresh
 * state), or passes it on (`next`, or `cannot-ask` after an instant decline).
 */
export class InputRequiredReplies {
  constructor(private readonly deps: InputRequiredRepliesDeps) {}

  /**
   * The client's answer to a form question: the validated result; `next` for no usable answer (ask again as
   * asked); invalid content asks again naming the fields (the `limits.maxFormAttempts`-th throws); a decline
   * sooner than `instantDeclineMs`: the client cannot ask.
   */
  formAnswer<T>(slot: Slot, definition: FormDefinition<T>, pending: PendingQuestion, message: string): LadderStep<ElicitResult<T>> {
    const response = this.deps.inputResponses?.[slot.key];
    if (!response || typeof response !== 'object' || Array.isArray(response)) return 'next';
    const { action, content } = response as { action?: unknown; content?: unknown };
    const done = (result: ElicitResult<T>): LadderStep<ElicitResult<T>> => {
      this.formEnded(pending, statusOfAction(result.action));
      this.deps.rounds.answer(slot, { response: result as FormResponse });
      return { done: result };
    };
    if (action === 'decline' && slot.pending && this.instant(pending)) {
      this.formEnded(pending, 'declined');
      return 'cannot-ask';
    }
    if (action === 'decline') return done({ action: 'decline', via: 'form' });
    if (action === 'cancel') return done({ action: 'cancel', via: 'form' });
    if (action !== 'accept') return 'next';
    const checked = definition.validate(content);
    if (checked.ok) return done({ action: 'accept', content: checked.value, via: 'form' });
    const invalidAnswers = (pending.invalidAnswers ?? 0) + 1;
    if (invalidAnswers >= this.deps.maxFormAttempts) {
      this.formEnded(pending, 'declined');
      throw new ElicitationValidationError(checked.issues);
    }
    // Invalid content: the same question again, naming the fields to correct.
    return this.deps.rounds.suspend(formRequests(slot.key, message, definition, checked.issues), { ...pending, invalidAnswers });
  }

  /**
   * The client's retry of a page question it was asked on `rung`. Decline or cancel ends the elicitation
   * (a decline sooner than `instantDeclineMs`: the client cannot ask). Otherwise the page's answer, waiting
   * a bounded time for it; still none → `url`: retry later; `form-bridge`: asked again, up to
   * `limits.maxFormAttempts` "finished" answers, then the next rung.
   */
  async resume<T extends ElicitationData>(
    slot: Slot,
    pending: PendingQuestion,
    page: Page,
    rung: PageFallbackRung,
    canLeave = false,
  ): Promise<LadderStep<ElicitationOutcome<T>> | 'spent' | 'exhausted'> {
    const { service, rounds } = this.deps;
    const response = this.deps.inputResponses?.[slot.key] as { action?: unknown } | undefined;
    if (response?.action === 'decline' && this.instant(pending)) return 'cannot-ask';
    if (response?.action === 'decline') await service.decline(page.id);
    else if (response?.action === 'cancel') await service.cancel(page.id);
    let outcome = await service.getResult<T>(page.id);
    if (outcome?.status === 'pending') {
      this.deps.waiting();
      const waited = await service.waitForCompletion<T>(page.id, { timeoutMs: this.deps.pendingRetryWaitMs, signal: this.deps.signal });
      if (waited.status === 'timeout') {
        // The client's round budget (SDK 2.x: 10) must not run out while the person reads: leave for the link first.
        const retries = (pending.retries ?? 0) + 1;
        if (canLeave && retries >= this.deps.pendingRetryRounds) return 'exhausted';
        const again = { ...pending, retries };
        if (rung === 'url') {
          // Halfway through the budget the page's URL request goes out again (a person who lost the link sees it anew).
          const remind = retries === Math.ceil(this.deps.pendingRetryRounds / 2);
          return rounds.suspend(remind ? { [slot.key]: urlRequest(page.message, page.url) } : undefined, again);
        }
        if (response?.action !== 'accept') return rounds.suspend({ [slot.key]: bridgeRequest(page, false) }, again);
        const unconfirmed = (pending.invalidAnswers ?? 0) + 1;
        if (unconfirmed >= this.deps.maxFormAttempts) return 'next';
        return rounds.suspend({ [slot.key]: bridgeRequest(page, true) }, { ...again, invalidAnswers: unconfirmed });
      }
      outcome = waited;
    }
    // The answer goes to the one call that claims it first; another call that waited on the page asks anew.
    const mine = await this.deps.linked.claim(page.id);
    if (outcome?.status === 'completed' && !mine) return 'spent';
    rounds.answer(slot, { elicitationId: page.id });
    return { done: outcome ?? { status: 'expired' } };
  }

  /**
   * A form-mode question this server asked ended (`askedAt` in its state: the time it was last sent), counted as
   * one form-mode elicitation finished.
   */
  formEnded(pending: PendingQuestion, status: FinalStatus): void {
    if (pending.askedAt !== undefined) this.deps.telemetry.finished('form', status, 'form', pending.askedAt, Date.now());
  }

  private instant(pending: PendingQuestion): boolean {
    return this.deps.instantDeclineMs > 0 && pending.askedAt !== undefined && Date.now() - pending.askedAt < this.deps.instantDeclineMs;
  }
}
