import type { TestingModule } from '@nestjs/testing';
import { ElicitationRecords } from '../../src/lifecycle/elicitation-records.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { ElicitationTelemetry } from '../../src/observability/elicitation-telemetry.js';
import { ELICITATION_RESOLVED_OPTIONS } from '../../src/options/elicitation.constants.js';
import type { ResolvedElicitationOptions } from '../../src/options/resolved-options.js';
import { LinkedQuestions } from '../../src/mcp/questions/linked-questions.js';
import { detailedTask } from '../../src/mcp/tasks/task-body.js';
import { TaskRunner, type TaskTool } from '../../src/mcp/tasks/task-runner.js';
import { MemoryTasks } from '../../src/stores/memory-tasks.js';

/** A task as `tasks/get` details it, as far as the unit tests read it. */
export interface TaskView {
  status: string;
  inputRequests?: Record<string, { method: string; params: Record<string, unknown> }>;
  result?: { content: Array<{ text: string }>; isError?: boolean; _meta?: Record<string, unknown> };
}

/**
 * A `TaskRunner` over the module's real parts (`ref`, from `compileElicitation`) and a memory task store, with the
 * `tools` given; `view(id)` reads a task of `alice` as `tasks/get` details it.
 */
export function taskRunnerOf(ref: TestingModule, tools: Record<string, TaskTool['body']>, ttlMs = 60_000) {
  const options = ref.get<ResolvedElicitationOptions>(ELICITATION_RESOLVED_OPTIONS);
  const tasks = new TaskRunner({
    store: new MemoryTasks(),
    questions: {
      service: ref.get(ElicitationService),
      records: ref.get(ElicitationRecords),
      linked: ref.get(LinkedQuestions),
      telemetry: ref.get(ElicitationTelemetry),
      fallback: options.fallback,
      maxFormAttempts: options.limits.maxFormAttempts,
      instantDeclineMs: options.instantDeclineMs,
      maxStepResultBytes: 8192,
    },
    settings: {
      ttlMs,
      pollIntervalMs: 1_000,
      maxOpenPerUser: 10,
      leaseMs: 10_000,
      maxFinishedPerUser: 100,
      maxFinished: 10_000,
      maxOpenAnonymous: 100,
    },
    tools: new Map(Object.entries(tools).map(([name, body]) => [name, { body }])),
  });
  const view = async (id: string) => {
    const { task, body } = await tasks.read(id, 'alice');
    return detailedTask(task, body) as unknown as TaskView;
  };
  return { tasks, view };
}

/** Lets the runner's scheduled runs go through (30 turns of the event loop). */
export async function settleRuns(): Promise<void> {
  for (let i = 0; i < 30; i++) await new Promise((r) => setImmediate(r));
}
