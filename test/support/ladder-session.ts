/**
 * A real SDK 1.x McpServer whose `deploy` tool is registered through the binding, and real SDK 1.x clients linked to it
 * in process (2025-11-25), each with the capabilities, name, version and extensions a test gives it: the ladder's specs.
 */
import type { TestingModule } from '@nestjs/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { McpElicitation } from '../../src/mcp/mcp-elicitation.js';
import type { ToolElicitation } from '../../src/mcp/tool-elicitation.js';
import { compileElicitation } from './testing-module.js';

export type LadderHandler = (args: { app: string }, el: ToolElicitation) => Promise<string>;
export type LadderAnswer = (params: ElicitRequest['params']) => ElicitResult | Promise<ElicitResult>;

/** Who a client says it is, beyond its name. */
export interface LadderClientInfo {
  version?: string;
  /** Declared in `capabilities.extensions`. */
  extensions?: Record<string, object>;
}

/** The module, its service and `connect` for clients of `caps` (`null`: no elicitation); `close` stops all. */
export async function ladderSession(
  caps: Record<string, object> | null,
  handler: LadderHandler,
  options: Partial<ElicitationModuleOptions> = {},
  user = 'alice',
) {
  const ref: TestingModule = await compileElicitation({ pendingRetryWaitMs: 50, ...options });
  const clients: Client[] = [];
  const binding = ref.get(McpElicitation);
  const service = ref.get(ElicitationService);
  const connect = async (
    answer: LadderAnswer = () => ({ action: 'decline' }),
    as = user,
    name = 'test-client',
    info: LadderClientInfo = {},
  ) => {
    const capabilities = { ...(caps && { elicitation: caps }), ...(info.extensions && { extensions: info.extensions }) };
    const client = new Client({ name, version: info.version ?? '9.1' }, { capabilities });
    if (caps) client.setRequestHandler(ElicitRequestSchema, ({ params }) => answer(params));
    const [a, b] = InMemoryTransport.createLinkedPair();
    const session = new McpServer({ name: 'ladder', version: '1.0.0' });
    binding.registerTool(session, 'deploy', { inputSchema: z.object({ app: z.string() }) }, (args: { app: string }, el) =>
      handler(args, el).then((t) => ({ content: [{ type: 'text' as const, text: t }] })),
    );
    const auth = { token: 't', clientId: as, scopes: [] };
    // The in-memory transport carries authInfo on each message, as an HTTP transport would.
    const send = b.send.bind(b);
    b.send = (message, opts) => send(message, { ...opts, authInfo: auth });
    await Promise.all([session.connect(a), client.connect(b)]);
    clients.push(client);
    return client;
  };
  const close = async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await ref.close();
  };
  return { ref, binding, service, connect, close };
}
