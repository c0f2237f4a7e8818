import type { ElicitationData, ElicitationRecord, WaitOutcome } from '../../core/elicitation.types.js';
import type { FieldIssue } from '../../errors/elicitation-validation.error.js';
import type { FormDefinition } from '../../forms/define-form.js';
import type { LadderStep } from '../../options/client-ladder.js';
import type { ElicitationElicitOptions, UrlElicitationAsk, UrlElicitationRequest } from '../tool-elicitation.js';
import type { LoggedAnswer, OpenQuestionState, Slot } from './question-log.js';

/**
 * A page a question is asked on. `progress`: where the question stands, read again whenever the requester is told
 * (an approval's "1 of 2 approvals: ..."); absent: its message.
 */
export type Page = UrlElicitationRequest & { progress?: () => Promise<string> };

/**
 * What asking on a page (or continuing a page question) did: answered (`done`: how the page ended, claimed by the
 * engine), passed on (`next`; `cannot-ask` after an instant decline), `spent` (the page was answered but another
 * call claimed it: ask anew on a page of this call's own), or `leave`: the call may wait no longer (`callWaitMs` on
 * 2025-11-25, the client's round budget on 2026-07-28), so it ends with the link while the page stays open.
 */
export type PageStep<T extends ElicitationData> = LadderStep<WaitOutcome<T>> | 'spent' | 'leave';

/** A client's reply to a form-mode question, and whether it came sooner than `instantDeclineMs` after it went out. */
export interface FormReplyIn {
  reply: unknown;
  instant: boolean;
}

/** How a form question is to be asked in form mode. */
export interface FormAskingHow {
  /** The fields the last reply got wrong (asked again naming them). */
  issues: readonly FieldIssue[];
  state: OpenQuestionState;
  options: ElicitationElicitOptions;
  /** The link rung fits: a waiting room may leave for it at the call's deadline. */
  canLeave: boolean;
  /** The question on the hosted form page, with what asked in its metadata. */
  page: UrlElicitationAsk;
}

/** How a page rung is to ask. */
export interface PageAsking {
  /** `requestUrl`'s bound on the wait, where the call waits. */
  timeoutMs?: number;
  /** `requireAnswer` on 2025-11-25: the `url` rung ends the call with -32042 instead of waiting. */
  suspend?: boolean;
  /** The link rung fits this question: the call may leave for it at its deadline. */
  canLeave: boolean;
}

/**
 * A transport of questions: where one era (or a task) keeps the answers so far and how it puts a question to the
 * client. The question engine (`QuestionEngine`) decides everything else. A room whose call waits for replies
 * (`waits`: 2025-11-25) resolves its asks; the others (2026-07-28's `input_required` rounds, a task's runs) end the
 * run there by throwing their signal, and find the reply in their log when the body runs again.
 */
export interface QuestionRoom {
  /** The call waits for the client's replies (2025-11-25); otherwise an ask ends the run (its signal is thrown). */
  readonly waits: boolean;
  /** The next question's place in the log (in order: a different question where one was answered throws). */
  place(question: string, key?: string): Slot;
  /** `slot` is answered now. `outcome`: a page question's outcome, for a log that keeps it (a task). */
  record(slot: Slot, answer: LoggedAnswer, outcome?: WaitOutcome): void;
  /** A page question answered in the log: its outcome when the log keeps it (else the engine reads the store). */
  loggedOutcome?(slot: Slot): WaitOutcome | undefined;
  /** The client's reply to the slot's open form question, if it sent one (taken: the question is no longer open). */
  formReply(slot: Slot): FormReplyIn | undefined;
  /**
   * Asks a form question in form mode (again, naming `issues`). A waiting room resolves the reply, or `leave` at the
   * call's deadline when `canLeave`; the others throw their signal. `how.page`: the same question on the hosted form
   * page (stamped with what asked), for a room that also puts it there (a task's, for the inbox and the notifiers).
   */
  askForm(slot: Slot, message: string, definition: FormDefinition<unknown>, how: FormAskingHow): Promise<FormReplyIn | 'leave'>;
  /** A new page for this question on `rung` (`suspend`: the page `requireAnswer` ends the call with). */
  page(ask: UrlElicitationAsk, slot: Slot, rung: 'url' | 'form-bridge', suspend?: boolean): Promise<Page>;
  /** The page an earlier call of the tool asked this on, still pending, as this room shows it (`undefined`: not taken up). */
  reuse(earlier: ElicitationRecord, ask: UrlElicitationAsk): Page | undefined;
  /** Asks on a page on the `url` or `form-bridge` rung. */
  askOnPage<T extends ElicitationData>(slot: Slot, rung: 'url' | 'form-bridge', page: Page, how: PageAsking): Promise<PageStep<T>>;
  /** Continues the slot's open page question, asked on `rung` (the client's reply, the person's progress). */
  resume<T extends ElicitationData>(slot: Slot, page: Page, rung: 'url' | 'form-bridge', canLeave: boolean): Promise<PageStep<T>>;
  /**
   * Whether `error` ends the call before the tool ran, for the tool's next call to continue (2025-11-25: the -32042 of
   * `requireAnswer`); the link rung's signal is the engine's own. A room whose log carries the answers says no.
   */
  endsCall(error: unknown): boolean;
  /** The `error` rung in this transport's terms, where it has its own (2026-07-28: -32021 naming the mode); else returns. */
  unsupported(slot: Slot, mode: 'form' | 'url', message: string, kind: UrlElicitationAsk['kind']): void;
}
