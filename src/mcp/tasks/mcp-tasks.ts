import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { ElicitationEvent } from '../../core/elicitation.types.js';
import { TaskProtocolError, TASK_ERROR_CODES } from './task-protocol.error.js';
import { ElicitationEvents } from '../../events/elicitation-events.js';
import { ElicitationService } from '../../lifecycle/elicitation.service.js';
import { ElicitationRecords } from '../../lifecycle/elicitation-records.js';
import { ElicitationTelemetry } from '../../observability/elicitation-telemetry.js';
import { LinkedQuestions } from '../questions/linked-questions.js';
import { ELICITATION_OBSERVED_STORE } from '../../observability/observed-store.js';
import { InjectMcpOptions, type ElicitationMcpOptions } from '../../options/mcp-options.js';
import type { ElicitationStore } from '../../stores/elicitation-store.js';
import { isTerminalTaskStatus, type ElicitationTaskStore } from '../../stores/task-store.js';
import { refuse } from '../call-refusals.js';
import { McpSdkLoader } from '../sdk/sdk-loader.js';
import { McpCallers } from '../sdk/mcp-callers.js';
import { callbackParams, type SdkServerOrMcpServer, type SdkV2Context } from '../sdk/sdk.types.js';

import type { ElicitingToolHandler } from '../mcp-elicitation.types.js';
import { createTaskResult, detailedTask, TASKS_EXTENSION } from './task-body.js';
import { supportsMode } from '../questions/question-rules.js';
import { runStartable, TaskStartSignal } from './task-start.js';
import { TaskRunner, type TaskTool } from './task-runner.js';

/** How a tool takes part in tasks (the extension's `execution.taskSupport`). */
export type TaskSupport = 'forbidden' | 'optional' | 'required';

/** A low-level SDK 2.x server, as far as the tasks use it. */
interface TaskServer {
  setRequestHandler(
    method: string,
    schemas: { params: unknown },
    handler: (params: { taskId: string }, ctx: SdkV2Context) => unknown,
  ): void;
  registerCapabilities(capabilities: Record<string, unknown>): void;
}

/**
 * The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) on protocol 2026-07-28: a tool registered with
 * `execution: { taskSupport }` runs as a task when the request declares the extension (`CreateTaskResult` at once,
 * the result from `tasks/get` later), through the same tool body and `ToolElicitation` as a plain call; `tasks/get`,
 * `tasks/update` and `tasks/cancel` on every server such a tool is registered on. The tasks live in the store
 * (`ElicitationTaskStore`), so any instance answers for any task; see `TaskRunner`.
 */
@Injectable()
export class McpTasks implements OnModuleInit, OnModuleDestroy {
  private readonly tools = new Map<string, TaskTool>();
  private readonly served = new WeakSet<object>();
  private runner?: TaskRunner;
  private unsubscribe?: () => void;
  private readonly changes = new Set<(taskId: string) => void>();

  constructor(
    private readonly service: ElicitationService,
    private readonly records: ElicitationRecords,
    private readonly linked: LinkedQuestions,
    private readonly telemetry: ElicitationTelemetry,
    private readonly events: ElicitationEvents,
    @Inject(ELICITATION_OBSERVED_STORE) private readonly store: ElicitationStore,
    private readonly sdks: McpSdkLoader,
    private readonly callers: McpCallers,
    @InjectMcpOptions() private readonly options: ElicitationMcpOptions,
  ) {}

