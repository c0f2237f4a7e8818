/**
 * A raw `@rekog/mcp-nest` 2.x app (McpStrategy + StreamableHttpTransport with `statefulMode: true`, and NO
 * `McpNestElicitationModule`) whose tools let e2e/mcp/mcp-nest.e2e-spec.ts observe, over HTTP, the MCP-Nest
 * behaviours the adapter (`src/mcp-nest`) relies on, so that an MCP-Nest upgrade that changes one fails a test
 * naming it:
 * - the context slot: `@Ctx()` is an `McpContext` whose `getArgByIndex(4)` is the SDK's per-request context and
 *   `getRawRequest()` the HTTP request (`pin-context`);
 * - result pass-through: a result with a `content` array is returned as it is, one without is JSON-stringified
 *   into a text block (`pin-result`);
 * - error rethrow: only a `ProtocolError` inside an `RpcException` becomes a JSON-RPC error (MCP-Nest's own class, or
 *   one carrying its brand); any other error becomes a tool error, "Internal server error" unless it is an
 *   `RpcException` (`pin-throw`);
 * - what the start-up wiring needs: `@Tool()` metadata under `mcp:tool`, an interceptor put on a controller
 *   class while the app is created runs around its tool calls in Nest's `rpc` context, and the strategy provided
 *   under `MCP_STRATEGY` exposes its transports' `statefulMode` (`pin-interceptor`, `pin-strategy`);
 * - and `@Elicitation()` used without the module (`pin-elicitation-unwired`): a readable error naming it.
 *
 * Jest cannot load MCP-Nest in process (it is CommonJS and `require`s the ESM-only Nest 12), so the tests run
 * this app compiled (`npm run build:demo`), as its own process (`pins-main.ts`).
 */
import 'reflect-metadata';
import { IncomingMessage, type Server } from 'node:http';
import { createRequire } from 'node:module';
import {
  type CallHandler,
  type ExecutionContext,
  Inject,
  type INestApplication,
  Injectable,
  type LoggerService,
  type LogLevel,
  Module,
  type NestInterceptor,
} from '@nestjs/common';
import { ModulesContainer, NestFactory } from '@nestjs/core';
import { Ctx, Payload, RpcException } from '@nestjs/microservices';
import { McpError as Sdk1McpError } from '@modelcontextprotocol/sdk/types.js';
import { ProtocolError as EsmProtocolError } from '@modelcontextprotocol/server';
import { McpContext, McpController, McpStrategy, StreamableHttpTransport, Tool } from '@rekog/mcp-nest';
import { map, type Observable } from 'rxjs';
import { z } from 'zod';
import type { ToolElicitation } from '../../src/index.js';
import { Elicitation } from '../../src/mcp-nest/index.js';

/** The SDK classes as MCP-Nest sees them: its own (CommonJS) copy of `@modelcontextprotocol/server`. */
interface McpNestSdk {
  ProtocolError: new (code: number, message: string, data?: unknown) => Error;
  UrlElicitationRequiredError: new (elicitations: unknown[], message?: string) => Error;
}
const mcpNestSdk = createRequire(createRequire(import.meta.url).resolve('@rekog/mcp-nest'))('@modelcontextprotocol/server') as McpNestSdk;

/** The `_meta` key the pinning interceptor adds to results (and the pass-through tool sets). */
export const PIN_META = 'nestjs-mcp-elicitation/pin';

/** What `pin-throw` throws. */
export const THROW_KINDS = [
  'mcp-nest-protocol-error-in-rpc-exception',
  'mcp-nest-url-required-in-rpc-exception',
  'mcp-nest-protocol-error-bare',
  'esm-protocol-error-in-rpc-exception',
  'sdk1-mcp-error-in-rpc-exception',
  'plain-error',
  'rpc-exception-with-message',
] as const;
export type ThrowKind = (typeof THROW_KINDS)[number];

/** The URL `pin-throw` puts in its -32042 error. */
export const PIN_URL = 'https://example.com/pin-page';

const text = (value: unknown) => ({
  content: [{ type: 'text' as const, text: typeof value === 'string' ? value : JSON.stringify(value) }],
});

