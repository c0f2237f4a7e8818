import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { ExternalContextCreator, ModulesContainer, ModuleRef, type ParamsFactory } from '@nestjs/core';
import { McpTasks, type TaskToolSettings } from '../mcp/tasks/mcp-tasks.js';
import type { SdkV2Context } from '../mcp/sdk/sdk.types.js';
import type { TaskContext } from '../mcp/tasks/task-runner.js';
import type { ToolElicitation } from '../mcp/tool-elicitation.js';
import { attachElicitation, detachElicitation, taskSettingsOf } from './elicitation.decorator.js';
import { MCP_NEST_ELICITATION_OPTIONS, type McpNestElicitationOptions, userFromRequest } from './mcp-nest-elicitation.options.js';
import { MCP_NEST_STRATEGY_TOKEN, MCP_NEST_TOOL_METADATA_KEY, type McpNestContext, type McpNestToolMetadata } from './mcp-nest.types.js';

/** Where Nest keeps a method's parameter decorators (`ROUTE_ARGS_METADATA`, the same in 11 and 12). */
const ROUTE_ARGS_METADATA = '__routeArguments__';

/** `@Payload()` and `@Ctx()` of a re-run: the arguments, then the task's context (Nest's `RpcParamsFactory`). */
const RPC_PARAMS: ParamsFactory = {
  exchangeKeyForValue(type, data, args: [Record<string, unknown> | undefined, unknown]) {
    if (type === 3) return data ? args[0]?.[data as string] : args[0]; // RpcParamtype.PAYLOAD
    if (type === 6) return args[1]; // RpcParamtype.CONTEXT
    return null;
  },
};

/** The parts of MCP-Nest's `McpStrategy` the tasks use (structural: MCP-Nest is never imported). */
interface McpNestStrategy {
  bindRequestHandlers(server: object, session: unknown, rawRequest: unknown): void;
  formatToolResult?(result: unknown, outputSchema: unknown): Promise<unknown>;
}

/** A task tool found on a controller. */
interface FoundTool {
  name: string;
  method: object;
  settings: TaskToolSettings;
  outputSchema?: unknown;
  run: (args: unknown, context: unknown) => Promise<unknown>;
}

/**
 * MCP tasks for MCP-Nest `@Tool()` methods marked `@Elicitation({ execution: { taskSupport } })`. At start-up each
 * such method is registered with the binding's tasks by its tool name (its re-runs call the method through Nest's
 * parameter decorators and pipes, without guards or interceptors: the call that made the task passed them), and
 * every server MCP-Nest builds (`strategy.bindRequestHandlers`, on the strategy the app provides under
 * `MCP_STRATEGY`) gets `tasks/get`, `tasks/update` and `tasks/cancel`.
 */
@Injectable()
export class McpNestTasks implements OnApplicationBootstrap {
  private readonly logger = new Logger('McpNestElicitation');
  private binding?: McpTasks;
  /** The methods of the task tools served as tasks (none until start-up found the strategy). */
  private readonly served = new WeakSet<object>();

  constructor(
    private readonly moduleRef: ModuleRef,
    private readonly modules: ModulesContainer,
    private readonly contexts: ExternalContextCreator,
    @Inject(MCP_NEST_ELICITATION_OPTIONS) private readonly options: McpNestElicitationOptions,
  ) {}

  onApplicationBootstrap(): void {
    const found = this.findTools();
    if (found.length === 0) return;
    let strategy: Partial<McpNestStrategy> | undefined;
    try {
      strategy = this.moduleRef.get(MCP_NEST_STRATEGY_TOKEN, { strict: false });
    } catch {
      strategy = undefined;
    }
    if (typeof strategy?.bindRequestHandlers !== 'function') {
      this.logger.error(
        `${found.map((f) => f.name).join(', ')}: @Elicitation({ execution }) needs the app's McpStrategy provided under ` +
          `'${MCP_NEST_STRATEGY_TOKEN}' (to serve tasks/get, tasks/update and tasks/cancel): until then these tools run as plain calls.`,
      );
      return;
    }
    const tasks = this.tasks();
    for (const tool of found) {
      tasks.register(tool.name, (args, elicitation, context) => this.rerun(tool, strategy as McpNestStrategy, args, elicitation, context));
    }
    this.serveOn(strategy as McpNestStrategy);
    for (const tool of found) this.served.add(tool.method);
  }

