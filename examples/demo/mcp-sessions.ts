/**
 * The demos' layer over the package's `McpSessions` (src/mcp/mcp-sessions.ts), which bounds their 2025-11-25
 * sessions: the options of their MCP routes (the limits, from `startDemoApp` / `startMcpNestDemo` and the `MCP_*`
 * environment variables, plus the conformance flag), their injection token, and who an anonymous conformance
 * session belongs to. Both the SDK demo (`mcp.controller.ts`) and the MCP-Nest demo (`examples/mcp-nest`) use it.
 */
import { randomUUID } from 'node:crypto';
import { DEFAULT_MCP_SESSION_LIMITS, type McpSessionLimits } from '../../src/index.js';

export { DEFAULT_MCP_SESSION_LIMITS, MCP_SESSION_RETRY_AFTER_S, McpSessions, type McpSessionLimits } from '../../src/index.js';

/** What a demo's MCP route is given (`mcpSessionOptions` builds it). */
export interface McpSessionOptions extends McpSessionLimits {
  /**
   * CONFORMANCE SUITE ONLY (its client sends no credentials): serve MCP requests without a bearer user too, on both
   * protocol eras (2025-11-25 sessions bounded by `max` alone). Never in a deployed app. @default false
   */
  anonymous: boolean;
}

/** Injection token of the {@link McpSessionOptions}. */
export const MCP_SESSION_OPTIONS = Symbol('McpSessionOptions');

/** The session settings of a demo (`startDemoApp`, `startMcpNestDemo`); a limit left out takes its default. */
export interface DemoSessionSettings {
  /** A 2025-11-25 session with no request for this long is closed (ms; an open GET stream does not count). @default 300_000 (5 min) */
  sessionIdleMs?: number;
  /** Open 2025-11-25 sessions per user; the user's oldest idle one makes room, else 503. @default 5 */
  maxSessionsPerUser?: number;
  /** Open 2025-11-25 sessions in the process; the oldest idle one makes room, else 503. @default 1000 */
  maxSessions?: number;
  /** CONFORMANCE SUITE ONLY (its client sends no credentials): MCP requests without a bearer user, on both eras. @default false */
  anonymousMcp?: boolean;
}

/** The route options of `settings`, each limit a positive integer (the error names the environment variable). */
export function mcpSessionOptions(settings: DemoSessionSettings): McpSessionOptions {
  const limit = (value: number | undefined, fallback: number, env: string) => {
    const n = value ?? fallback;
    if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`${env} must be a positive integer, got "${String(value)}"`);
    return n;
  };
  return {
    idleMs: limit(settings.sessionIdleMs, DEFAULT_MCP_SESSION_LIMITS.idleMs, 'MCP_SESSION_IDLE_MS'),
    maxPerUser: limit(settings.maxSessionsPerUser, DEFAULT_MCP_SESSION_LIMITS.maxPerUser, 'MCP_MAX_SESSIONS_PER_USER'),
    max: limit(settings.maxSessions, DEFAULT_MCP_SESSION_LIMITS.max, 'MCP_MAX_SESSIONS'),
    anonymous: settings.anonymousMcp ?? false,
  };
}

/** The session settings in the environment (`MCP_SESSION_IDLE_MS`, ...; `MCP_CONFORMANCE=1` for the conformance run). */
export function sessionSettingsFromEnv(env: NodeJS.ProcessEnv): DemoSessionSettings {
  const num = (value: string | undefined) => (value ? Number(value) : undefined);
  return {
    sessionIdleMs: num(env.MCP_SESSION_IDLE_MS),
    maxSessionsPerUser: num(env.MCP_MAX_SESSIONS_PER_USER),
    maxSessions: num(env.MCP_MAX_SESSIONS),
    // The conformance suite's client sends no credentials (npm run conformance sets MCP_CONFORMANCE=1).
    anonymousMcp: env.MCP_CONFORMANCE === '1',
  };
}

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
