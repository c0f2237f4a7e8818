/**
 * Protocol 2026-07-28 (multi round-trip requests): the wire shapes a tool call answers with when it needs
 * input, and the signal the library uses to stop a tool at a question.
 */

/** One embedded request of an `input_required` result (not a JSON-RPC request: no id). */
export interface InputRequest {
  method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list';
  params?: Record<string, unknown>;
}

/** The `input_required` result of `tools/call` (also `prompts/get`, `resources/read`). */
export interface InputRequiredResult {
  resultType: 'input_required';
  inputRequests?: Record<string, InputRequest>;
  requestState?: string;
  [key: string]: unknown;
}

/**
 * Thrown by a 2026-07-28 `ToolElicitation` when the tool needs an answer the client has not given yet:
 * the tool wrapper (`McpElicitation.tool`) turns it into the `input_required` result, and the client
 * retries the call with the answer. Tool code that catches errors must rethrow it (see
 * `isInputRequiredSignal`).
 */
export class InputRequiredSignal extends Error {
  override readonly name = 'InputRequiredSignal';

  constructor(readonly result: InputRequiredResult) {
    super('The tool call needs input from the client (input_required); rethrow this signal.');
  }
}

/** Whether an error is the library's input-required signal (rethrow it from your own `catch`). */
export function isInputRequiredSignal(error: unknown): error is InputRequiredSignal {
  return error instanceof InputRequiredSignal;
}