/**
 * Observes each call of the controller it is put on (by class metadata, while the app is created, as
 * `McpNestElicitationModule` does) and adds what it saw to the result's `_meta`.
 */
@Injectable()
class PinInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const rpc = context.getType() === 'rpc' ? context.switchToRpc().getContext<unknown>() : undefined;
    const seen = {
      type: context.getType(),
      contextIsMcpContext: rpc instanceof McpContext,
      toolMetadataName: (Reflect.getMetadata('mcp:tool', context.getHandler()) as { name?: string } | undefined)?.name ?? null,
      data: context.switchToRpc().getData<unknown>(),
    };
    return next
      .handle()
      .pipe(
        map((result: unknown) =>
          result && typeof result === 'object'
            ? { ...result, _meta: { ...(result as { _meta?: object })._meta, [PIN_META]: seen } }
            : result,
        ),
      );
  }
}

/** What the tests need to know of the raw request: an HTTP `IncomingMessage`, and which one. */
function shapeOf(request: unknown): Record<string, unknown> {
  if (!(request instanceof IncomingMessage)) return { isIncomingMessage: false, type: typeof request };
  return { isIncomingMessage: true, method: request.method, url: request.url, pinHeader: request.headers['x-pin'] ?? null };
}

@McpController()
class PinsController {
  constructor(@Inject('MCP_STRATEGY') private readonly strategy: McpStrategy) {}

  @Tool({ name: 'pin-context', description: 'Reports what the McpContext of this call holds.', parameters: z.object({ echo: z.string() }) })
  context(@Payload() args: { echo: string }, @Ctx() ctx: McpContext) {
    const sdk = ctx.getArgByIndex(4) as
      { mcpReq?: { id?: unknown; method?: unknown; envelope?: Record<string, unknown>; requestState?: unknown } } | undefined;
    const server = ctx.mcpServer as unknown as { server?: { getClientCapabilities?: unknown } };
    return text({
      args,
      slot4: {
        isObject: typeof sdk === 'object' && sdk !== null,
        mcpReqIdType: typeof sdk?.mcpReq?.id,
        method: sdk?.mcpReq?.method ?? null,
        envelopeProtocolVersion: sdk?.mcpReq?.envelope?.['io.modelcontextprotocol/protocolVersion'] ?? null,
        hasRequestStateFn: typeof sdk?.mcpReq?.requestState === 'function',
      },
      rawRequest: shapeOf(ctx.getRawRequest()),
      session: ctx.getSession(),
      mcpRequest: { method: ctx.mcpRequest.method, name: (ctx.mcpRequest.params as { name?: unknown } | undefined)?.name ?? null },
      mcpServerHasLowLevel: typeof server.server?.getClientCapabilities === 'function',
    });
  }

  @Tool({
    name: 'pin-result',
    description: 'Returns a result with or without a content array.',
    parameters: z.object({ shape: z.enum(['with-content', 'without-content', 'input-required', 'input-required-without-content']) }),
  })
  result(@Payload() { shape }: { shape: string }) {
    const inputRequired = {
      resultType: 'input_required',
      inputRequests: {
        pin: {
          method: 'elicitation/create',
          params: {
            mode: 'form',
            message: 'Pinned question',
            requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
          },
        },
      },
      requestState: 'pinned-state',
    };
    switch (shape) {
      case 'with-content':
        return { content: [{ type: 'text', text: 'passed through' }], structuredContent: { kept: true }, _meta: { 'pins/kept': 'yes' } };
      case 'input-required':
        return { ...inputRequired, content: [] };
      case 'input-required-without-content':
        return inputRequired;
      default:
        return { answer: 42, nested: { kept: true } };
    }
  }

