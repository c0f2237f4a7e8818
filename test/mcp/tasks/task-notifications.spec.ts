/** `McpTaskNotifications.handler`: what it leaves to the SDK's handler, and what it serves itself. */
import { describe, expect, it } from '@jest/globals';
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
