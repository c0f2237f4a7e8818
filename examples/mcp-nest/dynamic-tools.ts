import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { McpStrategy } from '@rekog/mcp-nest';
import type { z } from 'zod';
import { McpNestElicitationInterceptor } from '../../src/mcp-nest/index.js';
import { connectService, DEMO_TOOLS } from '../demo/demo-tools.service.js';

const connect = DEMO_TOOLS.find((t) => t.name === 'connect-service')!;

/**
 * A tool registered at run time (`strategy.registerTool`), which MCP-Nest calls outside Nest's pipeline: its handler
 * is wrapped in `interceptor.dynamicTool(...)`, as the README says ("Dynamic tools"), and its body is connect-service's.
 */
@Injectable()
export class DemoDynamicTools implements OnModuleInit {
  constructor(
    @Inject('MCP_STRATEGY') private readonly strategy: McpStrategy,
    private readonly interceptor: McpNestElicitationInterceptor,
  ) {}

  onModuleInit(): void {
    this.strategy.registerTool({
      name: 'connect-service-dynamic',
      description: `${connect.description} (Registered at run time.)`,
      parameters: connectService,
      handler: this.interceptor.dynamicTool('connect-service-dynamic', async (args: z.infer<typeof connectService>, elicitation) => {
        await elicitation.requireAnswer({
          kind: 'api-key',
          type: `api-key-${args.service}`,
          message: `Enter your ${args.service} API key so the assistant can connect to ${args.service} for you.`,
          metadata: { service: args.service },
        });
        return { content: [{ type: 'text' as const, text: `Connected to ${args.service} (dynamic tool)` }] };
      }),
    });
  }
}
