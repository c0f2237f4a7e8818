/**
 * Starts the MCP-Nest pins app (`pins-app.ts`) for e2e/mcp/mcp-nest.e2e-spec.ts: `HOST`, `PORT`. The ready line
 * matches what `startDemoProcess` (examples/demo/demo-process.ts) waits for.
 */
import { startPinsApp } from './pins-app.js';

const { mcpUrl } = await startPinsApp({ host: process.env.HOST || '127.0.0.1', port: process.env.PORT ? Number(process.env.PORT) : 0 });

console.log(`\nMCP elicitation demo pins app (raw @rekog/mcp-nest, no McpNestElicitationModule) ready: ${mcpUrl}`);
