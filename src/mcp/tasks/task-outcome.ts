import type { TaskBody } from './task-body.js';
import { TaskSuspended, type TaskElicitation } from './task-elicitation.js';
import { isPendingQuestionSignal } from '../questions/linked-questions.js';
import type { ToolElicitation } from '../tool-elicitation.js';

/** A tool that may run as a task: its body, as registered (the same on every instance). */
export interface TaskTool {
  body: (args: unknown, elicitation: ToolElicitation, context: unknown) => unknown;
}

/**
 * What a task's tool body gets as its third argument (a plain call gets the SDK's context there): the task, and a
 * signal aborted when this run must stop: the task was cancelled (on any instance: the run hears of it within
 * `leaseMs / 3`), or this instance's lease on the run ran out or was taken over. Its `aborted` (and
 * `throwIfAborted()`) read the lease's deadline at the moment they are asked, so a check right before a side effect
 * is never late, even after the process was paused. `signal.reason` says which.
 */
export interface TaskContext {
  task: { taskId: string; signal: AbortSignal };
}

/** What a run of a task's tool body ended with: its result, a JSON-RPC error, or a question left open. */
export type RunOutcome =
  | { status: 'completed'; result: Record<string, unknown> }
  | { status: 'failed'; error: NonNullable<TaskBody['error']> }
  | { status: 'waiting' };

/** Runs the tool body once (from the top) and says how it ended; the runner records it. */
export async function executeRun(
  tool: TaskTool,
  body: TaskBody,
  elicitation: TaskElicitation,
  task: TaskContext['task'],
): Promise<RunOutcome> {
  try {
    const result = await tool.body(body.args, elicitation, { task } satisfies TaskContext);
    await elicitation.settled();
    return { status: 'completed', result: toolResult(result) };
  } catch (error) {
    await elicitation.settled();
    if (error instanceof TaskSuspended) return { status: 'waiting' };
    // The ladder reached the link (the client shows no elicitation): the task ends with the link result, as a
    // plain call does, and the next call of the tool takes the answer up.
    if (isPendingQuestionSignal(error)) return { status: 'completed', result: error.result };
    if (isJsonRpcError(error))
      return {
        status: 'failed',
        error: { code: error.code, message: error.message, ...(error.data !== undefined && { data: error.data }) },
      };
    // A tool that threw ran all the same: its error is the tool's result (`isError`), as a plain call answers it.
    return {
      status: 'completed',
      result: { content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }], isError: true },
    };
  }
}

/** A tool's return value as the `CallToolResult` a completed task inlines. */
function toolResult(result: unknown): Record<string, unknown> {
  if (result && typeof result === 'object' && Array.isArray((result as { content?: unknown }).content))
    return result as Record<string, unknown>;
  return { content: [{ type: 'text', text: typeof result === 'string' ? result : JSON.stringify(result ?? null) }] };
}

/** A JSON-RPC error (the SDK's `ProtocolError`, or any error with a numeric `code`): the task fails with it. */
function isJsonRpcError(error: unknown): error is Error & { code: number; data?: unknown } {
  return error instanceof Error && typeof (error as { code?: unknown }).code === 'number';
}
