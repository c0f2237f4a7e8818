/**
 * The MCP-Nest adapter's parts that need no MCP-Nest app: the error mapping (against MCP-Nest's own copy of the SDK,
 * loaded the way MCP-Nest loads it; that this copy is another class than the ES module build is pinned in a real
 * process by e2e/mcp/mcp-nest.e2e-spec.ts, since Jest resolves both to one), the default identity, and the wiring onto `@Tool()` controllers in a
 * real Nest app. The adapter end to end, and the MCP-Nest behaviours it relies on, are in e2e/mcp/mcp-nest.e2e-spec.ts.
 */
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from '@jest/globals';
import { Controller } from '@nestjs/common';
import { RpcException } from '@nestjs/microservices';
import { Test, type TestingModule } from '@nestjs/testing';
import { UrlElicitationRequiredError as EsmUrlElicitationRequiredError } from '@modelcontextprotocol/server';
import { ElicitationModule } from '../../src/module/elicitation.module.js';
import { ElicitationKeyError } from '../../src/errors/elicitation-key.error.js';
import { ElicitationNotAnsweredError } from '../../src/errors/elicitation-not-answered.error.js';
import { ElicitationShutdownError } from '../../src/errors/elicitation-shutdown.error.js';
import { ElicitationUnsupportedError } from '../../src/errors/elicitation-unsupported.error.js';
import { RequestStateError } from '../../src/errors/request-state.error.js';
import { McpNestElicitationInterceptor, McpNestElicitationModule, userFromRequest } from '../../src/mcp-nest/index.js';
import { toMcpNestError } from '../../src/mcp-nest/mcp-nest-errors.js';
import { sdkCopyOf } from '../../src/mcp/sdk-copies.js';
import type { McpNestContext } from '../../src/mcp-nest/mcp-nest.types.js';

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

describe('default identity: req.user', () => {
  const context = (user: unknown) => ({ getRawRequest: () => ({ user }) }) as unknown as McpNestContext;

  it('takes req.user.sub, then req.user.id (numbers as strings), else nothing', () => {
    expect(userFromRequest(context({ sub: 'alice', id: 'x' }))).toBe('alice');
    expect(userFromRequest(context({ id: 42 }))).toBe('42');
    expect(userFromRequest(context({ sub: '' }))).toBeUndefined();
    expect(userFromRequest(context(undefined))).toBeUndefined();
    expect(userFromRequest({ getRawRequest: () => undefined } as unknown as McpNestContext)).toBeUndefined();
  });
});

describe('wiring onto @Tool() controllers', () => {
  let ref: TestingModule | undefined;
  afterEach(async () => {
    await ref?.close();
    ref = undefined;
  });

  @Controller()
  class ToolController {
    deploy(): string {
      return 'deployed';
    }
  }
  // What MCP-Nest's @Tool() records on the method.
  Reflect.defineMetadata(
    'mcp:tool',
    { name: 'deploy' },
    Object.getOwnPropertyDescriptor(ToolController.prototype, 'deploy')!.value as object,
  );

  @Controller()
  class PlainController {
    index(): string {
      return 'ok';
    }
  }

  it('puts the interceptor first on controllers with @Tool() methods, once, and nowhere else', async () => {
    Reflect.defineMetadata('__interceptors__', ['existing'], ToolController);
    ref = await Test.createTestingModule({
      imports: [ElicitationModule.forRoot({ baseUrl: 'https://x.example', cleanupIntervalMs: 0 }), McpNestElicitationModule.forRoot()],
      controllers: [ToolController, PlainController],
    }).compile();
    const interceptor = ref.get(McpNestElicitationInterceptor);
    expect(Reflect.getMetadata('__interceptors__', ToolController)).toEqual([interceptor, 'existing']);
    expect(Reflect.getMetadata('__interceptors__', PlainController)).toBeUndefined();
  });

  it('refuses a resolveUser that is not a function', () => {
    expect(() => McpNestElicitationModule.forRoot({ resolveUser: 'req.user' as never })).toThrow(/resolveUser/);
  });
});
