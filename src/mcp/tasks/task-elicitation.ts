import type { ElicitationData, ElicitationOutcome } from '../../core/elicitation.types.js';
import type { FormDefinition } from '../../forms/define-form.js';
import type { FormSchema } from '../../forms/form-schema.js';
import type { ElicitationService } from '../../lifecycle/elicitation.service.js';
import { answerOf } from '../questions/call-questions.js';
import type { InputRequest } from '../input-required/input-required.js';
import { bridgeRequest, formRequests, urlRequest } from '../input-required/input-required-requests.js';
import type { OpenQuestion, TaskBody } from './task-body.js';
import {
  formQuestionDigest,
  formUnreachable,
  hostedFormAsk,
  hostedFormResult,
  pageQuestionDigest,
  toFormDefinition,
  type ElicitationElicitOptions,
  type ElicitResult,
  type PageOutcome,
  type ToolElicitation,
  type UrlElicitationAsk,
} from '../tool-elicitation.js';

/**
 * Thrown by a task's question that has no answer yet: the run ends there and the task waits (its body says on
 * what). Tool code that catches errors must rethrow it, as it does `InputRequiredSignal`.
 */
export class TaskSuspended extends Error {
  override readonly name = 'TaskSuspended';

  constructor() {
    super('The task waits for an answer; rethrow this signal.');
  }
}

/** Whether an error is a task's suspension (rethrow it from your own `catch`, as `InputRequiredSignal`). */
export function isTaskSuspended(error: unknown): error is TaskSuspended {
  return error instanceof TaskSuspended;
}

/** What the questions of a task need from the module. */
export interface TaskQuestionDeps {
  service: Pick<ElicitationService, 'createUrlElicitation' | 'getResult' | 'decline' | 'cancel'>;
  maxFormAttempts: number;
}

/** The task a run is for: its id, its user and the modes its client declared when it created the task. */
export interface TaskRunScope {
  taskId: string;
  userId: string;
  modes: ReadonlyArray<'form' | 'url'>;
}

/**
 * The `ToolElicitation` of one run of a task's tool body (the Tasks extension, on 2026-07-28). The body runs from
 * the top at every run; its questions, in order, get the answers recorded in the task, and the first that has none
 * is asked as an input request of the task (`tasks/get` lists it, `tasks/update` answers it) or on a hosted page
 * (`requestUrl`, `requireAnswer`, and a form when the client has no form mode), and ends the run (`TaskSuspended`).
 * Questions asked in parallel (`Promise.all`) are all asked at once. The run changes `body` in place; the runner
 * writes it back.
 */
export class TaskElicitation implements ToolElicitation {
  readonly era = '2026-07-28' as const;
  /** How many questions this run has asked so far. */
  private asked = 0;
  /** The questions of this run still at work (a page being created), which the runner waits for. */
  private readonly working = new Set<Promise<unknown>>();

  constructor(
    private readonly deps: TaskQuestionDeps,
    private readonly scope: TaskRunScope,
    private readonly body: TaskBody,
  ) {}

  get userId(): string {
    return this.scope.userId;
  }

  isSupported(mode: 'form' | 'url'): boolean {
    return this.scope.modes.includes(mode);
  }

  /** Already a task: the body goes on. */
  continueAsTask(): Promise<void> {
    return Promise.resolve();
  }

  /** Resolves once every question this run started has settled (so the body holds all of them). */
  async settled(): Promise<void> {
    while (this.working.size > 0) await Promise.allSettled([...this.working]);
  }

  elicit<T>(message: string, form: FormDefinition<T> | FormSchema, options: ElicitationElicitOptions = {}): Promise<ElicitResult<T>> {
    const definition = toFormDefinition(form);
    const index = this.asked++;
    const question = formQuestionDigest(message, definition);
    const done = this.answered<ElicitResult<T>>(index, question);
    if (done) return Promise.resolve(done);
    const [key, open] = this.openAt(index);
    // Asked on a page (no form mode): the page question takes it from here.
    if (open?.elicitationId || (!open && !this.isSupported('form'))) {
      if (!this.isSupported('url') && !this.isSupported('form')) return Promise.reject(formUnreachable(definition));
      return this.track(this.page(index, question, hostedFormAsk(message, definition, options.fallback ?? ['url']))).then((outcome) =>
        this.record(index, question, hostedFormResult<T>(definition, outcome as PageOutcome<Record<string, unknown>>)),
      );
    }
    if (!open) return this.suspend(index, question, formRequests('x', message, definition).x);
    if (open.response === undefined) return Promise.reject(new TaskSuspended());
    delete this.body.open[key!];
    const response = open.response as { action?: unknown; content?: unknown };
    if (response.action !== 'accept')
      return Promise.resolve(this.record(index, question, { action: response.action === 'decline' ? 'decline' : 'cancel' }));
    const checked = definition.validate(response.content ?? {});
    if (checked.ok) return Promise.resolve(this.record(index, question, { action: 'accept', content: checked.value }));
    const invalid = (open.invalid ?? 0) + 1;
    if (invalid >= this.deps.maxFormAttempts) return Promise.resolve(this.record(index, question, { action: 'decline' }));
    return this.suspend(index, question, formRequests('x', message, definition, checked.issues).x, { invalid });
  }

