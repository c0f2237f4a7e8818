import { randomUUID } from 'node:crypto';
import { newUuid } from '../../core/elicitation-id.js';
import { performance } from 'node:perf_hooks';
import { leaseFor, leaseLive, leaseTaken, orphaned, taskCancelled, TaskRun } from './task-lease.js';
import { Logger } from '@nestjs/common';
import { TaskProtocolError, TASK_ERROR_CODES } from './task-protocol.error.js';
import { isTerminalTaskStatus, type ElicitationTaskStore, type StoredTask } from '../../stores/task-store.js';
import { decodeBody, encodeBody, outstandingRequests, type TaskBody } from './task-body.js';
import { TaskElicitation, type TaskQuestionDeps } from './task-elicitation.js';
import { executeRun, type RunOutcome, type TaskTool } from './task-outcome.js';
import { TaskWrites } from './task-writes.js';
import type { AnsweredQuestion } from '../input-required/request-state.codec.js';

export type { TaskContext, TaskTool } from './task-outcome.js';

/** The settings of the tasks (the `tasks` option, resolved). */
export interface TaskSettings {
  ttlMs: number;
  pollIntervalMs: number;
  maxOpenPerUser: number;
  /** Open tasks bound to no user (`userId` ''), all together. */
  maxOpenAnonymous: number;
  /** How long an instance's claim on a running task holds without renewal. */
  leaseMs: number;
  /** Finished tasks the store keeps per user and in all (the oldest finished forgotten first). */
  maxFinishedPerUser: number;
  maxFinished: number;
}

/** What the runner needs from the module. */
export interface TaskRunnerDeps {
  store: ElicitationTaskStore;
  questions: TaskQuestionDeps;
  settings: TaskSettings;
  /** The tool bodies by name (registered by `registerTool` on this instance). */
  tools: ReadonlyMap<string, TaskTool>;
  /** The time, epoch milliseconds. */
  now?: () => number;
  /** Told of each change a client may see (not a lease's renewal), made on this instance. */
  changed?: (taskId: string) => void;
}

/**
 * Runs tasks: creates them, runs a task's tool body (from the top, its questions answered from the task) on the
 * instance that holds its lease, and records what the run ended with, every change a compare-and-set on the task's
 * version. A task waiting for a person is a record in the store and nothing else here: a run is started again by
 * the client's `tasks/update` that answers the last open request, by the page that answers a page question (on any
 * instance: the lifecycle event carries the page's `taskId`), or by a `tasks/get` that finds a run due with no
 * live lease (its instance died).
 */
export class TaskRunner {
  /** This instance, as a lease names it. */
  readonly instanceId = randomUUID();
  private readonly logger = new Logger('ElicitationTasks');
  /** The tasks running here now. */
  private readonly running = new Map<string, TaskRun>();
  private readonly now: () => number;
  private readonly writes: TaskWrites;

  constructor(private readonly deps: TaskRunnerDeps) {
    this.now = deps.now ?? Date.now;
    const { maxFinishedPerUser, maxFinished } = deps.settings;
    this.writes = new TaskWrites({
      store: deps.store,
      now: this.now,
      finished: { maxFinishedPerUser, maxFinished },
      changed: deps.changed,
    });
  }

