/**
 * Runs the README's MCP-Nest snippet (`examples/readme/mcp-nest.module.ts`) as pasted, as its own process, for
 * e2e/docs/mcp-nest-readme.e2e-spec.ts: its `bootstrap()` with the environment it reads (`PORT`, `PUBLIC_URL`), the
 * package name resolved to the compiled sources (`package-alias.hooks.ts`). Prints the ready line
 * `startDemoProcess` (examples/demo/demo-process.ts) waits for.
 */
import { register } from 'node:module';

register('./package-alias.hooks.js', import.meta.url);
const { bootstrap } = await import('../readme/mcp-nest.module.js');
await bootstrap();
console.log(`\nMCP elicitation demo (README MCP-Nest snippet) ready on port ${process.env.PORT ?? 3000}`);
