import type { WaitOutcome } from '../../core/elicitation.types.js';
import type { StoredTask, TaskStatus } from '../../stores/task-store.js';
import type { InputRequest } from '../input-required/input-required.js';
import type { FormResponse, OpenQuestionState } from '../questions/question-log.js';

/** The extension's identifier: in capabilities, and in the -32021 error's `requiredCapabilities`. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** A question of a task's tool body, answered: by its position in the body (0 for the first). */
export interface TaskAnswer {
  /** What was asked (a digest): a re-run asking something else at this position is a broken tool. */
  question: string;
  /** A form question's result, as `elicit` resolved it. */
  response?: FormResponse;
  /** A page question (or a form asked on the hosted page): the elicitation whose outcome is the answer. */
  elicitationId?: string;
  /** That elicitation's outcome, kept with the task (the record may be purged before the task ends). */
  outcome?: WaitOutcome;
}

/** A question the task waits on (the question engine's open state, with its place and the client's reply). */
export interface OpenQuestion extends OpenQuestionState {
  /** Its position in the body. */
  index: number;
  question: string;
  /** The embedded request under its key, while the client has not answered it (absent once it did). */
  request?: InputRequest;
  /** The client's reply to the request (`tasks/update`), read at the next run. */
  response?: unknown;
  /**
   * A form question's page: the same form on the hosted form page, so that the inbox lists it and the notifiers
   * reach the person (`TaskRoom.askForm`). The first answer to reach the task, the client's or the page's, is taken;
   * the other page is cancelled.
   */
  formPage?: string;
}

/** What the binding keeps of a task in `StoredTask.body` (a store outside the process seals it). */
export interface TaskBody {
  tool: string;
  args: unknown;
  /** The elicitation modes the client declared on the call that made the task (its later runs have no request). */
  modes: Array<'form' | 'url'>;
  /** A run is due (answers or a page arrived) and has not been taken yet. */
  due?: boolean;
  /**
   * The fencing token of the run that holds the task: one more at every run start. A run writes only while the task
   * still holds its token (and its instance's lease), so a run taken over by another instance writes nothing.
   */
  fence?: number;
  /** Read from bodies written before the task's own times gave it (`expiresAt - createdAt`); no longer written. */
  ttlMs?: number;
  pollIntervalMs: number;
  /** The answers so far, by question position. */
  answers: Record<number, TaskAnswer>;
  /** The results of the steps run so far (`elicitation.step`), JSON by step name. */
  steps?: Record<string, string>;
  /** The questions it waits on, by input request key (keys are never reused within a task). */
  open: Record<string, OpenQuestion>;
  /** The next key number: keys are `<position>.<n>`. */
  nextKey: number;
  /** What the task's status says, where it says more than the status itself (a waiting task's is derived: `waitingMessage`). */
  statusMessage?: string;
  /** The tool's `CallToolResult`, once completed. */
  result?: Record<string, unknown>;
  /** The JSON-RPC error, once failed. */
  error?: { code: number; message: string; data?: unknown };
}

/**
 * The status message of a task: the one its body keeps (a cancel, a failure), else, while it waits, what it waits for
 * (derived, so a waiting task's body does not carry it).
 */
function statusMessageOf(task: StoredTask, body: TaskBody): { statusMessage?: string } {
  if (body.statusMessage !== undefined) return { statusMessage: body.statusMessage };
  if (task.status === 'input_required') return { statusMessage: 'Waiting for your answers.' };
  if (task.status === 'working' && Object.values(body.open).some((open) => open.elicitationId !== undefined)) {
    return { statusMessage: 'Waiting for the person to finish on the page.' };
  }
  return {};
}

/** A task as the client sees it (`Task`): the fields every task response carries. */
function taskFields(task: StoredTask, body: TaskBody): Record<string, unknown> {
  return {
    taskId: task.id,
    status: task.status,
    ...statusMessageOf(task, body),
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.updatedAt).toISOString(),
    ttlMs: task.expiresAt - task.createdAt,
    pollIntervalMs: body.pollIntervalMs,
  };
}

/** The flat `CreateTaskResult` a `tools/call` answers with. */
export function createTaskResult(task: StoredTask, body: TaskBody): Record<string, unknown> {
  return { resultType: 'task', ...taskFields(task, body) };
}

/** The input requests the client still has to answer, by key. */
export function outstandingRequests(body: TaskBody): Record<string, InputRequest> {
  const requests: Record<string, InputRequest> = {};
  for (const [key, open] of Object.entries(body.open)) if (open.request && open.response === undefined) requests[key] = open.request;
  return requests;
}

/** The detailed task of `tasks/get` (and `notifications/tasks`): the fields of its status inlined. */
export function detailedTask(task: StoredTask, body: TaskBody): Record<string, unknown> {
  const status: TaskStatus = task.status;
  return {
    resultType: 'complete',
    ...taskFields(task, body),
    ...(status === 'input_required' && { inputRequests: outstandingRequests(body) }),
    ...(status === 'completed' && { result: body.result ?? { content: [] } }),
    ...(status === 'failed' && { error: body.error ?? { code: -32603, message: 'Internal error' } }),
  };
}

/** Reads a task's body (written by `encodeBody`). */
export function decodeBody(task: StoredTask): TaskBody {
  const body = JSON.parse(task.body) as TaskBody & { open: Record<string, KeptOpenQuestion> };
  body.answers ??= {};
  for (const open of Object.values(body.open)) {
    if (open.ask === undefined) continue;
    open.request = { method: 'elicitation/create', params: open.ask };
    delete open.ask;
  }
  return body;
}

/** An open question as a body keeps it: an elicitation's request by its params alone (`ask`), the method implied. */
type KeptOpenQuestion = Omit<OpenQuestion, 'request'> & { request?: InputRequest; ask?: Record<string, unknown> };

/**
 * A body as the store keeps it, read back by `decodeBody`: no empty `answers`, and an open question's elicitation
 * request by its params (`ask`): what a waiting task keeps is what a re-run and `tasks/get` need, not the envelope
 * (bench/memory.bench.ts, the heap per waiting task). Bodies written before, with `request`, read the same.
 * `JSON.stringify` builds its string from parts, and a string kept so holds them all (some 140 bytes more for a
 * waiting task's body); reading one character flattens it to one string.
 */
export function encodeBody(body: TaskBody): string {
  const { answers, open, ...rest } = body;
  const kept: Record<string, KeptOpenQuestion> = {};
  for (const [key, question] of Object.entries(open)) {
    const { request, ...state } = question;
    kept[key] = request?.method === 'elicitation/create' && request.params ? { ...state, ask: request.params } : question;
  }
  const json = JSON.stringify({ ...rest, ...(Object.keys(answers).length > 0 && { answers }), open: kept });
  json.charCodeAt(0);
  return json;
}