  /** The task settings of a tool method, if it runs as a task here. */
  settingsOf(method: object): TaskToolSettings | undefined {
    const settings = taskSettingsOf(method);
    return settings && this.served.has(method) ? settings : undefined;
  }

  /** A call of a task tool: a task, a refusal, or the plain call (`plain`), as `McpTasks.dispatch` decides. */
  dispatch(mcp: McpNestContext, name: string, settings: TaskToolSettings, args: unknown, plain: () => Promise<unknown>): Promise<unknown> {
    const ctx = mcp.getArgByIndex(4) as SdkV2Context;
    return this.tasks().dispatch(name, settings, args, ctx, () => this.userOf(mcp, ctx), plain);
  }

  /** Every `@Tool()` method of the app's controllers with task settings. */
  private findTools(): FoundTool[] {
    const tools: FoundTool[] = [];
    for (const module of this.modules.values()) {
      for (const wrapper of module.controllers.values()) {
        const instance = wrapper.instance as Record<string, unknown> | undefined;
        if (!instance || typeof instance !== 'object') continue;
        const prototype = Object.getPrototypeOf(instance) as Record<string, unknown>;
        for (const key of Object.getOwnPropertyNames(prototype)) {
          const method = Object.getOwnPropertyDescriptor(prototype, key)?.value as unknown;
          if (typeof method !== 'function') continue;
          const tool = Reflect.getMetadata(MCP_NEST_TOOL_METADATA_KEY, method) as Partial<McpNestToolMetadata> | undefined;
          const settings = tool && taskSettingsOf(method);
          if (!tool || !settings) continue;
          const run = this.contexts.create(
            instance,
            method as (...args: unknown[]) => unknown,
            key,
            ROUTE_ARGS_METADATA,
            RPC_PARAMS,
            undefined,
            undefined,
            {
              guards: false,
              interceptors: false,
              filters: false,
            },
            'rpc',
          );
          tools.push({ name: tool.name ?? key, method, settings, outputSchema: tool.outputSchema, run });
        }
      }
    }
    return tools;
  }

  /** One run of a task tool's method: `@Elicitation()` gets the run's elicitation, `@Ctx()` the task's context. */
  private async rerun(
    tool: FoundTool,
    strategy: McpNestStrategy,
    args: unknown,
    elicitation: ToolElicitation,
    context: unknown,
  ): Promise<unknown> {
    const ctx = { ...(context as TaskContext) };
    attachElicitation(ctx, elicitation);
    try {
      const result = await tool.run(args, ctx);
      // The result as MCP-Nest makes it of a method's return value (text content, `structuredContent` with an output schema).
      if (typeof strategy.formatToolResult === 'function') return await strategy.formatToolResult(result, tool.outputSchema);
      return result;
    } finally {
      detachElicitation(ctx);
    }
  }

  /** `tasks/*` on every server the strategy binds its handlers on, with the request's user. */
  private serveOn(strategy: McpNestStrategy): void {
    const bind = strategy.bindRequestHandlers.bind(strategy);
    const tasks = this.tasks();
    strategy.bindRequestHandlers = (server, session, rawRequest) => {
      bind(server, session, rawRequest);
      // Tasks are of protocol 2026-07-28 (a 2025-11-25 session's server connects before its handlers are bound).
      if ((session as { era?: unknown } | undefined)?.era !== 'modern') return;
      tasks.serve(server, (ctx) => {
        const mcp: McpNestContext = {
          mcpServer: server as McpNestContext['mcpServer'],
          mcpRequest: { method: ctx.mcpReq.method },
          getSession: () => session as ReturnType<McpNestContext['getSession']>,
          getRawRequest: <T>() => rawRequest as T,
          getArgByIndex: (index) => [server, undefined, session, rawRequest, ctx][index],
        };
        return this.userOf(mcp, ctx);
      });
    };
  }

  /** A request's user: the adapter's `resolveUser` (else `req.user`), else the module's `resolveMcpUser`. */
  private userOf(mcp: McpNestContext, ctx: SdkV2Context): string | undefined {
    const user = this.options.resolveUser ? this.options.resolveUser(mcp) : userFromRequest(mcp);
    return user ?? this.tasks().verifiedUser(ctx);
  }

  private tasks(): McpTasks {
    this.binding ??= this.moduleRef.get(McpTasks, { strict: false });
    return this.binding;
  }
}
