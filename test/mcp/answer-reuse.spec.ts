/**
 * The answer-reuse rule of `requireAnswer`, one for both eras: a kept answer (the user's latest of the asked type)
 * is taken without asking, and the call that took it marks it used, so once the call finishes it is spent under its
 * `askKey` and the link rung never hands it to a later call as an answer of its own. On 2026-07-28 it always was;
 * here the 2025-11-25 (push) side, with a real SDK 1.x client and server.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { ELICITATION_RESOLVED_OPTIONS } from '../../src/options/elicitation.constants.js';
import type { ResolvedElicitationOptions } from '../../src/options/resolved-options.js';
import { McpElicitation } from '../../src/mcp/mcp-elicitation.js';
import { ElicitationStore } from '../../src/stores/elicitation-store.js';
import { compileElicitation } from '../support/testing-module.js';

describe('the answer-reuse rule on 2025-11-25', () => {
  let ref: TestingModule;

  beforeEach(async () => {
    ref = await compileElicitation({ resolveMcpUser: () => 'alice' });
  });
  afterEach(async () => {
    await ref.close();
  });

  it('a kept answer answers the call without asking, and is spent once the call finishes', async () => {
    const service = ref.get(ElicitationService);
    const { elicitationId } = await service.createUrlElicitation({
      kind: 'api-key',
      message: 'Key?',
      userId: 'alice',
      type: 'api-key-github',
    });
    expect((await service.complete(elicitationId, { apiKey: 'k-1' })).ok).toBe(true);

    const server = new McpServer({ name: 'v1', version: '1.0.0' });
    ref
      .get(McpElicitation)
      .registerTool(server, 'connect', { inputSchema: z.object({ service: z.string() }) }, async ({ service: name }, el) => {
        const { apiKey } = await el.requireAnswer<{ apiKey: string }>({ kind: 'api-key', type: `api-key-${name}`, message: 'Key?' });
        return { content: [{ type: 'text' as const, text: `connected with ${apiKey.length} characters` }] };
      });
    const client = new Client({ name: 'c', version: '1.0.0' }, { capabilities: { elicitation: { form: {}, url: {} } } });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);

    const store = ref.get(ElicitationStore);
    const record = (await store.get(elicitationId, Date.now()))!;
    // The spent marker's counter, read with the window and clock LinkedQuestions gives it (a record's life plus retention).
    const { ttlMs, retentionMs } = ref.get<ResolvedElicitationOptions>(ELICITATION_RESOLVED_OPTIONS);
    const spentHits = () => store.peekHits!(`asked-spent:${elicitationId}`, ttlMs + retentionMs, record.expiresAt + retentionMs);
    expect(await spentHits()).toBe(0);

    const result = await client.callTool({ name: 'connect', arguments: { service: 'github' } });
    expect(result.content).toEqual([{ type: 'text', text: 'connected with 3 characters' }]);
    expect(await spentHits()).toBe(1);
    await client.close();
  });
});
