import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';

async function bootstrap() {
  // The consumer test's MCP apps (scripts/consumer-test.mjs copies src/mcp-apps.ts and the README's controllers
  // in before it builds them): CONSUMER_APP names the one to start, through this same `node dist/main.js`.
  const mcpApp = process.env.CONSUMER_APP;
  if (mcpApp) {
    const entry = mcpApp === 'mcp-nest' ? './mcp-nest-app' : './mcp-apps';
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const apps = require(entry) as { startMcpApp(name: string): Promise<void> };
    return apps.startMcpApp(mcpApp);
  }
  const app = await NestFactory.create(AppModule);
  await app.listen(process.env.PORT ?? 3000);
  // What the consumer test waits for: this app, not another on the same port, is listening.
  console.log(`listening on port ${process.env.PORT ?? 3000}`);
}
bootstrap();
