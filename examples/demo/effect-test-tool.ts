/**
 * Test fixtures of the demo, registered only when `DEMO_EFFECTS_FILE` names a file (the fenced-runs and steps e2e
 * tests set it), each appending lines to that file: the side effects whose count shows how many runs acted.
 * - `record_effect`: as a task it notes that a run started (`<pid> <label> started`), sleeps `ms`, checks its
 *   `TaskContext` signal, and, unless it aborted, appends the effect (`<pid> <label>`). A tool written as the Tasks
 *   guide asks: the check right before the effect.
 * - `ticket_then_ask`: opens a ticket in a step (a line with the step's idempotency key, then `holdMs` before the
 *   step returns: the window in which a test kills the process), then asks who approves it (a form).
 */
import { appendFileSync } from 'node:fs';
import type { McpServer as Sdk2McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { defineForm, type McpElicitation, type SdkToolServer, type TaskContext } from '../../src/index.js';

/**
 * The demo's release ticket (`plan-release`'s step): an id made of the step's idempotency key, so the same step of
 * the same task always names the same ticket. When `DEMO_EFFECTS_FILE` is set, each opening is appended to it
 * (`<pid> open-ticket <key>`): the tests count them.
 */
export function openReleaseTicket(app: string, version: string, idempotencyKey: string): string {
  const file = process.env.DEMO_EFFECTS_FILE;
  if (file) appendFileSync(file, `${process.pid} open-ticket ${idempotencyKey} ${app} ${version}\n`);
  return `REL-${idempotencyKey.slice(0, 6)}`;
}

const approverForm = defineForm({ type: 'object', properties: { by: { type: 'string', minLength: 1 } }, required: ['by'] });

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
      appendFileSync(file, `${process.pid} ${label} started\n`);
      await new Promise((resolve) => setTimeout(resolve, ms));
      if (signal.aborted) return { content: [{ type: 'text' as const, text: `stopped: ${String(signal.reason)}` }] };
      appendFileSync(file, `${process.pid} ${label}\n`);
      return { content: [{ type: 'text' as const, text: `recorded ${label}` }] };
    },
  );
  registerTicketTestTool(server, elicitation, file);
}

/** `ticket_then_ask` alone, on a server of either SDK line (the 2025-11-25 sessions' too). */
export function registerTicketTestTool(server: SdkToolServer, elicitation: McpElicitation, file: string): void {
  elicitation.registerTool(
    server,
    'ticket_then_ask',
    {
      description: 'Test fixture: opens a ticket in a step (recorded with its idempotency key), then asks who approves it',
      inputSchema: z.object({ label: z.string(), holdMs: z.number().min(0).max(60_000) }),
      execution: { taskSupport: 'optional' },
    },
    async ({ label, holdMs }, el) => {
      const ticket = await el.step('open-ticket', async ({ idempotencyKey }) => {
        appendFileSync(file, `${process.pid} ${label} ${idempotencyKey}\n`);
        await new Promise((resolve) => setTimeout(resolve, holdMs));
        return { id: `T-${idempotencyKey.slice(0, 8)}` };
      });
      const answer = await el.elicit(`Who approves ticket ${ticket.id}?`, approverForm);
      const by = answer.action === 'accept' ? answer.content.by : answer.action;
      return { content: [{ type: 'text' as const, text: `ticket ${ticket.id} approved by ${by}` }] };
    },
  );
}
