/**
 * Bounded bookkeeping of the demo's 2025-11-25 sessions: a cap per user and overall, and an idle timeout.
 * A session costs a server, a transport and its tool registrations (about 65 KB), so an unbounded map lets
 * any client that can reach `/mcp` exhaust the process with `initialize` alone.
 */
import { randomUUID } from 'node:crypto';

/** Limits of the 2025-11-25 sessions (`startDemoApp` options / `MCP_*` environment variables). */
export interface McpSessionLimits {
  /**
   * A session with no request open and none received for this long is closed (ms). An open GET stream does
   * not keep a session (clients reopen it cheaply); a POST whose response is still open does.
   * @default 300_000 (5 minutes; `MCP_SESSION_IDLE_MS`)
   */
  idleMs: number;
  /** Open sessions per user. @default 5 (`MCP_MAX_SESSIONS_PER_USER`) */
  maxPerUser: number;
  /** Open sessions in the process, all users together. @default 1000 (`MCP_MAX_SESSIONS`) */
  max: number;
}

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

/** The defaults of {@link McpSessionLimits}. */
export const DEFAULT_MCP_SESSION_LIMITS: Readonly<McpSessionLimits> = { idleMs: 5 * 60_000, maxPerUser: 5, max: 1000 };

/**
 * `Retry-After` (seconds) of a refused `initialize`. A guess: a slot frees as soon as one of the full user's
 * (or the process's) sessions has no request open, and calls that wait for a person can take minutes.
 */
export const MCP_SESSION_RETRY_AFTER_S = 5;

/** The longest pause between two idle sweeps (ms); shorter when `idleMs` is short. */
const MAX_SWEEP_INTERVAL_MS = 30_000;

/** What the bookkeeping needs of a session: a way to close it (its transport and server). */
export interface McpSessionHandle {
  close(): Promise<void>;
}

interface Entry<S> {
  session: S;
  /** The user who opened it; `undefined` only when anonymous sessions are allowed (the conformance suite). */
  user: string | undefined;
  /** Requests whose response is still open (GET streams excluded). */
  inFlight: number;
  /** When the last request (GET streams excluded) started or ended. */
  lastActive: number;
}

/**
 * The open 2025-11-25 sessions of one process, bounded.
 *
 * - `open(user, create)` admits a session: a user at `maxPerUser` first loses their own oldest idle session,
 *   a process at `max` its oldest idle session (any user's); when none is idle the session is refused.
 * - `begin(id)` marks a request in flight until the returned function is called (when the response closes).
 *   A session with a request in flight is never idle: it is neither evicted nor expired.
 * - One unref'd interval closes sessions idle for `idleMs`, between `idleMs` and `idleMs` plus one sweep
 *   (at most `idleMs / 2`, at most 30 s) after their last request.
 *
 * Closing goes through the session's `close()` (the SDK server's, which closes its transport and makes the
 * elicitation binding forget the session's pairings); the owner's transport `onclose` calls `delete(id)`.
 */
export class McpSessions<S extends McpSessionHandle> {
  private readonly entries = new Map<string, Entry<S>>();
  private readonly byUser = new Map<string, Set<string>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly limits: McpSessionLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** Number of open sessions. */
  get size(): number {
    return this.entries.size;
  }

  /** Starts the idle sweep (one interval for all sessions, unref'd so it never keeps the process alive). */
  start(): void {
    if (this.timer) return;
    const every = Math.max(50, Math.min(Math.floor(this.limits.idleMs / 2), MAX_SWEEP_INTERVAL_MS));
    this.timer = setInterval(() => this.sweep(this.now()), every).unref();
  }

  /** The session `id` and the user who opened it, if it is open. */
  get(id: string): { session: S; user: string | undefined } | undefined {
    const entry = this.entries.get(id);
    return entry && { session: entry.session, user: entry.user };
  }

  /**
   * Admits a session of `user` (making room by closing an idle one if a cap is reached) and stores what
   * `create(id)` returns under a fresh id; `undefined`, with nothing created, when there is no room.
   */
  open(user: string | undefined, create: (id: string) => S): { id: string; session: S } | undefined {
    const own = user === undefined ? undefined : this.byUser.get(user);
    let victim: string | undefined;
    // Closing one of the user's own sessions also makes room in the process (its cap counts every user's).
    if (own && own.size >= this.limits.maxPerUser) {
      victim = this.oldestIdle(own);
      if (!victim) return undefined;
    } else if (this.entries.size >= this.limits.max) {
      victim = this.oldestIdle(this.entries.keys());
      if (!victim) return undefined;
    }
    this.close(victim);

    const id = randomUUID();
    const session = create(id);
    this.entries.set(id, { session, user, inFlight: 0, lastActive: this.now() });
    if (user !== undefined) {
      const ids = this.byUser.get(user) ?? new Set<string>();
      this.byUser.set(user, ids.add(id));
    }
    return { id, session };
  }

  /** Marks a request of session `id` in flight; call the returned function once its response has closed. */
  begin(id: string): () => void {
    const entry = this.entries.get(id);
    if (!entry) return () => undefined;
    entry.inFlight++;
    entry.lastActive = this.now();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      entry.inFlight--;
      entry.lastActive = this.now();
    };
  }

  /** Forgets session `id` (its transport closed). Closes nothing. */
  delete(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    if (entry.user === undefined) return;
    const ids = this.byUser.get(entry.user);
    ids?.delete(id);
    if (ids?.size === 0) this.byUser.delete(entry.user);
  }

  /** Closes every session idle for `idleMs` at `now` (the interval calls it; tests may too). */
  sweep(now: number): void {
    for (const [id, entry] of this.entries) {
      if (entry.inFlight === 0 && now - entry.lastActive >= this.limits.idleMs) this.close(id);
    }
  }

  /** Stops the sweep and closes every session (on application shutdown). */
  async closeAll(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    const sessions = [...this.entries.values()].map((entry) => entry.session);
    this.entries.clear();
    this.byUser.clear();
    await Promise.all(sessions.map((session) => session.close().catch(() => undefined)));
  }

  /** The id, among `ids`, of the session with no request open that was active longest ago. */
  private oldestIdle(ids: Iterable<string>): string | undefined {
    let oldest: { id: string; lastActive: number } | undefined;
    for (const id of ids) {
      const entry = this.entries.get(id);
      if (entry && entry.inFlight === 0 && (!oldest || entry.lastActive < oldest.lastActive)) oldest = { id, lastActive: entry.lastActive };
    }
    return oldest?.id;
  }

  /** Forgets session `id` at once (so the caps count it out) and closes it in the background. */
  private close(id: string | undefined): void {
    const entry = id === undefined ? undefined : this.entries.get(id);
    if (!entry || id === undefined) return;
    this.delete(id);
    void entry.session.close().catch(() => undefined);
  }
}
