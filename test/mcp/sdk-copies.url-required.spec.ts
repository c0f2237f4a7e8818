/**
 * The -32042 error's message, on the wire and as the client shows it. SDK 1.x's `McpError` writes
 * `MCP error <code>: ` into its own `message`, its server sends that `message` as it is, and its client prefixes it
 * again on receipt (modelcontextprotocol/typescript-sdk#2786): the binding's -32042 must carry the plain text on
 * the wire, so that the prefix shows once. SDK 2.x adds no prefix on either side.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport as InMemoryTransportV1 } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import { UrlElicitationRequiredError as UrlRequiredV1 } from '@modelcontextprotocol/sdk/types.js';
import {
  Client as ClientV2,
  InMemoryTransport as InMemoryTransportV2,
  UrlElicitationRequiredError as UrlRequiredV2,
} from '@modelcontextprotocol/client';
import { McpServer as McpServerV2 } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { McpElicitation } from '../../src/mcp/mcp-elicitation.js';
import { compileElicitation } from '../support/testing-module.js';

/**
 * The binding's own text when `throwRequired` is given none (what `requireAnswer` sends): the page and what it is
 * for, readable by a person where a client shows the message only.
 */
const defaultText = (url: string) => `Open this page to continue: ${url} (Enter your github API key.)`;

/** A JSON-RPC message as the server's transport sent it. */
interface Sent {
  id?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** The server side of a linked pair, recording every message the server sends. */
function recorded<T extends { send(message: never, options?: never): Promise<void> }>(transport: T): { transport: T; sent: Sent[] } {
  const sent: Sent[] = [];
  const send = transport.send.bind(transport) as (message: unknown, options?: unknown) => Promise<void>;
  (transport as { send: unknown }).send = (message: unknown, options?: unknown) => {
    sent.push(structuredClone(message) as Sent);
    return send(message, options);
  };
  return { transport, sent };
}

/** The one error response the server sent. */
function wireError(sent: Sent[]): { code: number; message: string } {
  const errors = sent.filter((m) => m.error);
  expect(errors).toHaveLength(1);
  return errors[0].error!;
}

describe('the -32042 message, on the wire and at the client', () => {
  let ref: TestingModule;
  let binding: McpElicitation;

  beforeEach(async () => {
    ref = await compileElicitation({ resolveMcpUser: () => 'alice' });
    binding = ref.get(McpElicitation);
  });
  afterEach(async () => {
    await ref.close();
  });

  /** A tool asking for an API key on a page: `requireAnswer`, the -32042 with the binding's own text. */
  function register(server: McpServerV1 | McpServerV2) {
    binding.registerTool(server, 'connect', { inputSchema: z.object({ service: z.string() }) }, async ({ service }, el) => {
      await el.requireAnswer({ kind: 'api-key', type: `api-key-${service}`, message: `Enter your ${service} API key.` });
      return { content: [{ type: 'text' as const, text: 'connected' }] };
    });
  }

  it('SDK 1.x server and client: the wire carries the plain text, the client shows "MCP error -32042: " once', async () => {
    const server = new McpServerV1({ name: 'v1', version: '1.0.0' });
    register(server);
    // A plain SDK handler with a text of its own (`forRequest(...).throwRequired`).
    server.registerTool('own-text', {}, async (extra) => {
      const push = binding.forRequest(server, extra);
      return push.throwRequired([await push.create({ kind: 'confirm', message: 'Deploy?' })], 'Approve the deploy in your browser.');
    });
    const client = new ClientV1({ name: 'c', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
    const [clientSide, serverSide] = InMemoryTransportV1.createLinkedPair();
    const { sent } = recorded(serverSide);
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);

    const error = await client.callTool({ name: 'connect', arguments: { service: 'github' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UrlRequiredV1);
    const url = (error as UrlRequiredV1).elicitations[0].url;
    expect(url).toMatch(/^https?:\/\/.+\/elicit\/[0-9a-f-]{36}\/api-key$/);
    expect(wireError(sent)).toMatchObject({ code: -32042, message: defaultText(url) });
    expect((error as UrlRequiredV1).message).toBe(`MCP error -32042: ${defaultText(url)}`);
    expect((error as UrlRequiredV1).elicitations).toHaveLength(1);

    sent.length = 0;
    const own = await client.callTool({ name: 'own-text', arguments: {} }).catch((e: unknown) => e);
    expect(wireError(sent)).toMatchObject({ code: -32042, message: 'Approve the deploy in your browser.' });
    expect((own as UrlRequiredV1).message).toBe('MCP error -32042: Approve the deploy in your browser.');
    await client.close();
  });

  it('SDK 2.x server and client on a 2025-11-25 session: the plain text on the wire and at the client', async () => {
    const server = new McpServerV2({ name: 'v2', version: '1.0.0' }, { ...binding.serverOptions() });
    register(server);
    const client = new ClientV2({ name: 'c', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
    const [clientSide, serverSide] = InMemoryTransportV2.createLinkedPair();
    const { sent } = recorded(serverSide);
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);

    const error = await client.callTool({ name: 'connect', arguments: { service: 'github' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UrlRequiredV2);
    const url = (error as UrlRequiredV2).elicitations[0].url;
    expect(wireError(sent)).toMatchObject({ code: -32042, message: defaultText(url) });
    expect((error as UrlRequiredV2).message).toBe(defaultText(url));
    await client.close();
  });
});
