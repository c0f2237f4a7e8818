import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ElicitationNotWiredError } from '../errors/elicitation-not-wired.error.js';
import type { ToolElicitation } from '../mcp/tool-elicitation.js';
import { taskSupportOf, type TaskToolSettings } from '../mcp/tasks/mcp-tasks.js';
import { withAdapterIdentityHint } from './mcp-nest-identity.js';
import { ElicitationWiringCheck, noteElicitationParameter } from './mcp-nest-wiring.check.js';

/** The `ToolElicitation` of each MCP-Nest tool call in flight, by its `McpContext` (set by the interceptor). */
const calls = new WeakMap<object, ToolElicitation>();

/** @internal the interceptor hands a call its elicitation */
export function attachElicitation(mcpContext: object, elicitation: ToolElicitation): void {
  calls.set(mcpContext, withAdapterIdentityHint(elicitation));
}

/** @internal the call is over */
export function detachElicitation(mcpContext: object): void {
  calls.delete(mcpContext);
}

/** Nest's parameter decorator behind `@Elicitation()`: the call's `ToolElicitation`, by its `McpContext`. */
const ElicitationParameter = createParamDecorator((_data: unknown, context: ExecutionContext): ToolElicitation => {
  const mcp = context.switchToRpc().getContext<{ mcpRequest?: { method?: unknown } }>();
  const elicitation = calls.get(mcp);
  if (elicitation) return elicitation;
  const method = mcp?.mcpRequest?.method;
  if (typeof method === 'string' && method !== 'tools/call') throw new ElicitationNotWiredError(method);
  throw new ElicitationNotWiredError();
});

/** Options of `@Elicitation()`: how the tool takes part in MCP tasks (the Tasks extension, protocol 2026-07-28). */
export interface ElicitationToolOptions {
  /**
   * `taskSupport: 'optional'`: the call runs as a task when the request declares `io.modelcontextprotocol/tasks`,
   * as a plain call otherwise; `'required'`: a request without the extension is refused (-32021). In a task the
   * method runs again from the top at every step, outside Nest's guards and interceptors (see the tasks guide).
   * @default { taskSupport: 'forbidden' } (never a task)
   */
  execution?: { taskSupport?: 'forbidden' | 'optional' | 'required' };
  /** `'continueAsTask'`: a plain call until the method calls `elicitation.continueAsTask()`, then a task. */
  taskStart?: 'continueAsTask';
}

/** The metadata key of a tool method's task settings (`@Elicitation({ execution })`). */
const TASK_SETTINGS = 'nestjs-mcp-elicitation:task';

/** A tool method's task settings, `undefined` for a method that never runs as a task. */
export function taskSettingsOf(method: object): TaskToolSettings | undefined {
  return Reflect.getMetadata(TASK_SETTINGS, method) as TaskToolSettings | undefined;
}

/** The options, checked: a value that is not one of the extension's names is refused, naming it. */
function checkedSettings(options: ElicitationToolOptions, where: string): TaskToolSettings | undefined {
  const given = (options.execution as { taskSupport?: unknown } | undefined)?.taskSupport;
  if (given !== undefined && !['forbidden', 'optional', 'required'].includes(given as string)) {
    throw new TypeError(
      `@Elicitation() on ${where}: execution.taskSupport must be 'forbidden', 'optional' or 'required', got ${JSON.stringify(given)}`,
    );
  }
  if (options.taskStart !== undefined && options.taskStart !== 'continueAsTask') {
    throw new TypeError(`@Elicitation() on ${where}: taskStart must be 'continueAsTask', got ${JSON.stringify(options.taskStart)}`);
  }
  const support = taskSupportOf(options);
  return support === 'forbidden' ? undefined : { support, taskStart: options.taskStart };
}

/**
 * Parameter decorator for an MCP-Nest `@Tool()` method: the call's `ToolElicitation` (`elicit`, `requireAnswer`,
 * `requestUrl`, `isSupported`, `era`, `userId`), the same in both protocol eras, down the fallback ladder.
 *
 * ```ts
 * @Tool({ name: 'approve-deploy', parameters: z.object({ app: z.string() }) })
 * async approve(@Payload() { app }: { app: string }, @Elicitation() elicitation: ToolElicitation) { ... }
 * ```
 *
 * `@Elicitation({ execution: { taskSupport: 'optional' } })` makes the tool run as an MCP task for clients that
 * declare the Tasks extension.
 *
 * It also brings a pass-through pipe (`ElicitationWiringCheck`), which Nest creates with the controller: at
 * start-up it logs an error naming `McpNestElicitationModule` when the app does not import it.
 */
export function Elicitation(options: ElicitationToolOptions = {}): ParameterDecorator {
  const decorate = ElicitationParameter(undefined, ElicitationWiringCheck);
  return (target, key, index) => {
    noteElicitationParameter(target, key);
    if (key !== undefined) {
      const method = (target as Record<string | symbol, unknown>)[key];
      const settings = checkedSettings(options, `${(target as { constructor: { name: string } }).constructor.name}.${String(key)}`);
      if (settings && typeof method === 'function') Reflect.defineMetadata(TASK_SETTINGS, settings, method);
    }
    decorate(target, key, index);
  };
}
