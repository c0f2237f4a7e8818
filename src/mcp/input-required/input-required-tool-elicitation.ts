import type { ElicitationData } from '../../core/elicitation.types.js';
import type { FormDefinition } from '../../forms/define-form.js';
import type { FormSchema } from '../../forms/form-schema.js';
import type { ElicitationService } from '../../lifecycle/elicitation.service.js';
import type { ElicitationRecords } from '../../lifecycle/elicitation-records.js';
import type { FallbackRung, PageFallbackRung } from '../../options/client-ladder.js';
import { CallQuestions } from '../questions/call-questions.js';
import type { MechanismTelemetry } from '../questions/form-telemetry.js';
import type { CallScope, LinkedQuestions } from '../questions/linked-questions.js';
import { QuestionEngine } from '../questions/question-engine.js';
import { RunSteps, type StepFn } from '../questions/run-steps.js';
import { mayStartTask, TaskStartSignal } from '../tasks/task-start.js';
import type {
  DeclaredElicitation,
  ElicitationElicitOptions,
  ApprovalOutcome,
  ApprovalRequest,
  ElicitResult,
  PageOutcome,
  ToolElicitation,
  UrlElicitationAsk,
} from '../tool-elicitation.js';
import { InputRequiredRoom } from './input-required-room.js';
import { InputRequiredRounds } from './input-required-rounds.js';
import type { RequestState } from './request-state.codec.js';
import type { RequestStates } from './request-states.js';

/** What a 2026-07-28 tool call brings: everything comes from this one request. */
export interface InputRequiredCall {
  /** The verified user, or `undefined` when the request carries none. */
  user: string | undefined;
  /** The elicitation capability to act on: the request's `_meta` declaration, after the module's `clientPolicy`. */
  elicitation: DeclaredElicitation;
  /** `params.inputResponses` (bare results keyed by the keys this server chose). */
  inputResponses: Record<string, unknown> | undefined;
  /** The verified state of this retry, if any. */
  state: RequestState | undefined;
  method: string;
  name: string;
  args: unknown;
  /** The call's signal: the client cancelled it, or hung up. */
  signal?: AbortSignal;
  /** The call is about to wait on a person: takes its place among the calls in flight (throws past the cap). */
  waiting?: () => void;
  /** The link and model rungs' view of the call. */
  scope: CallScope;
}

/** What an input-required elicitation needs from the module. */
export interface InputRequiredDeps {
  service: ElicitationService;
  records: ElicitationRecords;
  states: Pick<RequestStates, 'mint'>;
  linked: LinkedQuestions;
  pendingRetryWaitMs: number;
  /** Retries of an unanswered page question before the call leaves for the link rung. */
  pendingRetryRounds: number;
  maxFormAttempts: number;
  /** `limits.maxStepResultBytes`: the largest result of one step, as JSON. */
  maxStepResultBytes: number;
  /** The module's ladders (`fallback`). */
  fallback: { page: readonly PageFallbackRung[]; form: readonly FallbackRung[] };
  /** A decline sooner than this (ms) after the question went out means "this client cannot ask"; 0: off. */
  instantDeclineMs: number;
  /** Form-mode questions and fallbacks, for the metrics. */
  telemetry: MechanismTelemetry;
}

/**
 * Elicitation inside one tool call by the input-required mechanism (protocol 2026-07-28, multi round-trip
 * requests). There is no server push: a question the client has not answered yet stops the tool with an
 * `input_required` result (an `InputRequiredSignal` the tool wrapper returns) carrying a sealed `requestState`; the
 * client asks the user and retries the same call, and the tool runs again from the top. The rules of asking are the
 * question engine's (`QuestionEngine`); this era's transport (`InputRequiredRoom`) keeps the answers in the state.
 */
export class InputRequiredElicitation implements ToolElicitation {
  readonly era = '2026-07-28' as const;
  private readonly questions: CallQuestions;
  private readonly rounds: InputRequiredRounds;
  private readonly engine: QuestionEngine;
  private readonly steps: RunSteps;

  constructor(deps: InputRequiredDeps, call: InputRequiredCall) {
    const { service, records, linked, telemetry, fallback, maxFormAttempts } = deps;
    const { elicitation, scope, inputResponses, signal, waiting = () => undefined } = call;
    this.questions = new CallQuestions({ service, records, linked, telemetry, user: () => call.user, elicitation, scope });
    this.rounds = new InputRequiredRounds({ states: deps.states, call, state: call.state });
    this.steps = new RunSteps(this.rounds, deps.maxStepResultBytes);
    const room = new InputRequiredRoom({
      service,
      records,
      questions: this.questions,
      linked,
      rounds: this.rounds,
      inputResponses,
      retry: call.state !== undefined,
      signal,
      waiting,
      instantDeclineMs: deps.instantDeclineMs,
      maxFormAttempts,
      pendingRetryWaitMs: deps.pendingRetryWaitMs,
      pendingRetryRounds: deps.pendingRetryRounds,
    });
    this.engine = new QuestionEngine({ questions: this.questions, linked, records, scope, fallback, maxFormAttempts, telemetry }, room);
  }

  get userId(): string {
    return this.questions.userId;
  }

  isSupported(mode: 'form' | 'url'): boolean {
    return this.questions.isSupported(mode);
  }

  /** In a call that may become a task: the answers of the rounds so far go to the new task. Otherwise the call goes on. */
  continueAsTask(): Promise<void> {
    return mayStartTask() ? Promise.reject(new TaskStartSignal(this.rounds.answers(), this.rounds.stepResults())) : Promise.resolve();
  }

  /** Runs `fn` once for this call: its result is carried, sealed, in the `requestState` of every later round. */
  step<T>(name: string, fn: StepFn<T>): Promise<T> {
    return this.steps.run(name, fn);
  }

  elicit<T>(message: string, form: FormDefinition<T> | FormSchema, options?: ElicitationElicitOptions): Promise<ElicitResult<T>> {
    return this.engine.elicit(message, form, options);
  }

  requireAnswer<T extends ElicitationData = ElicitationData>(ask: UrlElicitationAsk): Promise<T> {
    return this.engine.requireAnswer<T>(ask);
  }

  requestApproval(request: ApprovalRequest): Promise<ApprovalOutcome> {
    return this.engine.requestApproval(request);
  }

  requestUrl<T extends ElicitationData = ElicitationData>(ask: UrlElicitationAsk & { timeoutMs?: number }): Promise<PageOutcome<T>> {
    return this.engine.requestUrl<T>(ask);
  }
}
