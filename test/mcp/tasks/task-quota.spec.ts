/**
 * `tasks.createPerMinute` for tasks bound to no user (`tasks.allowAnonymous`): counted per MCP session when the
 * transport has one, so one anonymous session cannot use up the count of every other; without a session, all such
 * callers share one count. Through `McpTasks.dispatch`, the path of `registerTool`'s servers and of MCP-Nest alike.
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
