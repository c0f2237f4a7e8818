import type { ElicitationData, ElicitationOutcome, ElicitationRecord } from '../../core/elicitation.types.js';
import type { FormDefinition } from '../../forms/define-form.js';
import type { ElicitationService } from '../../lifecycle/elicitation.service.js';
import type { ElicitationRecords } from '../../lifecycle/elicitation-records.js';
import type { CallQuestions } from '../questions/call-questions.js';
import type { LinkedQuestions } from '../questions/linked-questions.js';
import type { LoggedAnswer, OpenQuestionState, Slot } from '../questions/question-log.js';
import type { FormAskingHow, FormReplyIn, Page, PageAsking, PageStep, QuestionRoom } from '../questions/question-room.js';
import type { UrlElicitationAsk } from '../tool-elicitation.js';
import { InputRequiredSignal, type InputRequest } from './input-required.js';
import { bridgeRequest, emptyFormRequest, formRequests, UNDECLARED_ID, urlRequest } from './input-required-requests.js';
import type { InputRequiredRounds } from './input-required-rounds.js';
import { isInstantDecline } from '../questions/question-rules.js';

/** What the 2026-07-28 transport needs: the call's rounds and replies, and the module's parts. */
export interface InputRequiredRoomDeps {
  service: Pick<ElicitationService, 'decline' | 'cancel' | 'getResult' | 'waitForCompletion'>;
  records: Pick<ElicitationRecords, 'urlFor'>;
  questions: Pick<CallQuestions, 'createPage'>;
  linked: Pick<LinkedQuestions, 'urlOf'>;
  rounds: InputRequiredRounds;
  /** `params.inputResponses` of this request (bare results keyed by the keys this server chose). */
  inputResponses: Record<string, unknown> | undefined;
  /** The request carries a verified state (a retry). */
  retry: boolean;
  /** The call's signal. */
  signal: AbortSignal | undefined;
  /** The call is about to wait on a person: takes its place among the calls in flight (throws past the cap). */
  waiting(): void;
  /** A decline sooner than this (ms) after the question went out means "this client cannot ask"; 0: off. */
  instantDeclineMs: number;
  maxFormAttempts: number;
  pendingRetryWaitMs: number;
  /** Retries of an unanswered page question before the call leaves for the link rung. */
  pendingRetryRounds: number;
}

/**
 * The 2026-07-28 transport: the answers so far live in the sealed `requestState`; a question not answered yet ends
 * the call with `input_required` (an `InputRequiredSignal` with a fresh state), and the client's retry carries the
 * replies (`inputResponses`). A retry of a page question waits a bounded time for the person (`pendingRetryWaitMs`)
 * and leaves for the link before the client's round budget runs out (`pendingRetryRounds`).
 */
export class InputRequiredRoom implements QuestionRoom {
  readonly waits = false;

  constructor(private readonly deps: InputRequiredRoomDeps) {}

  place(question: string, key?: string): Slot {
    return this.deps.rounds.next(question, key);
  }

  record(slot: Slot, answer: LoggedAnswer): void {
    this.deps.rounds.answer(slot, answer);
  }

  formReply(slot: Slot): FormReplyIn | undefined {
    // A reply to the question the state says is open; or, on a first call, one the client sent unasked under its key.
    if (!slot.open && this.deps.retry) return undefined;
    const reply = this.deps.inputResponses?.[slot.key];
    return reply === undefined ? undefined : { reply, instant: this.instant(slot.open) };
  }

  askForm(slot: Slot, message: string, definition: FormDefinition<unknown>, how: Pick<FormAskingHow, 'issues' | 'state'>): Promise<never> {
    this.suspend(slot, formRequests(slot.key, message, definition, [...how.issues]), how.state);
  }

  async page(ask: UrlElicitationAsk, slot: Slot): Promise<Page> {
    const created = await this.deps.questions.createPage(ask, slot.index, slot.question);
    return { ...created, message: ask.message };
  }

  reuse(earlier: ElicitationRecord, ask: UrlElicitationAsk): Page {
    return {
      elicitationId: earlier.id,
      url: this.deps.linked.urlOf(earlier),
      expiresAt: new Date(earlier.expiresAt),
      message: ask.message,
    };
  }

  askOnPage<T extends ElicitationData>(slot: Slot, rung: 'url' | 'form-bridge', page: Page, _how: PageAsking): Promise<PageStep<T>> {
    const open = { elicitationId: page.elicitationId };
    if (rung === 'url') this.suspend(slot, { [slot.key]: urlRequest(page.message, page.url) }, open);
    this.suspend(slot, { [slot.key]: bridgeRequest(asRequestPage(page), false) }, { ...open, bridge: true });
  }

