import { AsyncLocalStorage } from 'node:async_hooks';
import type { AnsweredQuestion } from '../input-required/request-state.codec.js';

/**
 * `continueAsTask()` (a tool registered with `taskStart: 'continueAsTask'`): the call runs as a plain 2026-07-28
 * call until the body calls it; then, when the request declared the Tasks extension, this signal carries the
 * answers of the rounds so far out of the body, and the call answers with a new task that starts from them.
 */
export class TaskStartSignal extends Error {
  override readonly name = 'TaskStartSignal';

  constructor(
    readonly answered: readonly AnsweredQuestion[],
    /** The results of the steps the call ran so far (`elicitation.step`), JSON by name: the task does not run them again. */
    readonly steps: Readonly<Record<string, string>> = {},
  ) {
    super('The call continues as a task; rethrow this signal.');
  }
}

/** The calls running now that may become a task at `continueAsTask()`. */
const startable = new AsyncLocalStorage<true>();

/** Runs `call` as one that may continue as a task. */
export function runStartable<R>(call: () => R): R {
  return startable.run(true, call);
}

/** Whether the code running now is in a call that may continue as a task. */
export function mayStartTask(): boolean {
  return startable.getStore() === true;
}
