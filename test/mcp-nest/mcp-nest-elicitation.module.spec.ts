/**
 * `McpNestElicitationModule`: its options checked at `forRoot`, and the adapter's interceptor put onto `@Tool()`
 * controllers (`mcp-nest-tool-wiring.ts`) in a real Nest app (no MCP-Nest needed: the test records the metadata
 * MCP-Nest's `@Tool()` records).
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { Controller } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { ElicitationModule } from '../../src/module/elicitation.module.js';
import { McpNestElicitationInterceptor, McpNestElicitationModule } from '../../src/mcp-nest/index.js';

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