  onModuleInit(): void {
    // A page a task asked on, finished on any instance, moves its task on.
    this.unsubscribe = this.events.subscribe((event) => {
      const taskId = event.type !== 'created' && event.type !== 'extended' ? taskOfEvent(event) : undefined;
      // Even before this instance registered its task tools (servers made per request): the task is marked due, and
      // an instance that has the tool runs it (this one, or the next to read the task).
      if (taskId && this.store.putTask) this.tasks().pageFinished(taskId);
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  /** The runner, made at the first task tool (a store without tasks is refused then, naming the store). */
  private tasks(): TaskRunner {
    if (this.runner) return this.runner;
    const kept = this.store;
    if (!kept.createTask || !kept.getTask || !kept.putTask) {
      throw new Error(
        'nestjs-mcp-elicitation: a tool with execution.taskSupport needs a store that keeps tasks (createTask, getTask, putTask): ' +
          'MemoryElicitationStore, RedisElicitationStore and PostgresElicitationStore do.',
      );
    }
    const store: ElicitationTaskStore = {
      createTask: (task, limit) => kept.createTask!(task, limit),
      getTask: (id, now) => kept.getTask!(id, now),
      putTask: (task, now, finished) => kept.putTask!(task, now, finished),
    };
    this.runner = new TaskRunner({
      store,
      questions: {
        service: this.service,
        records: this.records,
        linked: this.linked,
        telemetry: this.telemetry,
        fallback: this.options.fallback,
        maxFormAttempts: this.options.limits.maxFormAttempts,
        maxStepResultBytes: this.options.limits.maxStepResultBytes,
        instantDeclineMs: this.options.instantDeclineMs,
      },
      settings: this.options.tasks,
      tools: this.tools,
      changed: (taskId) => this.changes.forEach((listener) => listener(taskId)),
    });
    return this.runner;
  }

  /**
   * What `registerTool` registers for a tool: `callback` itself for a tool without task support (`execution.taskSupport`
   * absent or `forbidden`), else one that runs a call as a task when the request asks for one; and the SDK's config,
   * without the module's own `taskStart`.
   */
  wrap(
    server: object,
    name: string,
    config: object,
    handler: ElicitingToolHandler<never, unknown>,
    callback: (...params: unknown[]) => Promise<unknown>,
    userOf: (ctx: SdkV2Context) => string | undefined,
  ): { config: object; callback: (...params: unknown[]) => Promise<unknown> } {
    const { taskStart, ...sdkConfig } = config as { taskStart?: unknown };
    const settings: TaskToolSettings = {
      support: taskSupportOf(config),
      taskStart: taskStart === 'continueAsTask' ? taskStart : undefined,
    };
    if (settings.support === 'forbidden') return { config: sdkConfig, callback };
    this.register(name, (args, elicitation, context) => handler(args as never, elicitation, context));
    this.serve(server, userOf);
    const wrapped = async (...params: unknown[]) => {
      const [args, ctx] = callbackParams(params);
      return this.dispatch(
        name,
        settings,
        args,
        ctx,
        () => userOf(ctx as SdkV2Context),
        () => callback(...params),
      );
    };
    return { config: sdkConfig, callback: wrapped };
  }

  /**
   * A call of a task tool, whoever serves it (`registerTool`, the MCP-Nest adapter): a task when the request declared
   * the extension (the flat `CreateTaskResult`; with `taskStart: 'continueAsTask'`, once the plain call's body asks
   * for it), -32021 for a `required` tool when it did not, else the plain call (`plain`).
   */
  async dispatch(
    name: string,
    { support, taskStart }: TaskToolSettings,
    args: unknown,
    ctx: unknown,
    user: () => string | undefined,
    plain: () => Promise<unknown>,
  ): Promise<unknown> {
    // A tool that asks first: a plain call until its body continues as a task.
    if (taskStart === 'continueAsTask' && this.declares(ctx)) {
      try {
        return await runStartable(plain);
      } catch (error) {
        if (!(error instanceof TaskStartSignal)) throw error;
        const userId = this.taskUser(name, user());
        return this.start(ctx, name, args, userId, this.modesOf(ctx), error.answered, error.steps);
      }
    }
    const created = await this.call(name, support, args, ctx, user);
    return created ?? plain();
  }

  /** The elicitation modes a 2026-07-28 request declared, through the module's `clientPolicy` (`{}` alone: form). */
  private modesOf(ctx: unknown): Array<'form' | 'url'> {
    const declared = this.callers.requestElicitation((ctx as SdkV2Context).mcpReq.envelope);
    return (['form', 'url'] as const).filter((mode) => supportsMode(declared, mode));
  }

  /** A task as `tasks/get` shows it to `userId` (-32602 when it is not theirs, unknown or expired). */
  async detailed(taskId: string, userId: string): Promise<DetailedTask> {
    const { task, body } = await this.tasks().read(taskId, userId);
    return { detail: detailedTask(task, body), terminal: isTerminalTaskStatus(task.status) };
  }

  /** Several tasks as `detailed` reads each (`undefined` where it finds none), in one store call where the store can. */
  async detailedMany(wanted: ReadonlyArray<{ taskId: string; userId: string }>): Promise<Array<DetailedTask | undefined>> {
    const read = await this.tasks().readMany(wanted);
    return read.map((one) => one && { detail: detailedTask(one.task, one.body), terminal: isTerminalTaskStatus(one.task.status) });
  }

  /** Calls `listener` with the id of each task changed on this instance (a run's outcome, an answer, a cancel). */
  onChange(listener: (taskId: string) => void): () => void {
    this.changes.add(listener);
    return () => this.changes.delete(listener);
  }

  /** The verified user of a request, by the module's `resolveMcpUser` (for servers whose routes name no user of their own). */
  verifiedUser(ctx: SdkV2Context): string | undefined {
    return this.callers.userOf(ctx);
  }

  /** Whether a request declared the extension (per request, on protocol 2026-07-28). */
  declares(ctx: unknown): boolean {
    return this.callers.declaresExtension((ctx as Partial<SdkV2Context> | undefined)?.mcpReq?.envelope, TASKS_EXTENSION);
  }

  /** Registers a task tool's body by name (the same on every instance: any instance may run any task). */
  register(name: string, body: TaskTool['body']): void {
    this.tasks();
    this.tools.set(name, { body });
  }

  /**
   * A call of a task tool: a task when the request declared the extension (the flat `CreateTaskResult`), -32021 for
   * a `required` tool when it did not, else `undefined` (the caller runs the call as a plain one).
   */
  private async call(
    name: string,
    support: TaskSupport,
    args: unknown,
    ctx: unknown,
    user: () => string | undefined,
  ): Promise<Record<string, unknown> | undefined> {
    if (!this.declares(ctx)) {
      if (support === 'required') refuse(TaskProtocolError.missingExtension(`the tool ${name}`));
      return undefined;
    }
    const verified = user();
    // Without a verified user and tasks.allowAnonymous off: an optional tool runs as a plain call.
    if (verified === undefined && !this.options.tasks.allowAnonymous && support !== 'required') return undefined;
    return this.start(ctx, name, args, this.taskUser(name, verified), this.modesOf(ctx));
  }

  /**
   * The user a task is bound to: the verified one; without one, '' (no user: the id alone reads the task) when
   * `tasks.allowAnonymous` is on, else the call is refused (-32600 naming the option).
   */
  private taskUser(name: string, verified: string | undefined): string {
    if (verified !== undefined) return verified;
    if (this.options.tasks.allowAnonymous) return '';
    refuse(
      new TaskProtocolError(
        TASK_ERROR_CODES.invalidRequest,
        `The tool ${name} runs as a task, and a task needs a verified user: sign the MCP client in, or set tasks.allowAnonymous.`,
        { option: 'tasks.allowAnonymous', value: false },
      ),
    );
  }

  /**
   * Makes the task of a call: its `CreateTaskResult`. A refusal (the user's cap on open tasks, -32005) is the call's
   * JSON-RPC error, never a tool result a model would read as the tool's answer.
   */
  private async start(ctx: unknown, ...params: Parameters<TaskRunner['start']>): Promise<Record<string, unknown>> {
    try {
      await this.countCreation(params[2], (ctx as Partial<SdkV2Context> | undefined)?.sessionId);
      const { task, body } = await this.tasks().start(...params);
      return createTaskResult(task, body);
    } catch (error) {
      if (error instanceof TaskProtocolError) refuse(error);
      throw error;
    }
  }

  /**
   * Counts a task creation against its user's `tasks.createPerMinute` (in the store, so across instances): past it,
   * -32005 naming the option. Tasks bound to no user are counted per MCP session when the transport has one (a
   * stateful server), else all together.
   */
  private async countCreation(userId: string, sessionId: string | undefined): Promise<void> {
    const { createPerMinute } = this.options.tasks;
    const key = userId === '' && sessionId ? `task-create-session:${sessionId}` : `task-create:${userId}`;
    const { count } = await this.store.hit(key, 60_000, Date.now());
    if (count <= createPerMinute) return;
    const by = userId !== '' ? 'by this user' : sessionId ? 'in this MCP session' : 'by callers without a verified user';
    throw new TaskProtocolError(
      TASK_ERROR_CODES.limit,
      `Too many tasks created ${by} in a minute (tasks.createPerMinute = ${createPerMinute}): try again shortly.`,
      { limit: 'tasks.createPerMinute', value: createPerMinute },
    );
  }

  /**
   * `tasks/get`, `tasks/update` and `tasks/cancel`, and the extension in the capabilities, on an SDK 2.x server (once
   * per server; before it connects). `userOf` gives a request's verified user.
   */
  serve(server: object, userOf: (ctx: SdkV2Context) => string | undefined): void {
    // Tasks are of protocol 2026-07-28, which SDK 2.x serves.
    if (!this.sdks.isOf(server as SdkServerOrMcpServer, '2.x')) return;
    const low = ((server as { server?: object }).server ?? server) as Partial<TaskServer>;
    if (this.served.has(low) || typeof low.setRequestHandler !== 'function' || typeof low.registerCapabilities !== 'function') return;
    const z = this.sdks.zod();
    if (!z) return;
    this.served.add(low);
    low.registerCapabilities({ extensions: { [TASKS_EXTENSION]: {} } });
    const params = z.object({ taskId: z.string() });
    const gate = (method: string, ctx: SdkV2Context): string => {
      if (!this.declares(ctx)) throw TaskProtocolError.missingExtension(method);
      return userOf(ctx) ?? '';
    };
    low.setRequestHandler('tasks/get', { params }, async ({ taskId }, ctx) => {
      const { task, body } = await this.tasks().read(taskId, gate('tasks/get', ctx));
      return detailedTask(task, body);
    });
    low.setRequestHandler('tasks/update', { params }, async ({ taskId }, ctx) => {
      const responses = (ctx.mcpReq as { inputResponses?: Record<string, unknown> }).inputResponses ?? {};
      await this.tasks().update(taskId, gate('tasks/update', ctx), responses);
      return { resultType: 'complete' };
    });
    low.setRequestHandler('tasks/cancel', { params }, async ({ taskId }, ctx) => {
      await this.tasks().cancel(taskId, gate('tasks/cancel', ctx));
      return { resultType: 'complete' };
    });
  }
}

/** A task as `tasks/get` shows it, and whether it is finished. */
export interface DetailedTask {
  detail: Record<string, unknown>;
  terminal: boolean;
}

/** How a tool runs as a task: its `execution.taskSupport`, and `taskStart`. */
export interface TaskToolSettings {
  support: TaskSupport;
  /** `'continueAsTask'`: a plain call first, a task once the body calls `continueAsTask()`. */
  taskStart?: 'continueAsTask';
}

/** A tool config's `execution.taskSupport` (the extension's tool metadata); `forbidden` when absent or unknown. */
export function taskSupportOf(config: object): TaskSupport {
  const support = ((config as { execution?: unknown }).execution as { taskSupport?: unknown } | undefined)?.taskSupport;
  return support === 'optional' || support === 'required' ? support : 'forbidden';
}

/**
 * The task a page's lifecycle event moves on: its `taskId`. A page a task created before records kept their task
 * carries it in its session instead, as `task:<id>`: read while such pages may still be waiting.
 */
export function taskOfEvent(event: Pick<ElicitationEvent, 'taskId' | 'sessionId'>): string | undefined {
  if (event.taskId !== undefined) return event.taskId;
  return event.sessionId?.startsWith('task:') ? event.sessionId.slice('task:'.length) : undefined;
}