  /** Creates the task of a tool call (leased here) and starts its first run; resolves the stored task. */
  async start(
    tool: string,
    args: unknown,
    userId: string,
    modes: ReadonlyArray<'form' | 'url'>,
    answered: readonly AnsweredQuestion[] = [],
    steps: Readonly<Record<string, string>> = {},
  ): Promise<{ task: StoredTask; body: TaskBody }> {
    const now = this.now();
    const { ttlMs, pollIntervalMs } = this.deps.settings;
    // Tasks bound to no user share one cap of their own, so they never take a user's, nor a user theirs.
    const [option, maxOpenPerUser] =
      userId === ''
        ? ['tasks.maxOpenAnonymous', this.deps.settings.maxOpenAnonymous]
        : ['tasks.maxOpenPerUser', this.deps.settings.maxOpenPerUser];
    const body: TaskBody = { tool, args, modes: [...modes], pollIntervalMs, answers: {}, open: {}, nextKey: 1 };
    // The answers of the input_required rounds before the task (`continueAsTask`), by position: a form's as it is,
    // a page's by its elicitation (the run reads its outcome).
    answered.forEach(({ question, response, elicitationId }, index) => {
      body.answers[index] = elicitationId ? { question, elicitationId } : { question, response };
    });
    // And the steps those rounds ran: the task does not run them again.
    if (Object.keys(steps).length > 0) body.steps = { ...steps };
    const task: StoredTask = {
      id: newUuid(),
      userId,
      status: 'working',
      createdAt: now,
      updatedAt: now,
      expiresAt: now + ttlMs,
      version: 1,
      lease: this.grant(now),
      body: encodeBody(body),
    };
    const created = await this.deps.store.createTask(task, { maxOpenPerUser });
    if (created === 'user-task-limit') {
      throw new TaskProtocolError(
        TASK_ERROR_CODES.limit,
        `Too many open tasks for ${userId === '' ? 'callers without a verified user' : 'this user'} (${option} = ${maxOpenPerUser}): wait for one to finish, or cancel one.`,
        { limit: option, value: maxOpenPerUser },
      );
    }
    if (created === 'exists') throw new Error('Task id collision');
    this.schedule(task.id);
    return { task, body };
  }

  /** The task as its user may see it: unknown, expired and other users' tasks alike are "not found". A run due with no live lease is started. */
  async read(taskId: string, userId: string): Promise<{ task: StoredTask; body: TaskBody }> {
    const [seen] = await this.readMany([{ taskId, userId }]);
    if (!seen) throw TaskProtocolError.notFound();
    return seen;
  }

  /** Tasks as `read` reads each (`undefined` where it finds none), in one store call where the store offers `getTasks`. */
  async readMany(
    wanted: ReadonlyArray<{ taskId: string; userId: string }>,
  ): Promise<Array<{ task: StoredTask; body: TaskBody } | undefined>> {
    const { store, tools } = this.deps;
    const ids = wanted.map((one) => one.taskId);
    const tasks = store.getTasks
      ? await store.getTasks(ids, this.now())
      : await Promise.all(ids.map((id) => store.getTask(id, this.now())));
    return tasks.map((task, i) => {
      if (!task || task.userId !== wanted[i].userId) return undefined;
      const body = decodeBody(task);
      // Only an instance that has the task's tool takes a due run over (one without it would hold the lease for nothing).
      if (!isTerminalTaskStatus(task.status) && tools.has(body.tool) && orphaned(task, body.due, this.now(), this.deps.settings.leaseMs)) {
        this.schedule(task.id);
      }
      return { task, body };
    });
  }

  /** `tasks/update`: records the answers to requests still outstanding (others are ignored); the last one starts a run. */
  async update(taskId: string, userId: string, responses: Record<string, unknown>): Promise<void> {
    const due = await this.writes.write(taskId, userId, (task, body) => {
      if (isTerminalTaskStatus(task.status)) return undefined;
      let taken = 0;
      for (const [key, response] of Object.entries(responses)) {
        const open = body.open[key];
        if (!open?.request || open.response !== undefined) continue;
        open.response = response;
        taken++;
      }
      if (taken === 0) return undefined;
      const remaining = Object.keys(outstandingRequests(body)).length;
      if (remaining === 0) body.due = true;
      return { status: remaining > 0 ? 'input_required' : 'working', body };
    });
    if (due?.body.due) this.schedule(taskId);
  }

  /** `tasks/cancel`: a task not finished yet is cancelled (a run under way here is discarded when it ends), its open pages with it. */
  async cancel(taskId: string, userId: string): Promise<void> {
    const cancelled = await this.writes.write(taskId, userId, (task, body) => {
      if (isTerminalTaskStatus(task.status)) return undefined;
      body.statusMessage = 'Cancelled by the client.';
      return { status: 'cancelled', body, lease: null };
    });
    this.running.get(taskId)?.stop(taskCancelled());
    const pages = Object.values(cancelled?.body.open ?? {}).flatMap((open) => [open.elicitationId, open.formPage]);
    for (const page of pages) if (page) await this.deps.questions.service.cancel(page).catch(() => undefined);
  }

