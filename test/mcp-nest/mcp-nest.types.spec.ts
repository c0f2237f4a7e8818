/** MCP-Nest's own `McpContext` fits the structural `McpNestContext` the adapter reads (a compile-time check). */
import { describe, expect, it } from '@jest/globals';
import type { McpContext } from '@rekog/mcp-nest';
import { userFromRequest, type McpNestContext } from '../../src/mcp-nest/index.js';

describe('McpNestContext', () => {
  it("accepts MCP-Nest's McpContext where the adapter's API takes a context", () => {
    const fits = (ctx: McpContext): McpNestContext => ctx;
    const user = (ctx: McpContext) => userFromRequest(ctx);
    expect(typeof fits).toBe('function');
    expect(typeof user).toBe('function');
  });
});
