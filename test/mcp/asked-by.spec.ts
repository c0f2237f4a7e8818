/**
 * What asked (#43): a page a tool's question creates carries the tool's and the client's names in its metadata (`askedBy`), for the
 * inbox and the notifications, on 2025-11-25 (the pushed URL request) and on the link rung. Real SDK 1.x client and
 * server over an in-memory transport.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { McpElicitation } from '../../src/mcp/mcp-elicitation.js';
import { ElicitationStore } from '../../src/stores/elicitation-store.js';
import { compileElicitation } from '../support/testing-module.js';

const modules: TestingModule[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(modules.splice(0).map((m) => m.close()));
});

async function serve(caps: Record<string, object> | undefined, metadata?: Record<string, unknown>) {
  const ref = await compileElicitation({ resolveMcpUser: () => 'alice' });
  modules.push(ref);
  const server = new McpServer({ name: 'ops', version: '1.0.0' });
  ref.get(McpElicitation).registerTool(server, 'drop-table', { inputSchema: z.object({ table: z.string() }) }, async ({ table }, el) => {
    const outcome = await el.requestUrl({ kind: 'confirm', type: 'drop', message: `Drop ${table}?`, ...(metadata && { metadata }) });
    return { content: [{ type: 'text' as const, text: outcome.status }] };
  });
  const asked: string[] = [];
  const client = new Client({ name: 'ops-client', version: '1.0.0' }, { capabilities: caps ? { elicitation: caps } : {} });
  if (caps)
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      const id = (request.params as { elicitationId?: string }).elicitationId;
      if (id) asked.push(id);
      return Promise.resolve({ action: 'accept' as const });
    });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
  clients.push(client);
  return { ref, client, asked, store: ref.get(ElicitationStore), service: ref.get(ElicitationService) };
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
};

describe('askedBy', () => {
  it('a pushed URL question carries the tool that asked', async () => {
    const { client, asked, store, service } = await serve({ url: {} });
    const call = client.callTool({ name: 'drop-table', arguments: { table: 'users' } });
    await until(() => asked.length === 1);
    const record = await store.get(asked[0], Date.now());
    expect(record?.metadata).toEqual({ askedBy: { tool: 'drop-table', client: 'ops-client' } });
    await service.complete(asked[0], { confirmed: true });
    await call;
  });

  it('a question on the link rung carries it too; an app that sets askedBy itself keeps its own', async () => {
    const { client, store } = await serve(undefined);
    await client.callTool({ name: 'drop-table', arguments: { table: 'orders' } });
    const [record] = await store.listByUser('alice', Date.now());
    expect(record.metadata).toEqual({ askedBy: { tool: 'drop-table', client: 'ops-client' } });

    const own = await serve(undefined, { askedBy: { tool: 'ops-console', client: 'web' } });
    await own.client.callTool({ name: 'drop-table', arguments: { table: 'orders' } });
    const [kept] = await own.store.listByUser('alice', Date.now());
    expect(kept.metadata).toEqual({ askedBy: { tool: 'ops-console', client: 'web' } });
  });
});
