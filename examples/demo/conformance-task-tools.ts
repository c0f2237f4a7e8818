/**
 * The fixture tools of the conformance suite's Tasks extension scenarios (`tasks-*`, 0.2.0-alpha.12, pending suite),
 * written through the module's tool API like every demo tool. Registered on the SDK 2.x server under
 * MCP_CONFORMANCE=1 only.
 */
import { ProtocolError, ProtocolErrorCode, type McpServer as Sdk2McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { defineForm, type McpElicitation, type TaskContext } from '../../src/index.js';

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

/** Waits `ms`, or until the task is cancelled (then the task is `cancelled` and this result is never seen). */
function sleep(ms: number, context: unknown): Promise<void> {
  const signal = (context as Partial<TaskContext> | undefined)?.task?.signal;
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}

const confirmForm = defineForm({ type: 'object', properties: { confirm: { type: 'boolean', title: 'Confirm' } }, required: ['confirm'] });
/** What the suite answers `multi_input` with: `{ name, confirm }`. */
const inputForm = (title: string) =>
  defineForm({
    type: 'object',
    properties: { name: { type: 'string', title }, confirm: { type: 'boolean', title: 'Confirm' } },
    required: ['name'],
  });
const nameForm = defineForm({ type: 'object', properties: { name: { type: 'string', title: 'Your name' } }, required: ['name'] });

export function registerTaskConformanceTools(server: Sdk2McpServer, elicitation: McpElicitation): void {
  elicitation.registerTool(
    server,
    'greet',
    { description: 'Greets (never a task)', inputSchema: z.object({ name: z.string() }) },
    ({ name }) => text(`Hello, ${name}!`),
  );
  elicitation.registerTool(
    server,
    'slow_compute',
    {
      description: 'Sleeps `seconds`, then answers (a task when the client asks for one)',
      inputSchema: z.object({ seconds: z.number().min(0).max(120), label: z.string().optional() }),
      execution: { taskSupport: 'optional' },
    },
    async ({ seconds, label }, _elicitation, context) => {
      await sleep(seconds * 1000, context);
      return text(`Computed ${label ?? 'result'} after ${seconds}s`);
    },
  );
  elicitation.registerTool(
    server,
    'failing_job',
    { description: 'Fails as a tool after about a second (only as a task)', execution: { taskSupport: 'required' } },
    async (_args, _elicitation, context) => {
      await sleep(1000, context);
      throw new Error('The job failed');
    },
  );
  elicitation.registerTool(
    server,
    'protocol_error_job',
    { description: 'Fails with a JSON-RPC error (a task)', execution: { taskSupport: 'optional' } },
    () => {
      throw new ProtocolError(ProtocolErrorCode.InternalError, 'The job broke down');
    },
  );
  elicitation.registerTool(
    server,
    'confirm_delete',
    { description: 'Asks for a confirmation, then answers (a task)', execution: { taskSupport: 'optional' } },
    async (_args, asking) => {
      const answer = await asking.elicit('Delete the file?', confirmForm);
      return text(answer.action === 'accept' && answer.content.confirm ? 'Deleted' : 'Not deleted');
    },
  );
  elicitation.registerTool(
    server,
    'multi_input',
    { description: 'Asks two questions at once, then answers (a task)', execution: { taskSupport: 'optional' } },
    async (_args, asking) => {
      const [first, second] = await Promise.all([
        asking.elicit('First value?', inputForm('First')),
        asking.elicit('Second value?', inputForm('Second')),
      ]);
      const value = (answer: typeof first) => (answer.action === 'accept' ? answer.content.name : answer.action);
      return text(`Got ${value(first)} and ${value(second)}`);
    },
  );
  // Asks in input_required rounds first, then continues as a task (the answers of the rounds go with it).
  elicitation.registerTool(
    server,
    'test_tool_with_task',
    { description: 'Asks your name, then greets you from a task', execution: { taskSupport: 'required' }, taskStart: 'continueAsTask' },
    async (_args, asking) => {
      const answer = await asking.elicit('What is your name?', nameForm, { key: 'user_name' });
      await asking.continueAsTask();
      return text(answer.action === 'accept' ? `Hello, ${answer.content.name}!` : `No name (${answer.action})`);
    },
  );
}
