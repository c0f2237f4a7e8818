// The README's MCP-Nest snippet (examples/readme/mcp-nest.module.ts, copied to src/readme/ by
// scripts/consumer-test.mjs), started as its `bootstrap()` does (MCP-Nest's documented main.ts) on PORT, with
// the browser login stand-in of mcp-apps.ts giving `req.user`. The CommonJS fixture's main.ts runs it when
// CONSUMER_APP is `mcp-nest`.
import { NestFactory } from '@nestjs/core';
import { browserLogin } from './mcp-apps.js';
import { AppModule, mcp } from './readme/mcp-nest.module.js';

export async function startMcpApp(): Promise<void> {
  const app = await NestFactory.create(AppModule);
  app.use(browserLogin);
  mcp.setHttpAdapter(app.getHttpAdapter());
  app.connectMicroservice({ strategy: mcp });
  await app.startAllMicroservices();
  await app.listen(process.env.PORT ?? 3000);
  // What the consumer test waits for: this app, not another on the same port, is listening.
  console.log(`listening on port ${process.env.PORT ?? 3000}`);
}
