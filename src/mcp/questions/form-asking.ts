import { ElicitationValidationError, type FieldIssue } from '../../errors/elicitation-validation.error.js';
import type { FormDefinition } from '../../forms/define-form.js';
import type { LadderStep } from '../../options/client-ladder.js';
import type { ElicitationElicitOptions, ElicitResult, UrlElicitationAsk } from '../tool-elicitation.js';
import { statusOfAction, statusOfError, type MechanismTelemetry } from './form-telemetry.js';
import { judgeFormReply, type FormVerdict } from './form-replies.js';
import type { FormResponse, OpenQuestionState, Slot } from './question-log.js';
import type { FormReplyIn, QuestionRoom } from './question-room.js';

/** What a form question in form mode needs from the engine. */
export interface FormAskingDeps {
  /** Form answers one question takes in all (`limits.maxFormAttempts`). */
  maxFormAttempts: number;
  /** Form-mode questions, for the metrics. */
  telemetry: Pick<MechanismTelemetry, 'created' | 'finished'>;
}

/**
 * One form question in form mode: the client's reply judged (`judgeFormReply`), asked again naming the fields up to
 * `limits.maxFormAttempts`, counted as one form-mode elicitation (`elicitation.created` when it first goes out,
 * `elicitation.finished` when it ends).
 */
export class FormAsking<T> {
  private state: OpenQuestionState;
  private issues: readonly FieldIssue[] = [];

  constructor(
    private readonly deps: FormAskingDeps,
    private readonly room: QuestionRoom,
    private readonly slot: Slot,
    private readonly message: string,
    private readonly definition: FormDefinition<T>,
    private readonly options: ElicitationElicitOptions,
    /** The question on the hosted form page (`FormAskingHow.page`). */
    private readonly page: UrlElicitationAsk,
  ) {
    this.state = { ...slot.open };
  }

  /** The reply the log holds for this question: the answer, `false` (the client cannot ask), or `true` (ask). */
  replied(): { done: ElicitResult<T> } | boolean {
    const reply = this.room.formReply(this.slot);
    if (!reply) return true;
    const verdict = this.judge(reply);
    return verdict === 'cannot-ask' ? false : typeof verdict === 'object' && 'done' in verdict ? verdict : true;
  }

  /** The form rung: asks (again), until an answer, an instant decline, or the call's deadline (`leave`). */
  async ask(canLeave: boolean): Promise<LadderStep<ElicitResult<T>> | 'leave'> {
    if (!this.slot.open && this.state.askedAt === undefined) {
      this.state.askedAt = Date.now();
      this.deps.telemetry.created('form', 'form');
    }
    for (;;) {
      let reply: FormReplyIn | 'leave';
      try {
        const how = { issues: this.issues, state: this.state, options: this.options, canLeave, page: this.page };
        reply = await this.room.askForm(this.slot, this.message, this.definition, how);
      } catch (error) {
        // Where the call waits, an error ends the question (a timeout, a cancel); elsewhere it is the room's signal.
        if (this.room.waits) this.finished(statusOfError(error));
        throw error;
      }
      if (reply === 'leave') return 'leave';
      const verdict = this.judge(reply);
      if (verdict === 'cannot-ask' || (typeof verdict === 'object' && 'done' in verdict)) return verdict;
      if (verdict === 'none') return { done: { action: 'cancel', via: 'form' } };
    }
  }

  /** Judges a reply; an answer, an instant decline or a last invalid answer ends the question. */
  private judge(replied: FormReplyIn): FormVerdict<T> {
    const { maxFormAttempts } = this.deps;
    let verdict: FormVerdict<T>;
    try {
      verdict = judgeFormReply(replied.reply, this.definition, {
        invalidAnswers: this.state.invalidAnswers ?? 0,
        maxFormAttempts,
        instant: replied.instant,
      });
    } catch (error) {
      if (error instanceof ElicitationValidationError) this.finished('declined');
      throw error;
    }
    if (verdict === 'cannot-ask') this.finished('declined');
    else if (typeof verdict === 'object' && 'done' in verdict) {
      this.finished(statusOfAction(verdict.done.action));
      // The log keeps the result as `elicit` resolved it (a later run returns it as it is).
      this.room.record(this.slot, { response: verdict.done as FormResponse });
    } else if (typeof verdict === 'object') {
      this.issues = verdict.again;
      this.state = { ...this.state, invalidAnswers: verdict.invalidAnswers };
    }
    return verdict;
  }

  private finished(status: ReturnType<typeof statusOfAction>): void {
    const askedAt = this.state.askedAt;
    if (askedAt !== undefined) this.deps.telemetry.finished('form', status, 'form', askedAt, Date.now());
  }
}