  async requireAnswer<T extends ElicitationData = ElicitationData>(ask: UrlElicitationAsk): Promise<T> {
    return answerOf<T>(await this.requestUrl<T>(ask));
  }

  requestUrl<T extends ElicitationData = ElicitationData>(ask: UrlElicitationAsk & { timeoutMs?: number }): Promise<PageOutcome<T>> {
    const index = this.asked++;
    const question = pageQuestionDigest(ask);
    const done = this.answered<PageOutcome<T>>(index, question);
    if (done) return Promise.resolve(done);
    return this.track(this.page(index, question, ask)).then((outcome) => this.record(index, question, outcome as PageOutcome<T>));
  }

  /** A page question: its outcome once the person finished, else the task waits (the page asked now if new). */
  private async page(index: number, question: string, ask: UrlElicitationAsk): Promise<ElicitationOutcome> {
    const [key, open] = this.openAt(index);
    if (open?.elicitationId) {
      const id = open.elicitationId;
      const response = open.response as { action?: unknown } | undefined;
      // The client refused to open the page: the question ends so.
      if (response && response.action !== 'accept') {
        delete this.body.open[key!];
        await (response.action === 'decline' ? this.deps.service.decline(id) : this.deps.service.cancel(id));
        return { status: response.action === 'decline' ? 'declined' : 'cancelled' };
      }
      const outcome = await this.deps.service.getResult(id);
      if (!outcome || outcome.status !== 'pending') {
        delete this.body.open[key!];
        return outcome ?? { status: 'expired' };
      }
      throw new TaskSuspended();
    }
    const { fallback: _ladder, timeoutMs: _timeout, ...rest } = ask as UrlElicitationAsk & { timeoutMs?: number };
    const created = await this.deps.service.createUrlElicitation({
      ...rest,
      userId: this.scope.userId,
      askKey: `task:${this.scope.taskId}:${index}`,
      // Routes the page's outcome to the task (`TaskRunner.onEvent`): a task has no MCP session to notify.
      session: taskSession(this.scope.taskId),
    });
    const request: InputRequest = this.isSupported('url')
      ? urlRequest(ask.message, created.url)
      : bridgeRequest({ id: created.elicitationId, url: created.url, message: ask.message }, true);
    this.open(index, question, request, { elicitationId: created.elicitationId });
    throw new TaskSuspended();
  }

  private answered<R>(index: number, question: string): R | undefined {
    const answer = this.body.answers[index];
    if (!answer) return undefined;
    if (answer.question !== question) {
      throw new Error(
        'This task asked a different question on a later run than before (a task runs its tool again from the top: ' +
          'the questions and their order must not depend on anything that changes between runs).',
      );
    }
    return answer.answer as R;
  }

  private record<R>(index: number, question: string, answer: R): R {
    this.body.answers[index] = { question, answer };
    return answer;
  }

  private openAt(index: number): [string | undefined, OpenQuestion | undefined] {
    for (const [key, open] of Object.entries(this.body.open)) if (open.index === index) return [key, open];
    return [undefined, undefined];
  }

  private open(index: number, question: string, request: InputRequest, extra: Partial<OpenQuestion> = {}): void {
    this.body.open[`${index}.${this.body.nextKey++}`] = { index, question, request, ...extra };
  }

  private suspend<R>(index: number, question: string, request: InputRequest, extra: Partial<OpenQuestion> = {}): Promise<R> {
    this.open(index, question, request, extra);
    return Promise.reject(new TaskSuspended());
  }

  private track<R>(work: Promise<R>): Promise<R> {
    this.working.add(work);
    void work.catch(() => undefined).finally(() => this.working.delete(work));
    return work;
  }
}

/** The session a task's page questions are created with: how a page's outcome finds its task. */
export function taskSession(taskId: string): string {
  return `task:${taskId}`;
}

/** The task a lifecycle event's session names, if it is a task's (see `taskSession`). */
export function taskOfSession(sessionId: string | undefined): string | undefined {
  return sessionId?.startsWith('task:') ? sessionId.slice('task:'.length) : undefined;
}
