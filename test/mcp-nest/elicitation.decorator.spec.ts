/** `@Elicitation({ execution, taskStart })`: the task settings it records on the method, and the values it refuses. */
import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { Elicitation, type ElicitationToolOptions } from '../../src/mcp-nest/index.js';
import { taskSettingsOf } from '../../src/mcp-nest/elicitation.decorator.js';

/** A class whose `run` method's second parameter is decorated with `@Elicitation(options)`. */
function toolWith(options?: ElicitationToolOptions): object {
  class Tools {
    run(_args: unknown, _elicitation: unknown): void {}
  }
  Elicitation(options)(Tools.prototype, 'run', 1);
  return Object.getOwnPropertyDescriptor(Tools.prototype, 'run')?.value as object;
}

describe('@Elicitation() task settings', () => {
  it('records optional and required task support (and taskStart) on the method', () => {
    expect(taskSettingsOf(toolWith({ execution: { taskSupport: 'optional' } }))).toEqual({ support: 'optional', taskStart: undefined });
    expect(taskSettingsOf(toolWith({ execution: { taskSupport: 'required' }, taskStart: 'continueAsTask' }))).toEqual({
      support: 'required',
      taskStart: 'continueAsTask',
    });
  });

  it('records nothing without execution, or with taskSupport forbidden', () => {
    expect(taskSettingsOf(toolWith())).toBeUndefined();
    expect(taskSettingsOf(toolWith({ execution: { taskSupport: 'forbidden' } }))).toBeUndefined();
  });

  it('refuses a taskSupport or taskStart that is not one of its names, naming the method and the value', () => {
    expect(() => toolWith({ execution: { taskSupport: 'always' as never } })).toThrow(
      `@Elicitation() on Tools.run: execution.taskSupport must be 'forbidden', 'optional' or 'required', got "always"`,
    );
    expect(() => toolWith({ taskStart: 'later' as never })).toThrow(
      `@Elicitation() on Tools.run: taskStart must be 'continueAsTask', got "later"`,
    );
  });
});
