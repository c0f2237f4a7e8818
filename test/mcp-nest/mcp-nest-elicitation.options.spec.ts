/** The adapter's default identity (`userFromRequest`): the user MCP-Nest's request carries. */
import { describe, expect, it } from '@jest/globals';
import { userFromRequest } from '../../src/mcp-nest/index.js';
import type { McpNestContext } from '../../src/mcp-nest/mcp-nest.types.js';

describe('default identity: req.user', () => {
  const context = (user: unknown) => ({ getRawRequest: () => ({ user }) }) as unknown as McpNestContext;

  it('takes req.user.sub, then req.user.id (numbers as strings), else nothing', () => {
    expect(userFromRequest(context({ sub: 'alice', id: 'x' }))).toBe('alice');
    expect(userFromRequest(context({ id: 42 }))).toBe('42');
    expect(userFromRequest(context({ sub: '' }))).toBeUndefined();
    expect(userFromRequest(context(undefined))).toBeUndefined();
    expect(userFromRequest({ getRawRequest: () => undefined } as unknown as McpNestContext)).toBeUndefined();
  });
});
