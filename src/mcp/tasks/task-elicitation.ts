import type { ElicitationData } from '../../core/elicitation.types.js';
import type { FormDefinition } from '../../forms/define-form.js';
import type { FormSchema } from '../../forms/form-schema.js';
import type { ElicitationRecords } from '../../lifecycle/elicitation-records.js';
import type { ElicitationService } from '../../lifecycle/elicitation.service.js';
import type { FallbackRung, PageFallbackRung } from '../../options/client-ladder.js';
import { CallQuestions } from '../questions/call-questions.js';
import type { MechanismTelemetry } from '../questions/form-telemetry.js';
import type { CallScope, LinkedQuestions } from '../questions/linked-questions.js';
import { QuestionEngine } from '../questions/question-engine.js';
import { RunSteps, type StepFn, type StepLog } from '../questions/run-steps.js';
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
import type { TaskBody } from './task-body.js';
import { TaskRoom } from './task-room.js';

export { isTaskSuspended, TaskSuspended } from './task-room.js';

/** What the questions of a task need from the module (the same parts a plain call's questions use). */
export interface TaskQuestionDeps {
  service: Pick<ElicitationService, 'createUrlElicitation' | 'getResult' | 'decline' | 'cancel'>;
  records: ElicitationRecords;
  linked: LinkedQuestions;
  telemetry: MechanismTelemetry;
  /** The module's ladders (`fallback`). */
  fallback: { page: readonly PageFallbackRung[]; form: readonly FallbackRung[] };
  maxFormAttempts: number;
  /** A decline sooner than this (ms) after the question went out means "this client cannot ask"; 0: off. */
  instantDeclineMs: number;
  /** `limits.maxStepResultBytes`: the largest result of one step, as JSON. */
  maxStepResultBytes: number;
}

/** The task a run is for: its id, its user and the modes its client declared when it created the task. */
export interface TaskRunScope {
  taskId: string;
  userId: string;
  modes: ReadonlyArray<'form' | 'url'>;
  /** Writes a step's result to the stored task, fenced by the run's lease (rejects when the run lost the task). */
  keepStep: (name: string, json: string) => Promise<void>;
  /** When the task expires, epoch milliseconds (its form questions' pages live as long). */
  expiresAt: number;
}

/**
 * The `ToolElicitation` of one run of a task's tool body (the Tasks extension, on 2026-07-28). The body runs from
 * the top at every run; the rules of asking are the question engine's (`QuestionEngine`), the same as a plain call's:
 * recorded answers by position, kept answers, the ladder through the client's modes (a client without elicitation
 * gets the link: the task completes with the link result, and the next call of the tool takes the answer up), form
 * attempts. The transport (`TaskRoom`) keeps the log in the task's body: the first question without an answer is
 * left open (an input request `tasks/get` lists, or a page) and ends the run (`TaskSuspended`). Questions asked in
 * parallel (`Promise.all`) are all left open at once. The run changes `body` in place; the runner writes it back.
 */
export class TaskElicitation implements ToolElicitation {
  readonly era = '2026-07-28' as const;
  private readonly questions: CallQuestions;
  private readonly engine: QuestionEngine;
  /** The questions of this run still at work (a page being created), which the runner waits for. */
  private readonly working = new Set<Promise<unknown>>();
  private readonly steps: RunSteps;
  private readonly room: TaskRoom;

  constructor(
    private readonly deps: TaskQuestionDeps,
    scope: TaskRunScope,
    body: TaskBody,
  ) {
    const { service, records, linked, telemetry, fallback, maxFormAttempts, instantDeclineMs } = deps;
    // A task's runs have no request: the tool and its arguments are the body's, the modes those its call declared.
    const call: CallScope = { asking: { name: body.tool, args: body.args, structured: false } };
    const elicitation = declaredOf(scope.modes);
    this.questions = new CallQuestions({
      service,
      records,
      linked,
      telemetry,
      user: () => scope.userId || undefined,
      elicitation,
      scope: call,
    });
    this.room = new TaskRoom({
      service,
      taskId: scope.taskId,
      userId: scope.userId,
      body,
      instantDeclineMs,
      maxFormAttempts,
      expiresAt: scope.expiresAt,
    });
    this.engine = new QuestionEngine(
      { questions: this.questions, linked, records, scope: call, fallback, maxFormAttempts, telemetry },
      this.room,
    );
    this.steps = new RunSteps(taskStepLog(scope, body), deps.maxStepResultBytes);
  }

  get userId(): string {
    return this.questions.userId;
  }

  isSupported(mode: 'form' | 'url'): boolean {
    return this.questions.isSupported(mode);
  }

  /** Already a task: the body goes on. */
  continueAsTask(): Promise<void> {
    return Promise.resolve();
  }

  /** Runs `fn` once for this task: its result is written to the task (fenced by the run's lease) before the body goes on. */
  step<T>(name: string, fn: StepFn<T>): Promise<T> {
    return this.track(this.steps.run(name, fn));
  }

  /** Before the body runs: an answer given on a form question's page becomes its reply (`TaskRoom.takePageAnswers`). */
  prepare(): Promise<void> {
    return this.room.takePageAnswers();
  }

  /**
   * Once the run's end is written: the pages of form questions the client answered are cancelled (the inbox drops
   * them), and, when the task `ended`, the page of every form question it left open.
   */
  async closePages(ended: boolean): Promise<void> {
    const { service } = this.deps;
    for (const page of this.room.donePages(ended)) await service.cancel(page).catch(() => undefined);
  }

  /** Resolves once every question this run started has settled (so the body holds all of them). */
  async settled(): Promise<void> {
    while (this.working.size > 0) await Promise.allSettled([...this.working]);
  }

  elicit<T>(message: string, form: FormDefinition<T> | FormSchema, options?: ElicitationElicitOptions): Promise<ElicitResult<T>> {
    return this.track(this.engine.elicit(message, form, options));
  }

  requireAnswer<T extends ElicitationData = ElicitationData>(ask: UrlElicitationAsk): Promise<T> {
    return this.track(this.engine.requireAnswer<T>(ask));
  }

  requestApproval(request: ApprovalRequest): Promise<ApprovalOutcome> {
    return this.track(this.engine.requestApproval(request));
  }

  requestUrl<T extends ElicitationData = ElicitationData>(ask: UrlElicitationAsk & { timeoutMs?: number }): Promise<PageOutcome<T>> {
    return this.track(this.engine.requestUrl<T>(ask));
  }

  private track<R>(work: Promise<R>): Promise<R> {
    this.working.add(work);
    void work.catch(() => undefined).finally(() => this.working.delete(work));
    return work;
  }
}

/** A task's steps: kept in its body, the run's copy and the stored task alike; the task's id makes their keys. */
function taskStepLog(scope: TaskRunScope, body: TaskBody): StepLog {
  return {
    scope: scope.taskId,
    recorded: (name) => (body.steps && Object.hasOwn(body.steps, name) ? body.steps[name] : undefined),
    keep: async (name, json) => {
      await scope.keepStep(name, json);
      body.steps = { ...body.steps, [name]: json };
    },
  };
}

/** The capability a task's client declared, rebuilt from its modes. */
function declaredOf(modes: ReadonlyArray<'form' | 'url'>): DeclaredElicitation {
  if (modes.length === 0) return undefined;
  return { ...(modes.includes('form') && { form: {} }), ...(modes.includes('url') && { url: {} }) };
}
