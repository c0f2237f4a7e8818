/**
 * `McpTasks.dispatch`, the path of `registerTool`'s servers and of MCP-Nest alike, on who gets a task:
 * - `tasks.createPerMinute` for tasks bound to no user (`tasks.allowAnonymous`): counted per MCP session when the
 *   transport has one, so one anonymous session cannot use up the count of every other; without a session, all such
 *   callers share one count;
 * - a client behind mcp-remote, whose Tasks declaration the built-in profile hides (it cannot consume a task result).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { McpTasks } from '../../../src/mcp/tasks/mcp-tasks.js';
import { compileElicitation } from '../../support/testing-module.js';

const CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

/** A 2026-07-28 request's context that declared the Tasks extension, in MCP session `sessionId` (if any). */
function contextOf(sessionId?: string) {
  return {
    ...(sessionId && { sessionId }),
    mcpReq: { id: 1, method: 'tools/call', envelope: { [CAPABILITIES]: { extensions: { 'io.modelcontextprotocol/tasks': {} } } } },
  };
}

describe('tasks.createPerMinute for tasks bound to no user', () => {
  let ref: TestingModule;
  let tasks: McpTasks;
  const create = (sessionId?: string) =>
    tasks.dispatch(
      'quick',
      { support: 'required' },
      {},
      contextOf(sessionId),
      () => undefined,
      () => Promise.resolve('plain'),
    );

  beforeAll(async () => {
    ref = await compileElicitation({ tasks: { allowAnonymous: true, createPerMinute: 2 } });
    tasks = ref.get(McpTasks);
    tasks.register('quick', () => 'done');
  });
  afterAll(async () => {
    await ref.close();
  });

  it('counts them per MCP session: one session past the quota is refused (-32005), another is not', async () => {
    await expect(create('session-a')).resolves.toMatchObject({ resultType: 'task' });
    await expect(create('session-a')).resolves.toMatchObject({ resultType: 'task' });
    await expect(create('session-a')).rejects.toMatchObject({
      code: -32005,
      message: expect.stringContaining('in this MCP session in a minute (tasks.createPerMinute = 2)'),
    });
    await expect(create('session-b')).resolves.toMatchObject({ resultType: 'task' });
  });

  it('counts them all together without a session (a stateless server)', async () => {
    await create();
    await create();
    await expect(create()).rejects.toMatchObject({
      code: -32005,
      message: expect.stringContaining('by callers without a verified user in a minute'),
    });
  });
});

describe('the Tasks extension a client behind mcp-remote declares (built-in profile mcp-remote)', () => {
  /** A 2026-07-28 request's context from client `name` that declared the Tasks extension. */
  const from = (name: string) => ({
    mcpReq: {
      id: 1,
      method: 'tools/call',
      envelope: {
        [CAPABILITIES]: { extensions: { 'io.modelcontextprotocol/tasks': {} } },
        'io.modelcontextprotocol/clientInfo': { name, version: '1.0.0' },
      },
    },
  });

  it.each([
    ['on (the default): acted on as not declared, so an optional tool runs plain', undefined, 'plain'],
    ['off: a task', { 'mcp-remote': false }, 'task'],
  ] as const)('%s', async (_name, clientProfiles, expected) => {
    const ref = await compileElicitation({ ...(clientProfiles && { clientProfiles }) });
    try {
      const tasks = ref.get(McpTasks);
      tasks.register('optional', () => 'done');
      const run = (name: string) =>
        tasks.dispatch(
          'optional',
          { support: 'optional' },
          {},
          from(name),
          () => 'alice',
          () => Promise.resolve('plain'),
        );
      const behind = await run('Claude Desktop (via mcp-remote 0.15.0)');
      expect(behind === 'plain' ? 'plain' : (behind as { resultType?: string }).resultType).toBe(expected);
      // Any other client keeps its declaration.
      expect(await run('Claude Desktop')).toMatchObject({ resultType: 'task' });
    } finally {
      await ref.close();
    }
  });
});
