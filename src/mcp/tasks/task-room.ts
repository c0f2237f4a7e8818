import type { ElicitationData, WaitOutcome } from '../../core/elicitation.types.js';
import type { FormDefinition } from '../../forms/define-form.js';
import type { ElicitationService } from '../../lifecycle/elicitation.service.js';
import type { InputRequest } from '../input-required/input-required.js';
import { bridgeRequest, formRequests, urlRequest } from '../input-required/input-required-requests.js';
import { assertSameQuestion, type LoggedAnswer, type Slot } from '../questions/question-log.js';
import type { FormAskingHow, FormReplyIn, Page, PageStep, QuestionRoom } from '../questions/question-room.js';
import type { UrlElicitationAsk } from '../tool-elicitation.js';
import type { OpenQuestion, TaskBody } from './task-body.js';
import { isInstantDecline } from '../questions/question-rules.js';

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

/** What the task transport needs: the run's task and body, and the lifecycle for its pages. */
export interface TaskRoomDeps {
  service: Pick<ElicitationService, 'createUrlElicitation' | 'getResult' | 'decline' | 'cancel'>;
  taskId: string;
  userId: string;
  /** The task's body, changed in place (the runner writes it back). */
  body: TaskBody;
  /** A decline sooner than this (ms) after the question went out means "this client cannot ask"; 0: off. */
  instantDeclineMs: number;
  /** "Finished" answers on the form bridge the page did not confirm before the question moves on. */
  maxFormAttempts: number;
  /** When the task expires, epoch milliseconds: a form question's page lives as long. */
  expiresAt: number;
}

/**
 * The tasks transport: the answers so far live in the task's stored body; a question not answered yet is left open
 * in the body (an input request `tasks/get` lists, or a page the person answers) and the run ends (`TaskSuspended`).
 * The next run (after `tasks/update` or the page's outcome) finds the reply there. Nothing waits in a run.
 */
export class TaskRoom implements QuestionRoom {
  readonly waits = false;
  /** How many questions this run has asked so far. */
  private asked = 0;
  /** The pages of form questions whose reply this run took (by position): kept if asked again, else cancelled. */
  private readonly taken = new Map<number, string>();
  /** Form questions' pages that are done with: the runner cancels them once the run's end is written. */
  private readonly spent: string[] = [];

  constructor(private readonly deps: TaskRoomDeps) {}

  place(question: string): Slot {
    const index = this.asked++;
    const answer = this.deps.body.answers[index];
    if (answer) {
      assertSameQuestion(answer.question, question, 'task run');
      const answered = (answer.elicitationId ? { elicitationId: answer.elicitationId } : { response: answer.response }) as LoggedAnswer;
      return { index, key: String(index), question, answered };
    }
    const [key, open] = this.openAt(index);
    if (!open) return { index, key: String(index), question };
    assertSameQuestion(open.question, question, 'task run');
    const { index: _index, question: _question, request: _request, response: _response, ...state } = open;
    return { index, key: key ?? String(index), question, open: state };
  }

  record(slot: Slot, answer: LoggedAnswer, outcome?: WaitOutcome): void {
    this.close(slot.index);
    const formPage = this.taken.get(slot.index);
    if (formPage !== undefined) this.spent.push(formPage);
    this.taken.delete(slot.index);
    this.deps.body.answers[slot.index] = { question: slot.question, ...answer, ...(outcome && { outcome }) };
  }

  loggedOutcome(slot: Slot): WaitOutcome | undefined {
    return this.deps.body.answers[slot.index]?.outcome;
  }

  formReply(slot: Slot): FormReplyIn | undefined {
    const [, open] = this.openAt(slot.index);
    if (!open || open.elicitationId || open.response === undefined) return undefined;
    // Taken: the question is asked again under a new key (its page kept), or answered.
    this.close(slot.index);
    if (open.formPage !== undefined) this.taken.set(slot.index, open.formPage);
    return { reply: open.response, instant: this.instant(open) };
  }

  async askForm(
    slot: Slot,
    message: string,
    definition: FormDefinition<unknown>,
    how: Pick<FormAskingHow, 'issues' | 'state' | 'page'>,
  ): Promise<never> {
    // Still waiting for the client's reply to the question as asked: the task keeps waiting.
    if (this.openAt(slot.index)[1]) throw new TaskSuspended();
    const request = formRequests('x', message, definition, [...how.issues]).x;
    const formPage = this.taken.get(slot.index) ?? (await this.formPage(how.page, slot));
    this.taken.delete(slot.index);
    this.suspend(slot, request, { invalidAnswers: how.state.invalidAnswers, ...(formPage !== undefined && { formPage }) });
  }

  /**
   * The form question's page, for the inbox and the notifiers: the same form on the hosted form page, ending
   * with the task. The client's form does not depend on it: a page the store refuses (a quota, say) is left out.
   */
  private async formPage(ask: UrlElicitationAsk, slot: Slot): Promise<string | undefined> {
    const { taskId, userId, expiresAt } = this.deps;
    // Ends a second before the task does, never after it: an answer the task could no longer take is refused by the page.
    const ttlMs = Math.floor(expiresAt - Date.now()) - 1_000;
    if (ttlMs <= 0) return undefined;
    try {
      const { fallback: _ladder, ...rest } = ask;
      const created = await this.deps.service.createUrlElicitation({
        ...rest,
        userId,
        ttlMs,
        askKey: `task:${taskId}:${slot.index}`,
        taskId,
      });
      return created.elicitationId;
    } catch {
      return undefined;
    }
  }

