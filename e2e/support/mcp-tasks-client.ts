/**
 * The Tasks extension (`io.modelcontextprotocol/tasks`) from a real SDK 2.x client pinned to 2026-07-28: the SDK has
 * no task runtime, so a task call is read off the recorded wire (the SDK refuses `resultType: "task"`) and
 * `tasks/get`, `tasks/update`, `tasks/cancel` go out as custom requests (the transport sets `Mcp-Name`).
 */
import { z } from 'zod';
import type { V2TestClient } from './mcp-v2-client.js';

export const TASKS = 'io.modelcontextprotocol/tasks';

/** A task as `tasks/get` details it (the SDK lifts `resultType` off). */
export interface DetailedTask {
  taskId: string;
  status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
  inputRequests?: Record<string, { method: string; params: Record<string, unknown> }>;
  result?: { content: Array<{ type: string; text?: string }>; isError?: boolean };
  error?: { code: number; message: string };
}

const loose = z.object({}).passthrough();

/** Calls a tool that makes a task: the raw `CreateTaskResult` as it came over the wire. */
export async function callTask(c: V2TestClient, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const before = c.toolCalls().length;
  await c.client.callTool({ name, arguments: args }).catch(() => undefined);
  const exchange = c.toolCalls()[before];
  if (!exchange?.response) throw new Error(`no tools/call answer recorded for ${name}`);
  if (exchange.response.error) throw Object.assign(new Error(exchange.response.error.message), exchange.response.error);
  return exchange.response.result as Record<string, unknown>;
}

export async function getTask(c: V2TestClient, taskId: string): Promise<DetailedTask> {
  return (await c.client.request({ method: 'tasks/get', params: { taskId } }, loose)) as unknown as DetailedTask;
}

export async function updateTask(c: V2TestClient, taskId: string, inputResponses: Record<string, unknown>): Promise<unknown> {
  return c.client.request({ method: 'tasks/update', params: { taskId, inputResponses } }, loose);
}

export async function cancelTask(c: V2TestClient, taskId: string): Promise<unknown> {
  return c.client.request({ method: 'tasks/cancel', params: { taskId } }, loose);
}

/** Polls `tasks/get` until `until` holds (every 50 ms, at most `ms`). */
export async function waitForTask(
  c: V2TestClient,
  taskId: string,
  until: (task: DetailedTask) => boolean,
  ms = 10_000,
): Promise<DetailedTask> {
  const deadline = Date.now() + ms;
  for (;;) {
    const task = await getTask(c, taskId);
    if (until(task)) return task;
    if (Date.now() > deadline) throw new Error(`task ${taskId} did not get there in ${ms} ms: ${JSON.stringify(task)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The JSON-RPC error a request was refused with (`code`, `message`). */
export async function refusal(request: Promise<unknown>): Promise<{ code?: number; message: string }> {
  try {
    await request;
  } catch (error) {
    return error as { code?: number; message: string };
  }
  throw new Error('the request was not refused');
}

/** A JSON-RPC message of a `subscriptions/listen` stream. */
export interface ListenMessage {
  id?: string | number;
  method?: string;
  params?: Record<string, unknown> & { _meta?: Record<string, unknown> };
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** A `subscriptions/listen` for task ids, sent as a 2026-07-28 client sends it, read as the stream arrives. */
export interface TaskListen {
  status: number;
  /** Every message received so far. */
  messages: ListenMessage[];
  /** Resolves the first message (from the start) that `matches`, waiting for it at most `ms`. */
  next(matches: (message: ListenMessage) => boolean, ms?: number): Promise<ListenMessage>;
  /** Resolves once the server ended the stream. */
  ended: Promise<void>;
  close(): void;
}

export async function listenTasks(
  mcpUrl: string,
  user: string,
  taskIds: unknown,
  { extension = true, id = 7 }: { extension?: boolean; id?: string | number } = {},
): Promise<TaskListen> {
  const abort = new AbortController();
  const response = await fetch(mcpUrl, {
    method: 'POST',
    signal: abort.signal,
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': 'subscriptions/listen',
      Authorization: `Bearer ${user}`,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'subscriptions/listen',
      params: {
        notifications: { taskIds },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'e2e-task-listener', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': extension ? { extensions: { [TASKS]: {} } } : {},
        },
      },
    }),
  });
  const messages: ListenMessage[] = [];
  let wake = () => {};
  const ended = (async () => {
    if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
      messages.push((await response.json()) as ListenMessage);
      return;
    }
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const data = buffer
            .slice(0, end)
            .split('\n')
            .filter((line) => line.startsWith('data: '))
            .map((line) => line.slice(6))
            .join('\n');
          buffer = buffer.slice(end + 2);
          if (data) messages.push(JSON.parse(data) as ListenMessage);
          wake();
        }
      }
    } catch {
      // aborted by close()
    }
  })().finally(() => wake());
  let done = false;
  void ended.then(() => (done = true));
  return {
    status: response.status,
    messages,
    ended,
    close: () => abort.abort(),
    async next(matches, ms = 10_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const found = messages.find(matches);
        if (found) return found;
        if (done || Date.now() > deadline) throw new Error(`no such message on the stream; got ${JSON.stringify(messages)}`);
        await Promise.race([new Promise<void>((resolve) => (wake = resolve)), new Promise((resolve) => setTimeout(resolve, 100))]);
      }
    },
  };
}
