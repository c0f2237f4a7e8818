import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleInit, type PipeTransform } from '@nestjs/common';
import { ModuleRef, ModulesContainer } from '@nestjs/core';
import { McpElicitation } from '../mcp/mcp-elicitation.js';
import { MCP_NEST_ELICITATION_OPTIONS } from './mcp-nest-elicitation.options.js';

/** The `Class.method` names of the methods with an `@Elicitation()` parameter, as the decorators ran. */
const decorated = new Set<string>();
/** The apps (by their container) already told: hybrid apps run the bootstrap hooks once per application. */
const reported = new WeakSet<object>();

/** @internal `@Elicitation()` notes where it is used, for the start-up message. */
export function noteElicitationParameter(target: object, key: string | symbol | undefined): void {
  const owner = typeof target === 'function' ? target : target.constructor;
  decorated.add(`${(owner as { name?: string }).name ?? 'anonymous'}.${String(key)}`);
}

/**
 * The pass-through pipe `@Elicitation()` carries. Nest creates it with each controller that uses `@Elicitation()`
 * (parameter pipes are the controller's injectables), so it is there at start-up even when the adapter is not: then it
 * logs, once per app, an error naming the methods and `McpNestElicitationModule`, instead of leaving it to the first
 * call's tool error.
 */
@Injectable()
export class ElicitationWiringCheck implements PipeTransform, OnApplicationBootstrap {
  constructor(
    private readonly moduleRef: ModuleRef,
    private readonly modules: ModulesContainer,
  ) {}

  transform(value: unknown): unknown {
    return value;
  }

  onApplicationBootstrap(): void {
    if (reported.has(this.modules)) return;
    reported.add(this.modules);
    try {
      this.moduleRef.get(MCP_NEST_ELICITATION_OPTIONS, { strict: false });
    } catch {
      new Logger('McpNestElicitation').error(
        `@Elicitation() is used (${[...decorated].sort().join(', ')}) but McpNestElicitationModule.forRoot() is not ` +
          "imported: import it (from 'nestjs-mcp-elicitation/mcp-nest') beside ElicitationModule.forRoot() in the " +
          'module of your MCP-Nest app. Until then every call of those tools answers a tool error.',
      );
    }
  }
}

/** The message of `McpNestElicitationModule` without `ElicitationModule.forRoot()`. */
export const NO_ELICITATION_MODULE =
  "McpNestElicitationModule needs ElicitationModule.forRoot() (from 'nestjs-mcp-elicitation') in the same app: it " +
  'provides McpElicitation, which runs each tool call. Import both in the module of your MCP-Nest app.';

/** Refuses to start `McpNestElicitationModule` without `ElicitationModule.forRoot()`, instead of failing each call. */
@Injectable()
export class McpNestBindingCheck implements OnModuleInit {
  constructor(private readonly moduleRef: ModuleRef) {}

  onModuleInit(): void {
    let found: unknown;
    try {
      found = this.moduleRef.get(McpElicitation, { strict: false });
    } catch {
      found = undefined;
    }
    if (!found) throw new Error(NO_ELICITATION_MODULE);
  }
}
