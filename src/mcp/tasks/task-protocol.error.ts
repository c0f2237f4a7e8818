/** The JSON-RPC error codes of the Tasks extension's requests. */
export const TASK_ERROR_CODES = {
  /** Unknown (or another user's, or expired) task id. */
  invalidParams: -32602,
  /** A task without a verified user while `tasks.allowAnonymous` is off. */
  invalidRequest: -32600,
  /** The request did not declare the extension (`io.modelcontextprotocol/tasks`). */
  missingCapability: -32021,
  /** Too many open tasks for the user (`tasks.maxOpenPerUser`): the "limit exceeded" code, as for calls in flight. */
  limit: -32005,
} as const;

/**
 * A task request refused with a JSON-RPC error (`code`, `message`, `data`): an unknown task, a request without
 * the extension declared, a tool that needs a task from a client that cannot have one, the cap on open tasks.
 * Internal: the binding throws it, the SDK sends it.
 */
export class TaskProtocolError extends Error {
  override readonly name = 'TaskProtocolError';

  constructor(
    readonly code: number,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }

  /** -32021 naming the extension, as the extension's text gives it. */
  static missingExtension(what: string): TaskProtocolError {
    return new TaskProtocolError(
      TASK_ERROR_CODES.missingCapability,
      `Missing required client capability: ${what} needs the io.modelcontextprotocol/tasks extension`,
      {
        requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } },
      },
    );
  }

  /** -32602 for a task this caller cannot see: unknown, expired or another user's (never said which). */
  static notFound(): TaskProtocolError {
    return new TaskProtocolError(TASK_ERROR_CODES.invalidParams, 'Failed to retrieve task: Task not found');
  }
}
