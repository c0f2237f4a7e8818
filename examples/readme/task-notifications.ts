// notifications/tasks for clients that listen: the SDK 2.x handler of your MCP route, wrapped once.
import type { ServerResponse } from 'node:http';
import { All, Controller, Req, Res } from '@nestjs/common';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { McpElicitation, McpTaskNotifications } from 'nestjs-mcp-elicitation';
import { authenticate, type McpRequest, unauthorized } from './mcp-auth.js';

@Controller('mcp')
export class McpTasksController {
  private readonly serve;

  constructor(
    private readonly elicitation: McpElicitation,
    taskNotifications: McpTaskNotifications,
  ) {
    // A subscriptions/listen naming task ids is served by the module; every other request by the SDK's handler.
    this.serve = toNodeHandler(taskNotifications.handler(createMcpHandler(() => this.createServer(), { legacy: 'reject' })));
  }

  @All()
  async handle(@Req() req: McpRequest, @Res() res: ServerResponse): Promise<void> {
    if (!authenticate(req)) return unauthorized(res);
    await this.serve(req, res, req.body);
  }

  private createServer(): McpServer {
    const server = new McpServer({ name: 'my-app', version: '1.0.0' }, { ...this.elicitation.serverOptions() });
    // register your task tools here (examples/readme/task-tool.ts)
    return server;
  }
}
