/**
 * The task fixture two benchmarks share: the binding's `TaskRunner` over a task store, with one tool, `release`, that
 * asks a one-field form, so that every task it starts runs once and waits at its question (`input_required`). No
 * module around it: the questions' other parts are never reached by a form answered in form mode.
 */
import { defineForm } from '../src/forms/define-form.js';
import { TaskRunner, type TaskSettings } from '../src/mcp/tasks/task-runner.js';
import type { ElicitationTaskStore } from '../src/stores/task-store.js';

const versionForm = defineForm({ type: 'object', properties: { version: { type: 'string' } }, required: ['version'] });

/** A runner whose `release` tasks wait on a form question; `settings` over a day's tasks with the default bounds. */
export function releaseTaskRunner(store: ElicitationTaskStore, settings: Partial<TaskSettings> = {}): TaskRunner {
  return new TaskRunner({
    store,
    questions: {
      service: {} as never,
      records: {} as never,
      linked: { earlier: () => Promise.resolve(undefined) } as never,
      telemetry: { created: () => undefined, finished: () => undefined, fallback: () => undefined },
      fallback: { page: ['url', 'form-bridge', 'link'], form: ['form', 'url', 'link'] },
      maxFormAttempts: 3,
      instantDeclineMs: 0,
      maxStepResultBytes: 8192,
    },
    settings: {
      ttlMs: 86_400_000,
      pollIntervalMs: 2_000,
      maxOpenPerUser: 20,
      maxOpenAnonymous: 100,
      leaseMs: 30_000,
      maxFinishedPerUser: 100,
      maxFinished: 10_000,
      ...settings,
    },
    tools: new Map([
      [
        'release',
        {
          body: (_args: unknown, elicitation: { elicit: (m: string, f: typeof versionForm) => Promise<unknown> }) =>
            elicitation.elicit('Version?', versionForm),
        },
      ],
    ]),
  });
}
