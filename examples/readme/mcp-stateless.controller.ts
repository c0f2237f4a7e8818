// MCP at /mcp for protocol 2026-07-28 only: SDK 2.x (@modelcontextprotocol/server, @modelcontextprotocol/node),
// stateless (a fresh server per request, no sessions, any instance takes any retry). Express (Nest's default
// platform, which parses the JSON body). Start it with `(await NestFactory.create(McpStatelessModule)).listen(process.env.PORT ?? 3000)`.
// The bearer check and the page's user come from mcp-auth.ts: copy it beside this file.
import type { ServerResponse } from 'node:http';
import { All, Controller, Module, type OnApplicationShutdown, Req, Res } from '@nestjs/common';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { ElicitationModule, McpElicitation } from 'nestjs-mcp-elicitation';
import { z } from 'zod';
import { authenticate, type McpRequest, resolvePageUser, unauthorized } from './mcp-auth.js';

@Controller('mcp')
export class McpStatelessController implements OnApplicationShutdown {
  // legacy: 'reject': a 2025-11-25 client (initialize, sessions) gets an error instead of being served.
  private readonly handler = createMcpHandler(() => this.createServer(), { legacy: 'reject' });
  private readonly serve = toNodeHandler(this.handler);

  constructor(private readonly elicitation: McpElicitation) {}

  @All()
  async handle(@Req() req: McpRequest, @Res() res: ServerResponse): Promise<void> {
    if (!authenticate(req)) return unauthorized(res);
    await this.serve(req, res, req.body);
  }

  onApplicationShutdown(): Promise<void> {
    return this.handler.close();
  }

  private createServer(): McpServer {
    // serverOptions(): a tampered, expired, replayed or other user's requestState is refused before the tool runs.
    const server = new McpServer({ name: 'my-app', version: '1.0.0' }, { ...this.elicitation.serverOptions() });
    this.elicitation.registerTool(
      server,
      'approve-deploy',
      { description: 'Deploys an app once you confirm on a page', inputSchema: z.object({ app: z.string() }) },
      async ({ app }, elicitation) => {
        // The call answers input_required (the page's URL); the client retries until the page is answered.
        const outcome = await elicitation.requestUrl({ kind: 'confirm', message: `Deploy ${app}?`, metadata: { confirmLabel: 'Deploy' } });
        return { content: [{ type: 'text', text: outcome.status === 'completed' ? `Deployed ${app}` : 'Deployment cancelled' }] };
      },
    );
    return server;
  }
}

@Module({
  imports: [
    ElicitationModule.forRoot({
      baseUrl: process.env.PUBLIC_URL ?? `http://localhost:${process.env.PORT ?? 3000}`, // the public origin browsers use
      resolvePageUser, // the page's user: req.user.id, set by your browser login
    }),
  ],
  controllers: [McpStatelessController],
})
export class McpStatelessModule {}
