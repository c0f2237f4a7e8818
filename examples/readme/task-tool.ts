import { Injectable } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/server'; // SDK 2.x: tasks are of protocol 2026-07-28
import { defineForm, McpElicitation } from 'nestjs-mcp-elicitation';
import { z } from 'zod';

const releaseForm = defineForm({
  type: 'object',
  properties: { version: { type: 'string', title: 'Version', minLength: 5, maxLength: 20 } },
  required: ['version'],
});

@Injectable()
export class ReleaseTools {
  constructor(private readonly elicitation: McpElicitation) {}

  register(server: McpServer) {
    this.elicitation.registerTool(
      server,
      'plan-release',
      {
        description: 'Plans a release; waits for your answers as long as you need',
        inputSchema: z.object({ app: z.string() }),
        // A task when the client declares the extension; a plain call otherwise ('required' refuses those, -32021).
        execution: { taskSupport: 'optional' },
      },
      async ({ app }, elicitation) => {
        // The body runs again from the top at every step of the task: the answers so far come back at once.
        const release = await elicitation.elicit(`Which version of ${app}?`, releaseForm);
        if (release.action !== 'accept') return { content: [{ type: 'text', text: 'Release cancelled' }] };
        const { version } = release.content;
        // An outside effect before a question goes in a step: it runs once, however often the body runs again.
        const ticket = await elicitation.step('open-ticket', ({ idempotencyKey }) => openTicket(app, version, idempotencyKey));
        const approval = await elicitation.requestUrl({ kind: 'confirm', message: `Release ${app} ${version} (ticket ${ticket.id})?` });
        if (approval.status !== 'completed') return { content: [{ type: 'text', text: 'Not approved' }] };
        await elicitation.step('publish', ({ idempotencyKey }) => publishRelease(app, version, idempotencyKey));
        return { content: [{ type: 'text', text: `Released ${app} ${version} (ticket ${ticket.id})` }] };
      },
    );
  }
}

/**
 * Your ticket system (here: made up). The key is the same for this step of this task on every run, so an API that
 * honours idempotency keys opens one ticket even if the instance died after sending the request.
 */
async function openTicket(app: string, version: string, idempotencyKey: string): Promise<{ id: string }> {
  return Promise.resolve({ id: `REL-${idempotencyKey.slice(0, 6)}`, app, version });
}

/** Your release step (here: nothing). */
async function publishRelease(app: string, version: string, idempotencyKey: string): Promise<void> {
  await Promise.resolve([app, version, idempotencyKey]);
}
