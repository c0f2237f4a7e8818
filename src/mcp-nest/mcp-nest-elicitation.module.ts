import { type DynamicModule, Module } from '@nestjs/common';
import { Logger } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { McpNestElicitationInterceptor } from './mcp-nest-elicitation.interceptor.js';
import { MCP_NEST_ELICITATION_OPTIONS, type McpNestElicitationOptions } from './mcp-nest-elicitation.options.js';
import { wireToolControllers } from './mcp-nest-tool-wiring.js';
import { McpNestTasks } from './mcp-nest-tasks.js';
import { McpNestBindingCheck } from './mcp-nest-wiring.check.js';

/** The provider that wires the interceptor onto the `@Tool()` controllers while the app is created. */
const TOOL_WIRING = Symbol('MCP_NEST_TOOL_WIRING');

/**
 * This library's elicitation in an `@rekog/mcp-nest` 2.x app: an interceptor, put first on every controller with
 * `@Tool()` methods (so nothing of the controller's own swallows a question's signal), that wraps each MCP-Nest
 * tool call in the library's tool wrapper, and the `@Elicitation()` parameter that hands the method its
 * `ToolElicitation`, on both protocol eras. Import it beside `ElicitationModule.forRoot()`: without it, start-up fails
 * naming it (`McpNestBindingCheck`).
 */
@Module({})
export class McpNestElicitationModule {
  static forRoot(options: McpNestElicitationOptions = {}): DynamicModule {
    if (options.resolveUser !== undefined && typeof options.resolveUser !== 'function') {
      throw new TypeError('McpNestElicitationModule: option "resolveUser" must be a function (context) => user id');
    }
    return {
      module: McpNestElicitationModule,
      providers: [
        { provide: MCP_NEST_ELICITATION_OPTIONS, useValue: options },
        McpNestElicitationInterceptor,
        McpNestTasks,
        McpNestBindingCheck,
        {
          provide: TOOL_WIRING,
          inject: [ModulesContainer, McpNestElicitationInterceptor],
          useFactory: (modules: ModulesContainer, interceptor: McpNestElicitationInterceptor) => {
            const wired = wireToolControllers(modules, interceptor);
            new Logger('McpNestElicitation').log(`Elicitation wired into ${wired.length ? wired.join(', ') : 'no @Tool() controllers'}`);
            return wired;
          },
        },
      ],
      exports: [McpNestElicitationInterceptor],
    };
  }
}
