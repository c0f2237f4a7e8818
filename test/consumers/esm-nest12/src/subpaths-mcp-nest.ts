// Type-checks an import of the `/mcp-nest` subpath (left out by the consumer test while the package does
// not export it yet).
import { Elicitation, McpNestElicitationModule } from 'nestjs-mcp-elicitation/mcp-nest';

export const mcpNestSubpath = [Elicitation, McpNestElicitationModule];