  /**
   * The client's retry of a page question it was asked on `rung`. Decline or cancel ends the elicitation (a decline
   * sooner than `instantDeclineMs`: the client cannot ask). Otherwise the page's outcome, waiting a bounded time for
   * it; still none → `url`: retry later (the URL again halfway through the budget); `form-bridge`: asked again, up to
   * `limits.maxFormAttempts` "finished" answers, then the next rung; past `pendingRetryRounds` retries: `leave`.
   */
  async resume<T extends ElicitationData>(slot: Slot, page: Page, rung: 'url' | 'form-bridge', canLeave: boolean): Promise<PageStep<T>> {
    const { service } = this.deps;
    const open = slot.open ?? {};
    const response = this.deps.inputResponses?.[slot.key] as { action?: unknown } | undefined;
    if (response?.action === 'decline' && this.instant(open)) return 'cannot-ask';
    if (response?.action === 'decline') await service.decline(page.elicitationId);
    else if (response?.action === 'cancel') await service.cancel(page.elicitationId);
    const current = await service.getResult<T>(page.elicitationId);
    let outcome: ElicitationOutcome<T> | undefined = current?.status === 'pending' ? undefined : current;
    if (current?.status === 'pending') {
      this.deps.waiting();
      const waited = await service.waitForCompletion<T>(page.elicitationId, {
        timeoutMs: this.deps.pendingRetryWaitMs,
        signal: this.deps.signal,
      });
      if (waited.status === 'timeout') return this.stillPending(slot, page, rung, response, canLeave);
      outcome = waited;
    }
    return { done: outcome ?? { status: 'expired' } };
  }

  /** The state carries this call's answers to its retry: nothing to hand on. */
  endsCall(): boolean {
    return false;
  }

  /**
   * The `error` rung: the mode the question needed, embedded without a state, so the SDK answers -32021 (missing
   * client capability) naming it. Nothing is created.
   */
  unsupported(slot: Slot, mode: 'form' | 'url', message: string, kind: UrlElicitationAsk['kind']): never {
    const request: InputRequest =
      mode === 'url' ? urlRequest(message, this.deps.records.urlFor(UNDECLARED_ID, kind)) : emptyFormRequest(message);
    throw new InputRequiredSignal({ resultType: 'input_required', inputRequests: { [slot.key]: request } });
  }

  /** A page question the person has not answered yet, on this retry. */
  private stillPending(
    slot: Slot,
    page: Page,
    rung: 'url' | 'form-bridge',
    response: { action?: unknown } | undefined,
    canLeave: boolean,
  ): PageStep<never> {
    const open = slot.open ?? {};
    // The client's round budget (SDK 2.x: 10) must not run out while the person reads: leave for the link first.
    const retries = (open.retries ?? 0) + 1;
    if (canLeave && retries >= this.deps.pendingRetryRounds) return 'leave';
    const again = { ...open, retries };
    if (rung === 'url') {
      // Halfway through the budget the page's URL request goes out again (a person who lost the link sees it anew).
      const remind = retries === Math.ceil(this.deps.pendingRetryRounds / 2);
      this.suspend(slot, remind ? { [slot.key]: urlRequest(page.message, page.url) } : undefined, again);
    }
    if (response?.action !== 'accept') this.suspend(slot, { [slot.key]: bridgeRequest(asRequestPage(page), false) }, again);
    const unconfirmed = (open.invalidAnswers ?? 0) + 1;
    if (unconfirmed >= this.deps.maxFormAttempts) return 'next';
    this.suspend(slot, { [slot.key]: bridgeRequest(asRequestPage(page), true) }, { ...again, invalidAnswers: unconfirmed });
  }

  /** Ends the call: `input_required` with these requests (none: "retry later") and a fresh sealed state. */
  private suspend(slot: Slot, requests: Record<string, InputRequest> | undefined, open: OpenQuestionState): never {
    this.deps.rounds.suspend(requests, { key: slot.key, question: slot.question, ...open });
  }

  private instant(open: OpenQuestionState | undefined): boolean {
    return isInstantDecline(open?.askedAt, this.deps.instantDeclineMs);
  }
}

/** A page as the embedded requests name it. */
function asRequestPage(page: Page): { id: string; url: string; message: string } {
  return { id: page.elicitationId, url: page.url, message: page.message };
}
