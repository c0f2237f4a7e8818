// A minimal client of the Tasks extension over plain HTTP (protocol 2026-07-28, no SDK): calls a tool as a task,
// answers the questions the task lists, and returns its result. It reads JSON answers, which the module's routes give.

/** A question a task asks: the `params` of an `elicitation/create` it lists under `inputRequests`. */
export interface TaskQuestion {
  mode?: 'form' | 'url';
  message: string;
  requestedSchema?: Record<string, unknown>;
  url?: string;
}

/** A reply to one question: a form's content, or (URL mode) `accept` once the person was shown the page. */
export interface TaskReply {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
}

/** Calls `tool` as a task and drives it to its end; `answer` replies to each question it asks. */
export async function runTask(
  mcpUrl: string,
  headers: Record<string, string>, // your MCP authorization, e.g. { authorization: `Bearer ${token}` }
  tool: string,
  args: Record<string, unknown>,
  answer: (question: TaskQuestion) => Promise<TaskReply>,
): Promise<Record<string, unknown>> {
  let id = 0;
  // Each request names its method (Mcp-Method) and target (Mcp-Name: the tool, or the task id) in headers, and carries
  // the per-request envelope in `_meta`: the protocol version, the client, and what it can do (the Tasks extension).
  const request = async (method: string, target: string, params: Record<string, unknown>) => {
    const response = await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        ...headers,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        'mcp-name': target,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: ++id,
        method,
        params: {
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'my-task-client', version: '1.0.0' },
            'io.modelcontextprotocol/clientCapabilities': {
              elicitation: { form: {}, url: {} },
              extensions: { 'io.modelcontextprotocol/tasks': {} },
            },
          },
        },
      }),
    });
    const message = (await response.json()) as { result?: Record<string, unknown>; error?: { code: number; message: string } };
    if (message.error) throw new Error(`${method}: ${message.error.message} (${message.error.code})`);
    return message.result ?? {};
  };

  const created = await request('tools/call', tool, { name: tool, arguments: args });
  if (created.resultType !== 'task') return created; // the server ran it as a plain call
  const taskId = String(created.taskId);
  const replied = new Set<string>();
  for (;;) {
    const task = await request('tasks/get', taskId, { taskId });
    if (task.status === 'completed') return task.result as Record<string, unknown>;
    if (task.status === 'failed' || task.status === 'cancelled') throw new Error(`The task ended ${String(task.status)}`);
    // Each open question under a key never used before in this task; one reply per key, sent with tasks/update.
    const questions = Object.entries((task.inputRequests ?? {}) as Record<string, { params: TaskQuestion }>);
    const inputResponses: Record<string, TaskReply> = {};
    for (const [key, { params }] of questions) {
      if (replied.has(key)) continue;
      replied.add(key);
      inputResponses[key] = await answer(params);
    }
    if (Object.keys(inputResponses).length > 0) await request('tasks/update', taskId, { taskId, inputResponses });
    await new Promise((resolve) => setTimeout(resolve, Number(task.pollIntervalMs ?? 2000)));
  }
}
