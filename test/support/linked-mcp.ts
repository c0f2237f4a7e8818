import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ElicitationCompleteNotificationSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpElicitation } from '../../src/mcp/mcp-elicitation.js';
import type { PushToolElicitation as ToolElicitation } from '../../src/mcp/tool-elicitation.js';

export type Caps = Record<string, object> | undefined;

/**
 * A real SDK McpServer and Client linked in process. The `probe` tool hands its ToolElicitation to the
 * test, so the test can call the binding exactly as a tool would.
 */
export async function linked(binding: McpElicitation, elicitation: Caps, authUser: string | null = 'alice') {
  const server = new McpServer({ name: 'unit', version: '1.0.0' });
  let captured!: ToolElicitation;
  let action: (el: ToolElicitation) => Promise<unknown> = () => Promise.resolve(undefined);
  server.registerTool('probe', { description: 'test probe' }, async (extra) => {
    captured = binding.forRequest(server, { ...extra, authInfo: authUser ? { token: 't', clientId: authUser, scopes: [] } : undefined });
    const value = await action(captured);
    return { content: [{ type: 'text', text: JSON.stringify(value ?? null) }] };
  });
  const client = new Client({ name: 'c', version: '1' }, { capabilities: elicitation ? { elicitation } : {} });
  const notifications: string[] = [];
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => void notifications.push(n.params.elicitationId));
  if (elicitation) client.setRequestHandler(ElicitRequestSchema, () => Promise.resolve({ action: 'accept' as const }));
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
  return {
    server,
    client,
    notifications,
    /** Runs `fn` inside a real tools/call and returns the tool result or the thrown protocol error. */
    call: async (fn: (el: ToolElicitation) => Promise<unknown>) => {
      action = fn;
      const result = await client.callTool({ name: 'probe', arguments: {} });
      return { result, el: captured };
    },
  };
}
