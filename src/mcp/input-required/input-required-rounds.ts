import { InputRequiredSignal, type InputRequest } from './input-required.js';
import { assertSameQuestion, type LoggedAnswer, type Slot } from '../questions/question-log.js';
import type { AnsweredQuestion, PendingQuestion, RequestState } from './request-state.codec.js';
import type { RequestStates, StateCall } from './request-states.js';
import { RequestStateCodec } from './request-state.codec.js';
import type { StepLog } from '../questions/run-steps.js';

/** What the rounds of a 2026-07-28 call need. */
export interface InputRequiredRoundsDeps {
  states: Pick<RequestStates, 'mint'>;
  /** The call the next state is minted for. */
  call: StateCall;
  /** The verified state of this retry, if any. */
  state: RequestState | undefined;
}

/**
 * The rounds of one 2026-07-28 tool call as its sealed `requestState` carries them: each question the tool asks
 * finds its place (answered in an earlier round, the one the client is answering now, or new; in order, checked
 * against what is asked), and a question not answered yet stops the tool with a fresh state.
 */
export class InputRequiredRounds implements StepLog {
  /** How many questions this run has asked so far. */
  private asked = 0;
  /** The answered questions to carry into the next state. */
  private readonly answered: AnsweredQuestion[];
  /** The call's id, the same in every round of it: its steps' idempotency keys are made from it. */
  readonly scope: string;
  /** The steps' results so far (earlier rounds and this one), carried into the next state. */
  private readonly steps: Record<string, string>;

  constructor(private readonly deps: InputRequiredRoundsDeps) {
    this.answered = [...(deps.state?.answered ?? [])];
    this.scope = deps.state?.callId ?? RequestStateCodec.newId();
    this.steps = { ...deps.state?.steps };
  }

  /** A step's result recorded in an earlier round. */
  recorded(name: string): string | undefined {
    return Object.hasOwn(this.steps, name) ? this.steps[name] : undefined;
  }

  /** Kept for the next state: a round that ends with `input_required` carries it, sealed, to the retry. */
  keep(name: string, json: string): Promise<void> {
    this.steps[name] = json;
    return Promise.resolve();
  }

  /** The steps' results so far, by name (for a task the call continues as). */
  stepResults(): Readonly<Record<string, string>> {
    return this.steps;
  }

  /** Finds this question's place: answered earlier, the one the client is answering now, or new. */
  next(question: string, key?: string): Slot {
    const index = this.asked++;
    const state = this.deps.state;
    const earlier = state?.answered[index];
    if (earlier) {
      assertSameQuestion(earlier.question, question, 'retry');
      const answered = (earlier.elicitationId ? { elicitationId: earlier.elicitationId } : { response: earlier.response }) as LoggedAnswer;
      return { index, key: earlier.key, question, answered };
    }
    const pending = state?.pending;
    if (pending && index === state.answered.length && pending.question === question) {
      const { key: _key, question: _question, ...open } = pending;
      return { index, key: pending.key, question, open };
    }
    return { index, key: key ?? `elicitation-${index + 1}`, question };
  }

  /** The questions answered so far (earlier rounds and this one), in order. */
  answers(): readonly AnsweredQuestion[] {
    return this.answered;
  }

  /** `slot` is answered in this round: by a form response, or by the elicitation whose outcome is the answer. */
  answer(slot: Slot, answer: LoggedAnswer): void {
    this.answered.push({ key: slot.key, question: slot.question, ...answer });
  }

  /** Stops the tool: `input_required` with these requests (none: "retry later") and a fresh sealed state. */
  suspend(inputRequests: Record<string, InputRequest> | undefined, pending: PendingQuestion): never {
    const asked = inputRequests ? { ...pending, askedAt: Date.now() } : pending;
    const requestState = this.deps.states.mint(this.deps.call, this.answered, asked, { callId: this.scope, steps: this.steps });
    throw new InputRequiredSignal({ resultType: 'input_required', ...(inputRequests && { inputRequests }), requestState });
  }
}
