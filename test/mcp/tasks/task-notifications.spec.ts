/** `McpTaskNotifications.handler`: what it leaves to the SDK's handler, and what it serves itself. */
import { afterAll, describe, expect, it } from '@jest/globals';
import type { McpTasks } from '../../../src/mcp/tasks/mcp-tasks.js';
import { McpTaskNotifications, type FetchMcpHandler } from '../../../src/mcp/tasks/task-notifications.js';
import { McpCallers } from '../../../src/mcp/sdk/mcp-callers.js';
import type { ElicitationMcpOptions } from '../../../src/options/mcp-options.js';

const TASKS = 'io.modelcontextprotocol/tasks';

function listen(params: Record<string, unknown>, method = 'subscriptions/listen'): Request {
  return new Request('http://app.test/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'mcp-method': method, 'mcp-protocol-version': '2026-07-28' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 3, method, params }),
  });
}

describe('McpTaskNotifications.handler', () => {
  const seen: Request[] = [];
  const inner = {
    fetch: (request: Request) => (seen.push(request), Promise.resolve(new Response('inner'))),
    close: () => Promise.resolve(),
  } satisfies FetchMcpHandler & { close(): Promise<void> };
  const read: string[] = [];
  const tasks = {
    onChange: () => () => undefined,
    detailed: (taskId: string, user: string) => {
      read.push(`${user}:${taskId}`);
      return Promise.reject(new Error('not found'));
    },
  } as unknown as McpTasks;
  const options = { resolveMcpUser: () => 'alice', tasks: { pollIntervalMs: 1000 } } as unknown as ElicitationMcpOptions;
  const notifications = new McpTaskNotifications(tasks, options, new McpCallers(options));
  const handler = notifications.handler(inner);

  it('keeps the rest of the handler (close) and passes every other request through untouched', async () => {
    expect(handler.close).toBe(inner.close);
    const call = listen({ name: 'x' }, 'tools/call');
    expect(await (await handler.fetch(call)).text()).toBe('inner');
    const changes = listen({ notifications: { toolsListChanged: true } });
    expect(await (await handler.fetch(changes)).text()).toBe('inner');
    expect(seen).toEqual([call, changes]);
  });

  it('serves a listen naming task ids: the user’s tasks looked up, an empty acknowledgement when none is theirs', async () => {
    const before = seen.length;
    const response = await handler.fetch(
      listen({
        notifications: { taskIds: ['t1', 't1', 't2'] },
        _meta: { 'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } } },
      }),
    );
    expect(seen).toHaveLength(before);
    expect(read).toEqual(['alice:t1', 'alice:t2']);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const text = await response.text();
    expect(text).toContain('"method":"notifications/subscriptions/acknowledged","params":{"notifications":{"taskIds":[]}');
    expect(text).toContain('"id":3,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":3}}');
    expect(notifications.size).toBe(0);
  });
});

describe('McpTaskNotifications: limits per user, one store call per poll', () => {
  /** The polls' calls, each the tasks it read. */
  const polls: string[][] = [];
  // Each user's own tasks are `<user>-<n>`, working (a stream following them stays open).
  const detail = (taskId: string, user: string) =>
    taskId.startsWith(`${user}-`) ? { detail: { resultType: 'complete', taskId, status: 'working' }, terminal: false } : undefined;
  const tasks = {
    onChange: () => () => undefined,
    detailed: (taskId: string, user: string) => {
      const read = detail(taskId, user);
      return read ? Promise.resolve(read) : Promise.reject(new Error('not found'));
    },
    detailedMany: (wanted: Array<{ taskId: string; userId: string }>) => {
      polls.push(wanted.map(({ taskId, userId }) => `${userId}:${taskId}`));
      return Promise.resolve(wanted.map(({ taskId, userId }) => detail(taskId, userId)));
    },
  } as unknown as McpTasks;
  let user = 'alice';
  const options = {
    resolveMcpUser: () => user,
    tasks: { pollIntervalMs: 40, maxListenersPerUser: 2, maxTasksPerListener: 3 },
  } as unknown as ElicitationMcpOptions;
  const notifications = new McpTaskNotifications(tasks, options, new McpCallers(options));
  const handler = notifications.handler<FetchMcpHandler>({ fetch: () => Promise.resolve(new Response('inner')) });
  const meta = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } } };
  const opened: AbortController[] = [];

  /** A listen by `as` for `taskIds`, kept open (its abort controller kept to close it). */
  async function listenAs(as: string, taskIds: string[]): Promise<Response> {
    user = as;
    const abort = new AbortController();
    opened.push(abort);
    const request = new Request(listen({ notifications: { taskIds }, _meta: meta }), { signal: abort.signal });
    return handler.fetch(request);
  }
  const errorOf = async (response: Response) =>
    ((await response.json()) as { error?: { code: number; message: string; data: unknown } }).error;

  afterAll(() => {
    for (const abort of opened) abort.abort();
    notifications.onModuleDestroy();
  });

  it('refuses a listen past tasks.maxTasksPerListener and a user past tasks.maxListenersPerUser with -32005 naming the option; other users are not counted; a closed stream frees its place', async () => {
    expect(await errorOf(await listenAs('alice', ['alice-1', 'alice-2', 'alice-3', 'alice-4']))).toEqual({
      code: -32005,
      message: 'A listen may follow at most 3 tasks (tasks.maxTasksPerListener = 3).',
      data: { limit: 'tasks.maxTasksPerListener', value: 3 },
    });
    const first = await listenAs('alice', ['alice-1', 'alice-2']);
    const second = await listenAs('alice', ['alice-1']);
    expect([first.headers.get('content-type'), second.headers.get('content-type')]).toEqual(['text/event-stream', 'text/event-stream']);
    expect(await errorOf(await listenAs('alice', ['alice-3']))).toEqual({
      code: -32005,
      message: 'Too many task subscriptions open for this user: close one first (tasks.maxListenersPerUser = 2).',
      data: { limit: 'tasks.maxListenersPerUser', value: 2 },
    });
    // Bob has places of his own.
    expect((await listenAs('bob', ['bob-1'])).headers.get('content-type')).toBe('text/event-stream');
    expect(notifications.size).toBe(3);
    // Alice closes her second stream: her next listen is served.
    opened[2].abort();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(notifications.size).toBe(2);
    expect((await listenAs('alice', ['alice-3'])).headers.get('content-type')).toBe('text/event-stream');
  });

  it('reads every followed task in one call per poll, each once however many streams follow it', async () => {
    // bob-1 followed by two of Bob's streams now; alice-1, alice-2 and alice-3 by Alice's streams.
    expect((await listenAs('bob', ['bob-1'])).headers.get('content-type')).toBe('text/event-stream');
    await new Promise((resolve) => setTimeout(resolve, 20));
    polls.length = 0;
    await new Promise((resolve) => setTimeout(resolve, 130));
    expect(polls.length).toBeGreaterThanOrEqual(2);
    for (const read of polls) expect([...read].sort()).toEqual(['alice:alice-1', 'alice:alice-2', 'alice:alice-3', 'bob:bob-1']);
  });
});
