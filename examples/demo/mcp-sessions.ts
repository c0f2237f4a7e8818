/**
 * The demo's layer over the package's `McpSessions` (src/mcp/mcp-sessions.ts), which bounds its 2025-11-25
 * sessions: the demo's options (the limits, from `startDemoApp` / `MCP_*` environment variables, plus the
 * conformance flag), their injection token, and who an anonymous conformance session belongs to.
 */
import { randomUUID } from 'node:crypto';
import type { McpSessionLimits } from '../../src/index.js';

export { DEFAULT_MCP_SESSION_LIMITS, MCP_SESSION_RETRY_AFTER_S, McpSessions, type McpSessionLimits } from '../../src/index.js';

/** What the demo's MCP route is given (`startDemoApp` builds it from its options). */
export interface McpSessionOptions extends McpSessionLimits {
  /**
   * CONFORMANCE SUITE ONLY (its client sends no credentials): open sessions without a bearer user too, bounded by
   * `max` alone. Never in a deployed app. @default false
   */
  anonymous: boolean;
}

/** Injection token of the {@link McpSessionOptions}. */
export const MCP_SESSION_OPTIONS = Symbol('McpSessionOptions');

/** Prefix of an anonymous session's owner: a space, which no demo user name has (`isDemoUserName`). */
const ANONYMOUS_OWNER = 'anonymous ';

/**
 * The user a session is opened for in `McpSessions`: the bearer user, or (anonymous sessions, conformance only)
 * an owner of its own, so that each anonymous session counts towards `max` alone.
 */
export function sessionOwner(user: string | undefined): string {
  return user ?? `${ANONYMOUS_OWNER}${randomUUID()}`;
}

/** Whether a request of `user` (the bearer user, if any) may use a session opened for `owner`. */
export function mayUseSession(owner: string, user: string | undefined): boolean {
  return user === undefined ? owner.startsWith(ANONYMOUS_OWNER) : owner === user;
}
