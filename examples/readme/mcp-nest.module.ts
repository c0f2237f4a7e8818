// src/app.module.ts and src/main.ts of an MCP-Nest app (MCP at /mcp), in one file here.
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Payload } from '@nestjs/microservices';
import { McpController, McpStrategy, StreamableHttpTransport, Tool } from '@rekog/mcp-nest';
import { z } from 'zod';
import { ElicitationModule, type ToolElicitation } from 'nestjs-mcp-elicitation';
import { Elicitation, McpNestElicitationModule } from 'nestjs-mcp-elicitation/mcp-nest';

/** What your auth puts on the request (MCP-Nest's auth guards and Passport set `req.user`). */
interface SignedInRequest {
  user?: { id?: string };
}

/** DEVELOPMENT ONLY: without a login, everyone is "dev-user" outside production. Delete the fallback once you have one. */
function currentUser(req: SignedInRequest | undefined): string | undefined {
  if (req?.user?.id) return req.user.id;
  return process.env.NODE_ENV === 'production' ? undefined : 'dev-user'; // DEVELOPMENT ONLY
}

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
    ElicitationModule.forRoot({
      baseUrl: process.env.PUBLIC_URL ?? `http://localhost:${process.env.PORT ?? 3000}`, // the origin browsers use
      resolvePageUser: (req: SignedInRequest) => currentUser(req), // who opened a page
    }),
    // Who makes a tool call (without resolveUser: req.user.sub, then req.user.id).
    McpNestElicitationModule.forRoot({ resolveUser: (context) => currentUser(context.getRawRequest<SignedInRequest>()) }),
  ],
  controllers: [DeployTools],
  providers: [{ provide: 'MCP_STRATEGY', useValue: mcp }], // lets the adapter check statefulMode at start-up
})
export class AppModule {}

// src/main.ts, as MCP-Nest documents it
export async function bootstrap() {
  const app = await NestFactory.create(AppModule);
  mcp.setHttpAdapter(app.getHttpAdapter());
  app.connectMicroservice({ strategy: mcp });
  await app.startAllMicroservices();
  await app.listen(process.env.PORT ?? 3000);
}
