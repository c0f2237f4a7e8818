/**
 * The errors a tool throws, as MCP-Nest must receive them (`toMcpNestError`), against MCP-Nest's own copy of the SDK,
 * loaded the way MCP-Nest loads it: that this copy is another class than the ES module build is pinned in a real
 * process by e2e/mcp/mcp-nest.e2e-spec.ts, since Jest resolves both to one. The adapter end to end, and the MCP-Nest
 * behaviours it relies on, are in e2e/mcp/mcp-nest.e2e-spec.ts.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from '@jest/globals';
import { RpcException } from '@nestjs/microservices';
import { UrlElicitationRequiredError as EsmUrlElicitationRequiredError } from '@modelcontextprotocol/server';
import { ElicitationKeyError } from '../../src/errors/elicitation-key.error.js';
import { ElicitationNotAnsweredError } from '../../src/errors/elicitation-not-answered.error.js';
import { ElicitationShutdownError } from '../../src/errors/elicitation-shutdown.error.js';
import { ElicitationUnsupportedError } from '../../src/errors/elicitation-unsupported.error.js';
import { RequestStateError } from '../../src/errors/request-state.error.js';
import { toMcpNestError } from '../../src/mcp-nest/mcp-nest-errors.js';
import { sdkCopyOf } from '../../src/mcp/sdk/sdk-copies.js';

/** `@modelcontextprotocol/server` as MCP-Nest (CommonJS) requires it. */
const mcpNestSdk = createRequire(createRequire(import.meta.url).resolve('@rekog/mcp-nest'))('@modelcontextprotocol/server') as {
  ProtocolError: new (...args: never[]) => Error;
  UrlElicitationRequiredError: new (...args: never[]) => Error;
};
/** That copy as `McpSdkLoader.copyFor` gives it for MCP-Nest's server. */
const copy = sdkCopyOf('2.x', mcpNestSdk, mcpNestSdk)!;

describe('errors as MCP-Nest must receive them', () => {
  it("-32042 is rebuilt from MCP-Nest's copy, with the same elicitations, inside an RpcException", () => {
    const elicitations = [{ mode: 'url' as const, elicitationId: 'e-1', url: 'https://x.example/elicit/e-1/api-key', message: 'Key?' }];
    const mapped = toMcpNestError(new EsmUrlElicitationRequiredError(elicitations, 'needs input'), copy);
    expect(mapped).toBeInstanceOf(RpcException);
    const inner = (mapped as RpcException).getError();
    expect(inner).toBeInstanceOf(mcpNestSdk.UrlElicitationRequiredError);
    expect(inner).toMatchObject({ code: -32042, data: { elicitations } });
  });

  it("a refused requestState is a JSON-RPC invalid-params error (-32602) of MCP-Nest's copy, with the generic message", () => {
    const inner = (toMcpNestError(new RequestStateError('tampered'), copy) as RpcException).getError();
    expect(inner).toBeInstanceOf(mcpNestSdk.ProtocolError);
    expect(inner).toMatchObject({ code: -32602 });
    expect((inner as Error).message).toContain('Invalid or expired requestState');
    expect((inner as Error).message).not.toContain('tampered');
  });

  it("the library's readable errors become tool errors with their message; other errors pass unchanged", () => {
    for (const error of [
      new ElicitationUnsupportedError('url'),
      new ElicitationNotAnsweredError('declined'),
      // The app shuts down while the tool waits on a question.
      new ElicitationShutdownError('8f14e45f-ceea-4e7a-9f6b-2c1d3e4f5a6b'),
      // Another instance sealed the answer under a key this one lacks: the message names key ids and encryptionKey.
      new ElicitationKeyError('0a1b2c3d', ['4e5f6a7b']),
    ]) {
      const mapped = toMcpNestError(error, copy);
      expect(mapped).toBeInstanceOf(RpcException);
      expect((mapped as RpcException).getError()).toBe(error.message);
    }
    const own = new Error('boom');
    expect(toMcpNestError(own, copy)).toBe(own);
  });
});
