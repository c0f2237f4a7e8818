import type { ElicitationData, ElicitationRecord } from '../../core/elicitation.types.js';
import type { FormDefinition } from '../../forms/define-form.js';
import type { UrlRequiredMode } from '../../options/client-ladder.js';
import { DEFAULT_FORM_TIMEOUT_MS } from '../../options/elicitation.constants.js';
import type { CallQuestions } from '../questions/call-questions.js';
import type { Slot } from '../questions/question-log.js';
import type { FormAskingHow, FormReplyIn, Page, PageAsking, PageStep, QuestionRoom } from '../questions/question-room.js';
import { reaskMessage } from '../questions/question-rules.js';
import type { UrlElicitationAsk, UrlElicitationRequest } from '../tool-elicitation.js';
import { anySignal, type PushChannel } from './push-channel.js';
import type { PushPages } from './push-pages.js';
import type { PushRungs } from './push-rungs.js';

/** What the 2025-11-25 transport needs: the call's channel, its page rungs and pages. */
export interface PushRoomDeps {
  channel: PushChannel;
  rungs: Pick<PushRungs, 'url' | 'bridge'>;
  pages: Pick<PushPages, 'createKeyed' | 'reopen' | 'ofEarlier' | 'track'>;
  questions: Pick<CallQuestions, 'isSupported'>;
  /** Ends the call with -32042 for this page (`requireAnswer` on the `url` rung). */
  throwRequired(page: UrlElicitationRequest): never;
  /** How `requireAnswer` asks this client on the `url` rung: -32042 (`error`) or a URL request awaited in the call. */
  urlRequired: UrlRequiredMode;
}

/**
 * The 2025-11-25 transport: questions are pushed to the client as `elicitation/create` on the call's own stream and
 * awaited inside the call, so nothing is logged between runs (a retry is a new call: the engine finds its question
 * again by its `askKey`). `requireAnswer` on the `url` rung ends the call with -32042 instead of waiting (unless the
 * client is one that passes -32042 to the app: `urlRequired: 'request'`). A call
 * without a progress token waits `callWaitMs` at most (`leave`: the engine ends it with the link).
 */
export class PushRoom implements QuestionRoom {
  readonly waits = true;
  /** How many questions this call has asked so far (a question's position keys the link rung). */
  private asked = 0;
  /** The -32042 this call ended with (`requireAnswer` on the `url` rung). */
  private required: unknown;

  constructor(private readonly deps: PushRoomDeps) {}

  place(question: string): Slot {
    return { index: this.asked++, key: '', question };
  }

  /** The call holds its answers itself: nothing to log. */
  record(): void {}

  formReply(): undefined {
    return undefined;
  }

  async askForm(_slot: Slot, message: string, definition: FormDefinition<unknown>, how: FormAskingHow): Promise<FormReplyIn | 'leave'> {
    const { channel } = this.deps;
    const signal = anySignal(channel.signal, how.options.signal);
    const timeout = how.options.timeoutMs ?? DEFAULT_FORM_TIMEOUT_MS;
    const params = { mode: 'form', message: reaskMessage(message, how.issues), requestedSchema: definition.schema };
    const sentAt = Date.now();
    try {
      const result = await channel.keepingAlive(message, () =>
        channel.elicitInput(params, signal, how.canLeave ? channel.within(timeout) : timeout),
      );
      const reply = result.action === 'accept' || result.action === 'decline' ? result : { action: 'cancel' };
      return { reply, instant: channel.instant(sentAt) };
    } catch (error) {
      // The client's dialog ran out at the call's deadline (`callWaitMs`): the call ends with the link instead.
      if (how.canLeave && channel.overdue() && !channel.signal?.aborted) return 'leave';
      throw error;
    }
  }

  async page(ask: UrlElicitationAsk, slot: Slot, rung: 'url' | 'form-bridge', suspend?: boolean): Promise<Page> {
    const { pages, channel } = this.deps;
    if (suspend && this.suspends(rung)) return (await pages.reopen(ask)) ?? pages.createKeyed(ask, slot.index, slot.question, true);
    // From here the call waits on a person: its place among the calls in flight first, before any page is made.
    channel.waiting();
    return pages.createKeyed(ask, slot.index, slot.question, rung === 'url');
  }

  reuse(earlier: ElicitationRecord, ask: UrlElicitationAsk): Page {
    const page = this.deps.pages.ofEarlier(earlier, ask.message);
    // A page shown in URL mode is paired with this session for the completion notification.
    if (this.deps.questions.isSupported('url')) this.deps.pages.track(page.elicitationId);
    return page;
  }

  askOnPage<T extends ElicitationData>(_slot: Slot, rung: 'url' | 'form-bridge', page: Page, how: PageAsking): Promise<PageStep<T>> {
    if (how.suspend && this.suspends(rung)) {
      try {
        this.deps.throwRequired(page);
      } catch (error) {
        this.required = error;
        throw error;
      }
    }
    const { rungs } = this.deps;
    return rung === 'url' ? rungs.url<T>(page, how.timeoutMs, how.canLeave) : rungs.bridge<T>(page, how.timeoutMs, how.canLeave);
  }

  /** Whether `requireAnswer` on `rung` ends the call with -32042 rather than waiting. */
  private suspends(rung: 'url' | 'form-bridge'): boolean {
    return rung === 'url' && this.deps.urlRequired === 'error';
  }

  /** Nothing stays open between calls here. */
  resume(): Promise<PageStep<never>> {
    return Promise.resolve('next');
  }

  /** -32042 ends the call before the tool ran; the client's retry is the tool's next call. */
  endsCall(error: unknown): boolean {
    return error !== undefined && error === this.required;
  }

  /** The engine's readable error is this era's `error` rung. */
  unsupported(): void {}
}
