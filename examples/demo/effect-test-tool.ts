/**
 * A test fixture of the demo: the tool `record_effect`, registered only when `DEMO_EFFECTS_FILE` names a file (the
 * fenced-runs e2e test sets it). As a task it sleeps `ms`, checks its `TaskContext` signal, and, unless it aborted,
 * appends one line to that file: the side effect whose count shows how many runs acted. A tool written as the Tasks
 * guide asks: the check right before the effect.
 */
import { appendFileSync } from 'node:fs';
import type { McpServer as Sdk2McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { McpElicitation, TaskContext } from '../../src/index.js';

export function registerEffectTestTool(server: Sdk2McpServer, elicitation: McpElicitation, file: string): void {
  elicitation.registerTool(
    server,
    'record_effect',
    {
      description: 'Test fixture: sleeps `ms`, then records a side effect unless the run was told to stop',
      inputSchema: z.object({ ms: z.number().min(0).max(60_000), label: z.string() }),
      execution: { taskSupport: 'required' },
    },
    async ({ ms, label }, _elicitation, context) => {
      const { signal } = (context as TaskContext).task;
      await new Promise((resolve) => setTimeout(resolve, ms));
      if (signal.aborted) return { content: [{ type: 'text' as const, text: `stopped: ${String(signal.reason)}` }] };
      appendFileSync(file, `${process.pid} ${label}\n`);
      return { content: [{ type: 'text' as const, text: `recorded ${label}` }] };
    },
  );
}
