/**
 * `registerTool` types a handler's arguments from the tool's `inputSchema` (issue #18: the README's binding
 * snippet failed with TS2345 because they were `unknown`). The checks are compile-time ones: ts-jest
 * type-checks this file, so a wrong inference fails the run.
 */
import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import type { McpElicitation, SdkToolServer, ToolArgs } from '../../src/index.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(value: Equal<A, B>) => value;

const connect = z.object({ service: z.string(), retries: z.int().optional(), mode: z.enum(['a', 'b']).default('a') });

describe('ToolArgs', () => {
  it('is the output of a zod object, the fields of a raw shape, undefined without a schema', () => {
    expect(same<ToolArgs<typeof connect>, { service: string; retries?: number | undefined; mode: 'a' | 'b' }>(true)).toBe(true);
    expect(same<ToolArgs<{ service: z.ZodString; count: z.ZodNumber }>, { service: string; count: number }>(true)).toBe(true);
    expect(same<ToolArgs<undefined>, undefined>(true)).toBe(true);
    // A config typed loosely gives `never`, so the handler's own annotation is what counts.
    expect(same<ToolArgs<unknown>, never>(true)).toBe(true);
    expect(same<ToolArgs<{ type: 'object' }>, Record<string, unknown>>(true)).toBe(true);
  });

  it('types the arguments of the handler registerTool takes (checked when this file compiles)', () => {
    // Never called: ts-jest type-checks it, and a wrong inference fails this file.
    const compileOnly = (binding: McpElicitation, server: SdkToolServer) => {
      binding.registerTool(server, 'connect', { inputSchema: connect }, ({ service, mode }, elicitation) => {
        const upper: string = service.toUpperCase();
        const chosen: 'a' | 'b' = mode;
        return { content: [{ type: 'text', text: `${upper} ${chosen} ${elicitation.era}` }] };
      });
      binding.registerTool(server, 'raw-shape', { inputSchema: { app: z.string() } }, ({ app }) => app.length);
      binding.registerTool(server, 'no-input', { description: 'no arguments' }, (args) => args === undefined);
      // @ts-expect-error -- `missing` is not a field of the schema
      binding.registerTool(server, 'wrong', { inputSchema: connect }, ({ missing }) => typeof missing);
    };
    expect(compileOnly).toBeInstanceOf(Function);
  });
});
