/**
 * Which copy of an SDK the binding takes its classes from. An app may hold two copies of one SDK line: the
 * CommonJS build its own `require` loads and the ES module build an `import` loads (a CommonJS Nest app that loads
 * this package's ES module build through `require(esm)`). SDK 1.x's `McpServer` lets -32042 through only for
 * `instanceof McpError` of its own copy, and turns any other error into a tool error: so each server must get the
 * errors of its own copy. Here both copies are real: Jest's `import` gives one, Node's `require` (`createRequire`)
 * the other, and a real SDK client calls a real server of each over an in-memory transport of its own copy.
 */
import { createRequire } from 'node:module';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import * as esmSdk1Types from '@modelcontextprotocol/sdk/types.js';
import { McpServer as EsmMcpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client as EsmClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport as EsmInMemoryV1 } from '@modelcontextprotocol/sdk/inMemory.js';
import * as esmSdk2Server from '@modelcontextprotocol/server';
import * as esmSdk2Client from '@modelcontextprotocol/client';
import { z } from 'zod';
import { McpElicitation } from '../../src/mcp/mcp-elicitation.js';
import { requiredSdkCopies, sdkCopyOf } from '../../src/mcp/sdk/sdk-copies.js';
import { McpSdkLoader } from '../../src/mcp/sdk/sdk-loader.js';
import { compileElicitation } from '../support/testing-module.js';

const require = createRequire(import.meta.url);

/** SDK 1.x as a CommonJS app `require`s it: another copy than the one Jest's `import` gives. */
const cjsV1 = {
  types: require('@modelcontextprotocol/sdk/types.js') as typeof esmSdk1Types,
  McpServer: (require('@modelcontextprotocol/sdk/server/mcp.js') as { McpServer: typeof EsmMcpServerV1 }).McpServer,
  Client: (require('@modelcontextprotocol/sdk/client/index.js') as { Client: typeof EsmClientV1 }).Client,
  InMemoryTransport: (require('@modelcontextprotocol/sdk/inMemory.js') as { InMemoryTransport: typeof EsmInMemoryV1 }).InMemoryTransport,
};
/** SDK 2.x as a CommonJS app `require`s it. */
const cjsV2 = {
  server: require('@modelcontextprotocol/server') as typeof esmSdk2Server,
  client: require('@modelcontextprotocol/client') as typeof esmSdk2Client,
};

/** The one JSON-RPC error, or the tool result, a call answered. */
async function callOutcome(client: { callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown> }) {
  try {
    return { result: await client.callTool({ name: 'connect', arguments: { service: 'github' } }) };
  } catch (error) {
    return { error: error as Error & { code?: number; elicitations?: unknown[] } };
  }
}

