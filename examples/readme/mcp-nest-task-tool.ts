// A tool of an MCP-Nest app that runs as an MCP task (beside approve-deploy in examples/readme/mcp-nest.module.ts).
import { Ctx, Payload } from '@nestjs/microservices';
import { McpController, Tool } from '@rekog/mcp-nest';
import { z } from 'zod';
import { defineForm, type TaskContext, type ToolElicitation } from 'nestjs-mcp-elicitation';
import { Elicitation } from 'nestjs-mcp-elicitation/mcp-nest';

const releaseForm = defineForm({
  type: 'object',
  properties: { version: { type: 'string', title: 'Version', minLength: 5, maxLength: 20 } },
  required: ['version'],
});

@McpController()
export class ReleaseTools {
  @Tool({
    name: 'plan-release',
    description: 'Plans a release; waits for your answers as long as you need',
    parameters: z.object({ app: z.string() }),
  })
  async planRelease(
    @Payload() { app }: { app: string },
    // A task when the client declares the extension; a plain call otherwise ('required' refuses those, -32021).
    @Elicitation({ execution: { taskSupport: 'optional' } }) elicitation: ToolElicitation,
    // In a task: { task: { taskId, signal } } (every run happens after the call has answered).
    @Ctx() context: TaskContext | object,
  ) {
    const release = await elicitation.elicit(`Which version of ${app}?`, releaseForm);
    if (release.action !== 'accept') return { content: [{ type: 'text', text: 'Release cancelled' }] };
    // The method runs again from the top at every step of the task: an outside effect goes in a step, run once.
    const ticket = await elicitation.step('open-ticket', ({ idempotencyKey }) => ({ id: `REL-${idempotencyKey.slice(0, 6)}` }));
    const approval = await elicitation.requestUrl({ kind: 'confirm', message: `Release ${app} ${release.content.version}?` });
    if (approval.status !== 'completed') return { content: [{ type: 'text', text: 'Not approved' }] };
    const taskId = 'task' in context ? context.task.taskId : 'a plain call';
    return { content: [{ type: 'text', text: `Released ${app} ${release.content.version} (${taskId}, ticket ${ticket.id})` }] };
  }
}
