import { Injectable } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/server'; // SDK 2.x; on SDK 1.x: '@modelcontextprotocol/sdk/server/mcp.js'
import { McpElicitation } from 'nestjs-mcp-elicitation';
import { z } from 'zod';

@Injectable()
export class Tools {
  constructor(private readonly elicitation: McpElicitation) {}

  register(server: McpServer) {
    this.elicitation.registerTool(
      server,
      'connect-service',
      { description: 'Connects a service with your API key', inputSchema: z.object({ service: z.string() }) },
      async ({ service }, elicitation) => {
        // The stored answer, or ask for it on the api-key page and resume once the user submitted it.
        await elicitation.requireAnswer({ kind: 'api-key', type: `api-key-${service}`, message: `Enter your ${service} API key.` });
        return { content: [{ type: 'text', text: `Connected to ${service}` }] };
      },
    );

    this.elicitation.registerTool(
      server,
      'approve-deploy',
      { inputSchema: z.object({ app: z.string() }) },
      async ({ app }, elicitation) => {
        const outcome = await elicitation.requestUrl({ kind: 'confirm', message: `Deploy ${app}?`, metadata: { confirmLabel: 'Deploy' } });
        return { content: [{ type: 'text', text: outcome.status === 'completed' ? `Deployed ${app}` : 'Deployment cancelled' }] };
      },
    );
  }

  /** A server with the tools (SDK 2.x: one per request, or one per 2025-11-25 session). */
  createServer(): McpServer {
    const server = new McpServer({ name: 'my-app', version: '1.0.0' }, { ...this.elicitation.serverOptions() });
    this.register(server);
    return server;
  }
}