describe('the SDK copy a server belongs to', () => {
  let ref: TestingModule;
  let binding: McpElicitation;
  let loader: McpSdkLoader;

  beforeEach(async () => {
    ref = await compileElicitation({ resolveMcpUser: () => 'alice' });
    binding = ref.get(McpElicitation);
    loader = ref.get(McpSdkLoader);
  });
  afterEach(async () => {
    await ref.close();
  });

  /** A tool that needs an API key on a page: `requireAnswer` answers -32042 to a URL-capable client. */
  function register(server: EsmMcpServerV1 | esmSdk2Server.McpServer) {
    binding.registerTool(server, 'connect', { inputSchema: z.object({ service: z.string() }) }, async ({ service }, el) => {
      await el.requireAnswer({ kind: 'api-key', type: `api-key-${service}`, message: `Enter your ${service} API key.` });
      return { content: [{ type: 'text' as const, text: 'connected' }] };
    });
  }

  it('the two copies are really two: the test would prove nothing otherwise', () => {
    expect(cjsV1.types.McpError).not.toBe(esmSdk1Types.McpError);
    expect(cjsV2.server.ProtocolError).not.toBe(esmSdk2Server.ProtocolError);
  });

  it.each([
    ['CommonJS', cjsV1.McpServer, cjsV1.Client, cjsV1.InMemoryTransport, cjsV1.types],
    ['ES module', EsmMcpServerV1, EsmClientV1, EsmInMemoryV1, esmSdk1Types],
  ] as const)(
    'SDK 1.x %s copy: a URL-capable client gets -32042 with the URL, not a tool error',
    async (_, McpServer, Client, Transport, types) => {
      const server = new McpServer({ name: 'v1', version: '1.0.0' });
      register(server);
      const client = new Client({ name: 'c', version: '1.0.0' }, { capabilities: { elicitation: { form: {}, url: {} } } });
      const [clientSide, serverSide] = Transport.createLinkedPair();
      await Promise.all([server.connect(serverSide), client.connect(clientSide)]);

      const { result, error } = await callOutcome(client);
      expect(result).toBeUndefined();
      expect(error).toBeInstanceOf(types.UrlElicitationRequiredError);
      expect(error?.code).toBe(-32042);
      expect(error?.elicitations).toEqual([
        expect.objectContaining({
          mode: 'url',
          url: expect.stringMatching(/^https:\/\/mcp\.example\.com\/elicit\/[0-9a-f-]{36}\/api-key$/),
        }),
      ]);
      // The error class the binding used is the server's own copy's.
      const copy = loader.copyFor(server, '1.x');
      expect(new copy.UrlElicitationRequiredError([], 'x')).toBeInstanceOf(types.McpError);
      expect(new copy.ProtocolError(-32602, 'x')).toBeInstanceOf(types.McpError);
      await client.close();
    },
  );

  it.each([
    ['CommonJS', cjsV2.server, cjsV2.client],
    ['ES module', esmSdk2Server, esmSdk2Client],
  ] as const)('SDK 2.x %s copy on a 2025-11-25 session: -32042 of its own copy', async (_, serverSdk, clientSdk) => {
    const server = new serverSdk.McpServer({ name: 'v2', version: '1.0.0' }, { ...binding.serverOptions() });
    register(server);
    const client = new clientSdk.Client({ name: 'c', version: '1.0.0' }, { capabilities: { elicitation: { form: {}, url: {} } } });
    const [clientSide, serverSide] = serverSdk.InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(serverSide), client.connect(clientSide as never)]);

    const { error } = await callOutcome(client);
    expect(error?.code).toBe(-32042);
    const copy = loader.copyFor(server, '2.x');
    expect(copy.ProtocolError).toBe(serverSdk.ProtocolError);
    expect(new copy.UrlElicitationRequiredError([], 'x')).toBeInstanceOf(serverSdk.UrlElicitationRequiredError);
    await client.close();
  });

  it("finds a CommonJS copy in Node's module cache, wherever it is installed, and reads nothing new", () => {
    const copies = requiredSdkCopies();
    expect(
      copies.some(
        (c) => c.line === '1.x' && c.Server === (require('@modelcontextprotocol/sdk/server/index.js') as { Server: unknown }).Server,
      ),
    ).toBe(true);
    expect(copies.some((c) => c.line === '2.x' && c.ProtocolError === cjsV2.server.ProtocolError)).toBe(true);
    // Files of a package the process never required are not read.
    expect(requiredSdkCopies({ '/app/node_modules/left-pad/index.js': {} })).toEqual([]);
  });

  it('a server of no loaded copy (a stand-in) gets the imported copy of its line', () => {
    const standIn = { server: { getClientCapabilities: () => undefined } } as never;
    expect(loader.copyFor(standIn, '1.x').ProtocolError).toBe(esmSdk1Types.McpError);
    expect(loader.copyFor(standIn, '2.x').ProtocolError).toBe(esmSdk2Server.ProtocolError);
  });

  it('SDK 1.x -32042 carries its plain text (its client adds the prefix once)', () => {
    const copy = sdkCopyOf('1.x', cjsV1.types, cjsV1.types);
    expect(copy).toBeUndefined(); // types.js has no Server: both entries are needed
    const full = sdkCopyOf('1.x', require('@modelcontextprotocol/sdk/server/index.js') as never, cjsV1.types)!;
    expect(new full.UrlElicitationRequiredError([], 'Open the page.').message).toBe('Open the page.');
  });
});
