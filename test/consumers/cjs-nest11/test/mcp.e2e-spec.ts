import { Test, TestingModule } from '@nestjs/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  McpError,
  UrlElicitationRequiredError,
} from '@modelcontextprotocol/sdk/types.js';
import { McpServer as McpServerV2 } from '@modelcontextprotocol/server';
import { ElicitationModule, McpElicitation } from 'nestjs-mcp-elicitation';
import { z } from 'zod';

// Under Jest's CommonJS runtime the app gets the package's CommonJS build and the SDKs' CommonJS copies: the
// binding's -32042 must be the copy of the server in hand, or SDK 1.x turns it into a tool error.
describe('MCP binding in Jest (e2e)', () => {
  let moduleRef: TestingModule;
  let binding: McpElicitation;

  beforeEach(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [
        ElicitationModule.forRoot({
          baseUrl: 'http://localhost:3000',
          resolveMcpUser: () => 'alice',
        }),
      ],
    }).compile();
    await moduleRef.init();
    binding = moduleRef.get(McpElicitation);
  });

  afterEach(async () => {
    await moduleRef.close();
  });

  function register(server: McpServer | McpServerV2): void {
    binding.registerTool(
      server,
      'connect',
      { inputSchema: z.object({ service: z.string() }) },
      async ({ service }, elicitation) => {
        await elicitation.requireAnswer({
          kind: 'api-key',
          type: `api-key-${service}`,
          message: `Enter your ${service} API key.`,
        });
        return { content: [{ type: 'text' as const, text: 'connected' }] };
      },
    );
  }

  async function call(server: McpServer | McpServerV2): Promise<unknown> {
    const client = new Client(
      { name: 'c', version: '1.0.0' },
      { capabilities: { elicitation: { form: {}, url: {} } } },
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await Promise.all([
      server.connect(serverSide as never),
      client.connect(clientSide),
    ]);
    try {
      return await client
        .callTool({ name: 'connect', arguments: { service: 'github' } })
        .catch((error: unknown) => error);
    } finally {
      await client.close();
    }
  }

  it('SDK 1.x: a URL-capable client gets -32042 with the page URL, not a tool error', async () => {
    const server = new McpServer({ name: 'v1', version: '1.0.0' });
    register(server);
    const error = await call(server);
    expect(error).toBeInstanceOf(UrlElicitationRequiredError);
    expect((error as McpError).code).toBe(-32042);
    const [question] = (error as UrlElicitationRequiredError).elicitations;
    expect(question.url).toMatch(
      /^http:\/\/localhost:3000\/elicit\/[0-9a-f-]{36}\/api-key$/,
    );
  });

  it('SDK 2.x on a 2025-11-25 session: -32042 too', async () => {
    const server = new McpServerV2(
      { name: 'v2', version: '1.0.0' },
      { ...binding.serverOptions() },
    );
    register(server);
    const error = await call(server);
    expect((error as McpError).code).toBe(-32042);
  });
});
