import {
  type CallHandler,
  type ExecutionContext,
  Inject,
  Injectable,
  Logger,
  type NestInterceptor,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { catchError, from, lastValueFrom, type Observable, throwError } from 'rxjs';
import { RpcException } from '@nestjs/microservices';
import { McpElicitation } from '../mcp/mcp-elicitation.js';
import { McpSdkLoader, type SdkCopy } from '../mcp/sdk/sdk-loader.js';
import type { ToolElicitation } from '../mcp/tool-elicitation.js';
import { attachElicitation, detachElicitation } from './elicitation.decorator.js';
import { toMcpNestError } from './mcp-nest-errors.js';
import { withAdapterIdentityHint } from './mcp-nest-identity.js';
import { MCP_NEST_ELICITATION_OPTIONS, type McpNestElicitationOptions, userFromRequest } from './mcp-nest-elicitation.options.js';
import { McpNestTasks } from './mcp-nest-tasks.js';
import {
  isMcpNestContext,
  MCP_NEST_STRATEGY_TOKEN,
  MCP_NEST_TOOL_METADATA_KEY,
  type McpNestContext,
  type McpNestToolMetadata,
} from './mcp-nest.types.js';

/** The warning for MCP-Nest serving 2025-11-25 without sessions. */
const STATELESS_WARNING =
  'MCP-Nest serves protocol 2025-11-25 without sessions (StreamableHttpTransport statefulMode: false): a tool cannot ' +
  'push elicitation/create there, so its questions go down the fallback ladder (a link in the result). Set ' +
  'statefulMode: true for URL and form mode on 2025-11-25 (2026-07-28 needs no session).';

/**
 * Wraps each MCP-Nest `@Tool()` call in the library's tool wrapper (`McpElicitation.runCall`), on both protocol
 * eras: the `@Elicitation()` parameter gets the call's `ToolElicitation`, a question that stops the call answers
 * with its result (`input_required` gets the `content: []` MCP-Nest needs to pass it through), and errors reach
 * the client as they should (JSON-RPC errors from MCP-Nest's own SDK copy, readable tool errors). Registered as a
 * global interceptor, so it is the outermost and nothing inside swallows a question's signal.
 */
@Injectable()
export class McpNestElicitationInterceptor implements NestInterceptor, OnApplicationBootstrap {
  private readonly logger = new Logger('McpNestElicitation');
  private binding: McpElicitation | undefined;
  private sdks: McpSdkLoader | undefined;
  private warnedStateless = false;

  constructor(
    private readonly moduleRef: ModuleRef,
    @Inject(MCP_NEST_ELICITATION_OPTIONS) private readonly options: McpNestElicitationOptions,
    private readonly tasks: McpNestTasks,
  ) {}

  /** Warns at start-up when a provided MCP-Nest strategy serves 2025-11-25 without sessions. */
  onApplicationBootstrap(): void {
    let strategy: { options?: { transports?: unknown[] } } | undefined;
    try {
      strategy = this.moduleRef.get(MCP_NEST_STRATEGY_TOKEN, { strict: false });
    } catch {
      return; // the app does not provide its strategy; the first stateless 2025-11-25 call warns instead
    }
    const stateless = strategy?.options?.transports?.some(
      (t) => t?.constructor?.name === 'StreamableHttpTransport' && (t as { statefulMode?: unknown }).statefulMode === false,
    );
    if (stateless) this.warnStateless();
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const tool = Reflect.getMetadata(MCP_NEST_TOOL_METADATA_KEY, context.getHandler()) as McpNestToolMetadata | undefined;
    const mcp = context.getType() === 'rpc' ? context.switchToRpc().getContext<unknown>() : undefined;
    if (!tool || !isMcpNestContext(mcp) || mcp.mcpRequest.method !== 'tools/call') return next.handle();
    const args = context.switchToRpc().getData<unknown>();
    const plain = () =>
      this.run(mcp, tool, args, async () => {
        return lastValueFrom<unknown, undefined>(next.handle() as Observable<unknown>, { defaultValue: undefined });
      });
    // A tool marked @Elicitation({ execution }): a task when the request declares the extension.
    const task = this.tasks.settingsOf(context.getHandler());
    const call = task ? this.tasks.dispatch(mcp, this.nameOf(mcp, tool), task, args, plain).then(withContent) : plain();
    return from(call).pipe(catchError((error: unknown) => throwError(() => toMcpNestError(error, this.sdkOf(mcp)))));
  }

  /**
   * A handler for MCP-Nest's runtime `strategy.registerTool({ name, handler })`, whose tools are called directly,
   * outside Nest's pipeline (no interceptor runs): `body` gets the call's `ToolElicitation` the same way. `A` is what
   * the tool's `parameters` validated (MCP-Nest passes it as `Record<string, unknown>`); the handler takes what
   * MCP-Nest's `DynamicToolHandler` declares, so it is assignable there.
   */
  dynamicTool<A = Record<string, unknown>>(
    name: string,
    body: (args: A, elicitation: ToolElicitation, context: McpNestContext) => unknown,
    { outputSchema }: { outputSchema?: unknown } = {},
  ): (args: Record<string, unknown>, context: unknown) => Promise<unknown> {
    return async (rawArgs, context) => {
      if (!isMcpNestContext(context)) {
        throw new TypeError(
          `dynamicTool('${name}'): the handler's second argument must be MCP-Nest's McpContext (pass the handler as ` +
            `strategy.registerTool({ handler })), got ${context === null ? 'null' : typeof context}`,
        );
      }
      const args = rawArgs as A;
      try {
        return await this.run(context, { name, outputSchema }, args, (elicitation) =>
          body(args, withAdapterIdentityHint(elicitation), context),
        );
      } catch (error) {
        // Called directly, MCP-Nest takes its own ProtocolError as it is and any other error's message.
        const mapped = toMcpNestError(error, this.sdkOf(context));
        throw mapped instanceof RpcException ? unwrap(mapped) : mapped;
      }
    };
  }

  /** One tool call through the library's wrapper, its `ToolElicitation` available to `@Elicitation()`. */
  private async run(
    mcp: McpNestContext,
    tool: McpNestToolMetadata,
    args: unknown,
    body: (elicitation: ToolElicitation) => unknown,
  ): Promise<unknown> {
    const session = mcp.getSession();
    if (session.era !== 'modern' && session.stateless) this.warnStateless();
    const result = await this.elicitation().runCall(
      mcp.mcpServer,
      this.nameOf(mcp, tool),
      args,
      mcp.getArgByIndex(4),
      async (elicitation) => {
        attachElicitation(mcp, elicitation);
        try {
          return await body(elicitation);
        } finally {
          detachElicitation(mcp);
        }
      },
      { user: this.userOf(mcp), structured: tool.outputSchema === undefined },
    );
    return withContent(result);
  }

  /** The tool's name as the request gives it. */
  private nameOf(mcp: McpNestContext, tool: McpNestToolMetadata): string {
    const requested = (mcp.mcpRequest.params as { name?: unknown } | undefined)?.name;
    return typeof requested === 'string' ? requested : tool.name;
  }

  /** The call's user: the option, else `req.user` (`sub`, `id`); `undefined` leaves it to `resolveMcpUser`. */
  private userOf(mcp: McpNestContext): string | undefined {
    const user = this.options.resolveUser ? this.options.resolveUser(mcp) : userFromRequest(mcp);
    return user ?? undefined;
  }

  /** The SDK copy of MCP-Nest's server (MCP-Nest serves both eras on SDK 2.x): the errors it recognises. */
  private sdkOf(mcp: McpNestContext): SdkCopy {
    this.elicitation(); // the same module provides both: this one says what is missing
    this.sdks ??= this.moduleRef.get<McpSdkLoader, McpSdkLoader>(McpSdkLoader, { strict: false });
    return this.sdks.copyFor(mcp.mcpServer, '2.x');
  }

  private elicitation(): McpElicitation {
    if (this.binding) return this.binding;
    let found: McpElicitation | undefined;
    try {
      found = this.moduleRef.get(McpElicitation, { strict: false });
    } catch {
      found = undefined;
    }
    if (!found) {
      throw new Error(
        "McpNestElicitationModule needs ElicitationModule.forRoot() (from 'nestjs-mcp-elicitation') in the same app: it provides McpElicitation.",
      );
    }
    return (this.binding = found);
  }

  private warnStateless(): void {
    if (this.warnedStateless) return;
    this.warnedStateless = true;
    this.logger.warn(STATELESS_WARNING);
  }
}

/** What an `RpcException` carries: MCP-Nest's `ProtocolError`, or an `Error` with the readable message. */
function unwrap(exception: RpcException): unknown {
  const error = exception.getError();
  return typeof error === 'string' ? new Error(error) : error;
}

/**
 * MCP-Nest passes a result through only when it has a `content` array: an `input_required` result, or a task's
 * `CreateTaskResult`, gets `[]` (as SDK 2.x adds to a task's).
 */
function withContent(result: unknown): unknown {
  const type = result && typeof result === 'object' ? (result as { resultType?: unknown }).resultType : undefined;
  if (type === 'input_required' || type === 'task') {
    const r = result as { content?: unknown };
    if (!Array.isArray(r.content)) return { ...r, content: [] };
  }
  return result;
}
