import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Payload } from '@nestjs/microservices';
import { McpController, McpStrategy, StreamableHttpTransport, Tool } from '@rekog/mcp-nest';
import { z } from 'zod';
import { ElicitationModule, type ToolElicitation } from 'nestjs-mcp-elicitation';
import { Elicitation, McpNestElicitationModule } from 'nestjs-mcp-elicitation/mcp-nest';

@McpController()
export class DeployTools {
  @Tool({ name: 'approve-deploy', description: 'Deploys after you confirm', parameters: z.object({ app: z.string() }) })
  async approve(@Payload() { app }: { app: string }, @Elicitation() elicitation: ToolElicitation) {
    const outcome = await elicitation.requestUrl({ kind: 'confirm', message: `Deploy ${app}?` });
    return { content: [{ type: 'text', text: outcome.status === 'completed' ? `Deployed ${app}` : 'Deployment cancelled' }] };
  }
}

export const mcp = new McpStrategy({
  name: 'my-server',
  version: '1.0.0',
  // statefulMode: 2025-11-25 clients get URL and form mode only on sessions (2026-07-28 needs none).
  transports: [new StreamableHttpTransport({ statefulMode: true })],
});

@Module({
  imports: [
    ElicitationModule.forRoot({ baseUrl: 'https://mcp.example.com', resolvePageUser: (req) => req.user?.id }),
    McpNestElicitationModule.forRoot(),
  ],
  controllers: [DeployTools],
  providers: [{ provide: 'MCP_STRATEGY', useValue: mcp }], // lets the adapter check statefulMode at start-up
})
export class AppModule {}

// main.ts, as MCP-Nest documents it
export async function bootstrap() {
  const app = await NestFactory.create(AppModule);
  mcp.setHttpAdapter(app.getHttpAdapter());
  app.connectMicroservice({ strategy: mcp });
  await app.startAllMicroservices();
  await app.listen(3000);
}