  /** A page of a task finished (on any instance): its task runs again. */
  pageFinished(taskId: string): void {
    void this.writes
      .write(taskId, undefined, (task, body) =>
        isTerminalTaskStatus(task.status) ? undefined : ((body.due = true), { status: task.status, body }),
      )
      .then((due) => due && this.schedule(taskId))
      .catch((error: unknown) => this.logger.warn(`A finished page could not move task ${taskId} on: ${String(error)}`));
  }

  /** Starts a run soon (once per task on this instance at a time). */
  private schedule(taskId: string): void {
    setImmediate(
      () => void this.run(taskId).catch((error: unknown) => this.logger.error(`Task ${taskId} failed to run: ${String(error)}`)),
    );
  }

  private grant(now = this.now()): NonNullable<StoredTask['lease']> {
    return leaseFor(this.instanceId, this.deps.settings.leaseMs, now);
  }

  /** One run: take the lease, run the body (its signal tied to the lease), record how it ended. */
  private async run(taskId: string): Promise<void> {
    if (this.running.has(taskId)) return;
    const run = new TaskRun(this.deps.settings.leaseMs);
    this.running.set(taskId, run);
    let renew: NodeJS.Timeout | undefined;
    try {
      // A task whose tool is not registered here stays as it is (due), for an instance that has the tool: this one
      // neither takes its lease nor writes it.
      const stored = await this.deps.store.getTask(taskId, this.now());
      if (!stored || isTerminalTaskStatus(stored.status)) return;
      const wanted = decodeBody(stored).tool;
      if (!this.deps.tools.has(wanted)) {
        this.logger.warn(`Task ${taskId}: the tool ${wanted} is not registered on this instance; an instance that has it runs the task.`);
        return;
      }
      const leased = await this.takeLease(taskId, run);
      if (!leased) return;
      renew = setInterval(() => void this.renew(taskId, run), this.deps.settings.leaseMs / 3);
      renew.unref();
      const { task, body } = leased;
      const tool = this.deps.tools.get(body.tool);
      if (!tool) return;
      const keepStep = (name: string, json: string) => this.keepStep(taskId, run, name, json);
      const scope = { taskId, userId: task.userId, modes: body.modes, keepStep, expiresAt: task.expiresAt };
      const elicitation = new TaskElicitation(this.deps.questions, scope, body);
      await elicitation.prepare();
      const outcome = await executeRun(tool, body, elicitation, { taskId, signal: run.signal });
      if (run.lost) await this.release(taskId, run);
      else if (await this.settle(taskId, run, body, outcome)) await elicitation.closePages(outcome.status !== 'waiting');
    } finally {
      clearInterval(renew);
      run.end();
      this.running.delete(taskId);
    }
  }

  /**
   * Records a run's end over whatever changed meanwhile (answers that arrived are kept; a cancel wins): only while the
   * task still holds this run's fencing token, so a run another instance took over writes nothing.
   */
  private async settle(taskId: string, run: TaskRun, ran: TaskBody, outcome: RunOutcome): Promise<boolean> {
    const settled = await this.writes.write(taskId, undefined, (task, current) => {
      if (isTerminalTaskStatus(task.status)) return undefined;
      if (!this.holds(task, current, run)) return undefined;
      const body: TaskBody = { ...ran, due: current.due };
      // Answers the client sent during the run, to requests this run still has open.
      for (const [key, open] of Object.entries(body.open)) {
        const theirs = current.open[key];
        if (open.response === undefined && theirs?.response !== undefined) open.response = theirs.response;
      }
      if (outcome.status === 'completed')
        return { status: 'completed', body: { ...body, result: outcome.result, open: {}, statusMessage: undefined }, lease: null };
      if (outcome.status === 'failed')
        return { status: 'failed', body: { ...body, error: outcome.error, statusMessage: outcome.error.message, open: {} }, lease: null };
      const outstanding = Object.keys(outstandingRequests(body)).length;
      const pages = Object.values(body.open).some((open) => open.elicitationId !== undefined);
      if (outstanding === 0 && !pages) body.due = true;
      // What it waits for is derived when it is read (`detailedTask`): not kept in every waiting task's body.
      body.statusMessage = undefined;
      return { status: outstanding > 0 ? 'input_required' : 'working', body, lease: null };
    });
    if (settled?.body.due) this.schedule(taskId);
    return settled !== undefined;
  }