  /**
   * Before the body runs: a form question answered on its page (and not by the client yet) gets the page's answer
   * as its reply, judged as the client's would be. A page that expired or is still pending changes nothing.
   */
  async takePageAnswers(): Promise<void> {
    for (const open of Object.values(this.deps.body.open)) {
      if (open.formPage === undefined || open.response !== undefined) continue;
      const outcome = await this.deps.service.getResult(open.formPage).catch(() => undefined);
      const status = outcome?.status;
      if (status !== 'completed' && status !== 'declined' && status !== 'cancelled') continue;
      open.response =
        status === 'completed' ? { action: 'accept', content: outcome!.data } : { action: status === 'declined' ? 'decline' : 'cancel' };
      // A person's decline on the page is never an instant one; the page is done with.
      delete open.askedAt;
      delete open.formPage;
    }
  }

  /**
   * The pages of form questions this run is done with, to cancel once its end is written: those answered in the
   * client, and when the task `ended`, those of questions it leaves open.
   */
  donePages(ended: boolean): string[] {
    const open = ended ? Object.values(this.deps.body.open).map((o) => o.formPage) : [];
    return [...this.spent, ...(ended ? this.taken.values() : []), ...open].filter((id): id is string => id !== undefined);
  }

  async page(ask: UrlElicitationAsk, slot: Slot): Promise<Page> {
    const { fallback: _ladder, ...rest } = ask;
    const { taskId, userId } = this.deps;
    const created = await this.deps.service.createUrlElicitation({
      ...rest,
      userId,
      askKey: `task:${taskId}:${slot.index}`,
      // The page's outcome moves this task on (McpTasks, on whichever instance it is answered).
      taskId,
    });
    return { ...created, message: ask.message };
  }

  /**
   * A page an earlier call asked on is not taken up by a task: its outcome would not reach the task. The link rung
   * still finds it (the call ends with its link again).
   */
  reuse(): undefined {
    return undefined;
  }

  askOnPage<T extends ElicitationData>(slot: Slot, rung: 'url' | 'form-bridge', page: Page): Promise<PageStep<T>> {
    const request =
      rung === 'url'
        ? urlRequest(page.message, page.url)
        : bridgeRequest({ id: page.elicitationId, url: page.url, message: page.message }, false);
    this.suspend(slot, request, { elicitationId: page.elicitationId, ...(rung === 'form-bridge' && { bridge: true }) });
  }

  /**
   * The task's page question: the client refused to open it (decline: the question ends so; an instant decline: the
   * client cannot ask), the person finished (its outcome), or it is still open: the task waits (the form bridge's
   * "finished" without an answer on the page asks again, up to `limits.maxFormAttempts`, then the next rung).
   */
  async resume<T extends ElicitationData>(slot: Slot, page: Page, rung: 'url' | 'form-bridge'): Promise<PageStep<T>> {
    const { service } = this.deps;
    const [, open] = this.openAt(slot.index);
    const response = open?.response as { action?: unknown } | undefined;
    if (response?.action === 'decline' && open && this.instant(open)) {
      this.close(slot.index);
      return 'cannot-ask';
    }
    if (response?.action === 'decline') await service.decline(page.elicitationId);
    else if (response && response.action !== 'accept') await service.cancel(page.elicitationId);
    const outcome = await service.getResult<T>(page.elicitationId);
    if (!outcome || outcome.status !== 'pending') return { done: outcome ?? { status: 'expired' } };
    if (rung === 'form-bridge' && response?.action === 'accept') {
      const unconfirmed = (open?.invalidAnswers ?? 0) + 1;
      if (unconfirmed >= this.deps.maxFormAttempts) return 'next';
      this.close(slot.index);
      const request = bridgeRequest({ id: page.elicitationId, url: page.url, message: page.message }, true);
      this.suspend(slot, request, { elicitationId: page.elicitationId, bridge: true, invalidAnswers: unconfirmed });
    }
    throw new TaskSuspended();
  }

  /** The task's body keeps its answers for its next run: nothing to hand on. */
  endsCall(): boolean {
    return false;
  }

  /** The engine's readable error is a task's `error` rung (the tool's error result). */
  unsupported(): void {}

  /** Leaves the question open under a new key (keys are never reused within a task) and ends the run. */
  private suspend(slot: Slot, request: InputRequest, state: Omit<OpenQuestion, 'index' | 'question' | 'request'>): never {
    const body = this.deps.body;
    // When it was asked matters only to tell an instant decline (`instantDeclineMs`): kept only then.
    const askedAt = this.deps.instantDeclineMs > 0 ? { askedAt: Date.now() } : {};
    body.open[`${slot.index}.${body.nextKey++}`] = { index: slot.index, question: slot.question, request, ...state, ...askedAt };
    throw new TaskSuspended();
  }

  private close(index: number): void {
    const [key] = this.openAt(index);
    if (key !== undefined) delete this.deps.body.open[key];
  }

  private openAt(index: number): [string | undefined, OpenQuestion | undefined] {
    for (const [key, open] of Object.entries(this.deps.body.open)) if (open.index === index) return [key, open];
    return [undefined, undefined];
  }

  private instant(open: OpenQuestion): boolean {
    return isInstantDecline(open.askedAt, this.deps.instantDeclineMs);
  }
}