  @Tool({
    name: 'pin-throw',
    description: 'Throws one kind of error.',
    parameters: z.object({ kind: z.enum(THROW_KINDS), code: z.number().int().optional() }),
  })
  throw(@Payload() { kind, code = -32602 }: { kind: ThrowKind; code?: number }): never {
    switch (kind) {
      case 'mcp-nest-protocol-error-in-rpc-exception':
        throw new RpcException(new mcpNestSdk.ProtocolError(code, 'Pinned protocol error', { pinned: true }));
      case 'mcp-nest-url-required-in-rpc-exception':
        throw new RpcException(
          new mcpNestSdk.UrlElicitationRequiredError(
            [{ mode: 'url', url: PIN_URL, elicitationId: '00000000-0000-4000-8000-000000000000', message: 'Open the pinned page' }],
            'Pinned URL elicitation required',
          ),
        );
      case 'mcp-nest-protocol-error-bare':
        throw new mcpNestSdk.ProtocolError(code, 'Pinned bare protocol error');
      case 'esm-protocol-error-in-rpc-exception':
        throw new RpcException(new EsmProtocolError(code, 'Pinned ESM protocol error'));
      case 'sdk1-mcp-error-in-rpc-exception':
        throw new RpcException(new Sdk1McpError(code, 'Pinned SDK 1.x error'));
      case 'rpc-exception-with-message':
        throw new RpcException('Pinned readable message');
      default:
        throw new Error('boom');
    }
  }

  @Tool({ name: 'pin-interceptor', description: 'Answers; the interceptor on this class reports what it saw.' })
  intercepted() {
    return text('intercepted?');
  }

  @Tool({ name: 'pin-strategy', description: 'Reports the transports of the strategy provided under MCP_STRATEGY.' })
  strategyInfo() {
    const { transports } = (this.strategy as unknown as { options: { transports: unknown[] } }).options;
    return text({
      isMcpStrategy: this.strategy instanceof McpStrategy,
      transports: transports.map((t) => ({
        constructorName: (t as object).constructor.name,
        statefulMode: (t as { statefulMode?: unknown }).statefulMode ?? null,
      })),
      sdkCopies: { esmProtocolErrorIsMcpNests: (EsmProtocolError as unknown) === mcpNestSdk.ProtocolError },
    });
  }

  @Tool({ name: 'pin-elicitation-unwired', description: 'Uses @Elicitation() in an app without McpNestElicitationModule.' })
  unwired(@Elicitation() elicitation: ToolElicitation) {
    return text(`unexpectedly wired: ${elicitation.era}`);
  }
}

/**
 * Puts the interceptor (its instance: a class added after the scan would not be found) first on the controller
 * while the app's instances are created, before `connectMicroservice` builds MCP-Nest's handlers, as the adapter does.
 */
const PIN_WIRING = {
  provide: Symbol('PinWiring'),
  inject: [ModulesContainer, PinInterceptor],
  useFactory: (modules: ModulesContainer, interceptor: PinInterceptor) => {
    for (const module of modules.values()) {
      for (const wrapper of module.controllers.values()) {
        if (wrapper.metatype !== PinsController) continue;
        const current = (Reflect.getMetadata('__interceptors__', PinsController) as unknown[] | undefined) ?? [];
        Reflect.defineMetadata('__interceptors__', [interceptor, ...current], PinsController);
      }
    }
    return true;
  },
};

export interface PinsApp {
  app: INestApplication;
  mcpUrl: string;
}

/** Starts the pins app on `host:port` (0: a free port). */
export async function startPinsApp({
  host = '127.0.0.1',
  port = 0,
  logger,
}: { host?: string; port?: number; logger?: LoggerService | LogLevel[] | false } = {}): Promise<PinsApp> {
  const strategy = new McpStrategy({
    name: 'nestjs-mcp-elicitation-mcp-nest-pins',
    version: '0.1.0',
    transports: [new StreamableHttpTransport({ statefulMode: true })],
    logging: logger === false ? false : undefined,
  });

  @Module({ controllers: [PinsController], providers: [{ provide: 'MCP_STRATEGY', useValue: strategy }, PinInterceptor, PIN_WIRING] })
  class PinsModule {}

  const app = await NestFactory.create(PinsModule, { logger });
  strategy.setHttpAdapter(app.getHttpAdapter());
  app.connectMicroservice({ strategy });
  app.enableShutdownHooks();
  await app.startAllMicroservices();
  await app.listen(port, host);
  const address = (app.getHttpServer() as Server).address() as { port: number };
  return { app, mcpUrl: `http://${host}:${address.port}/mcp` };
}