  /**
   * Records a step's result in the stored task before the body goes on, only while the task is still the run's (its
   * fencing token and lease): a run that lost the task stops here, with the reason its signal carries.
   */
  private async keepStep(taskId: string, run: TaskRun, name: string, json: string): Promise<void> {
    let lost = leaseTaken();
    const kept = run.lost
      ? undefined
      : await this.writes.write(taskId, undefined, (task, body) => {
          if (task.status === 'cancelled') lost = taskCancelled();
          if (isTerminalTaskStatus(task.status) || !this.holds(task, body, run)) return undefined;
          body.steps = { ...body.steps, [name]: json };
          return { status: task.status, body, quiet: true };
        });
    if (kept) return;
    run.lose(lost);
    throw run.lost ?? lost;
  }

  /** Whether the task is still this run's: its lease this instance's, its fencing token the run's. */
  private holds(task: StoredTask, body: TaskBody, run: TaskRun): boolean {
    return task.lease?.owner === this.instanceId && body.fence === run.fence;
  }

  /**
   * Takes this instance's lease on a task not finished, for a new run: `undefined` when another instance holds a live
   * lease. The run's fencing token is the task's plus one (every run start adds one, so a run taken over can tell), and
   * it takes the due run too (`due` cleared), so that only what arrives during the run makes another one due.
   */
  private async takeLease(taskId: string, run: TaskRun): Promise<{ task: StoredTask; body: TaskBody } | undefined> {
    const askedAt = performance.now();
    const taken = await this.writes.write(taskId, undefined, (task, body) => {
      if (isTerminalTaskStatus(task.status)) return undefined;
      if (task.lease && task.lease.owner !== this.instanceId && leaseLive(task.lease, this.now())) return undefined;
      delete body.due;
      body.fence = (body.fence ?? 0) + 1;
      return { status: task.status, body, lease: this.grant(), quiet: true };
    });
    if (taken) {
      run.fence = taken.body.fence ?? 0;
      run.armDeadline(askedAt);
    }
    return taken;
  }

  /**
   * Renews the run's lease (every `leaseMs / 3`): the deadline moves on from this renewal. A renewal that finds the
   * task taken over (another owner or fencing token), finished (a cancel on any instance) or gone stops the run at
   * once; one that cannot reach the store leaves the deadline where it was.
   */
  private async renew(taskId: string, run: TaskRun): Promise<void> {
    // A renewal due while the process was paused past the run's deadline must not stretch a lease the run has lost:
    // reading `aborted` checks the deadline first (and loses the run there).
    if (run.lost || run.signal.aborted) return;
    const askedAt = performance.now();
    let lost: Error | undefined = leaseTaken();
    try {
      const renewed = await this.writes.write(taskId, undefined, (task, body) => {
        if (isTerminalTaskStatus(task.status)) {
          lost = task.status === 'cancelled' ? taskCancelled() : new Error(`The task ended elsewhere (${task.status}).`);
          return undefined;
        }
        if (!this.holds(task, body, run)) return undefined;
        return { status: task.status, body, lease: this.grant(), quiet: true };
      });
      if (renewed && !run.lost) run.armDeadline(askedAt);
      else run.lose(lost);
    } catch (error) {
      this.logger.warn(
        `Task ${taskId}: the lease could not be renewed (${String(error)}); the run stops at its deadline unless a renewal gets through.`,
      );
    }
  }

  /** A run that lost the task: if the task is still its own (its lease ran out here, nobody took it), it is left due, unleased. */
  private async release(taskId: string, run: TaskRun): Promise<void> {
    const released = await this.writes
      .write(taskId, undefined, (task, body) => {
        if (isTerminalTaskStatus(task.status) || !this.holds(task, body, run)) return undefined;
        body.due = true;
        return { status: task.status, body, lease: null, quiet: true };
      })
      .catch(() => undefined);
    if (released) this.schedule(taskId);
  }
}
