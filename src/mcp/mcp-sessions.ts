/**
 * Bounded bookkeeping of protocol 2025-11-25 MCP sessions for a route you write yourself (the README's
 * "Serving MCP over HTTP"). A session holds an SDK server, its transport and its tool registrations (tens of
 * KB) until it closes, so an unbounded map lets any client that reaches the route exhaust the process with
 * `initialize` alone. Nothing here imports an MCP SDK: a session is whatever your route stores, as long as
 * it can be closed.
 */
import { randomUUID } from 'node:crypto';

/** The limits of {@link McpSessions}; every field is a whole number above 0. */
export interface McpSessionLimits {
  /**
   * A session with no request open and none started or ended for this long is closed, in milliseconds. A
   * request open counts (a call waiting minutes for a person keeps its session); an open GET stream does not
   * (mark only other requests with `begin`: clients reopen the stream cheaply).
   * @default 300000 (5 minutes)
   */
  idleMs: number;
  /**
   * Open sessions per user. A user at the cap loses their own oldest idle session to a new one.
   * @default 5
   */
  maxPerUser: number;
  /**
   * Open sessions in the process, all users together. A full process loses its oldest idle session (any
   * user's) to a new one.
   * @default 1000
   */
  max: number;
}

/** The defaults of {@link McpSessionLimits}: 5 idle minutes, 5 sessions per user, 1000 per process. */
export const DEFAULT_MCP_SESSION_LIMITS: Readonly<McpSessionLimits> = Object.freeze({ idleMs: 5 * 60_000, maxPerUser: 5, max: 1000 });

/**
 * The `Retry-After` (seconds) to send with the 503 of an `initialize` that `McpSessions.open` refused. A guess: a
 * slot frees as soon as one of the full user's (or the process's) sessions has no request open, and calls that
 * wait for a person can take minutes.
 */
export const MCP_SESSION_RETRY_AFTER_S = 5;

/** The longest pause between two idle sweeps (ms); shorter when `idleMs` is short. */
const MAX_SWEEP_INTERVAL_MS = 30_000;
/** The shortest pause between two idle sweeps (ms), for very short `idleMs` (tests). */
const MIN_SWEEP_INTERVAL_MS = 50;

/**
 * What {@link McpSessions} needs of a session: a way to close it. With the SDK, `close` is the server's
 * `close()`, which closes its transport (ending its streams) and makes the elicitation binding forget the
 * session's pairings.
 */
export interface McpSessionHandle {
  close(): Promise<void>;
}

/** One open session in {@link McpSessions}. */
interface Entry<S> {
  session: S;
  /** The verified user who opened it. */
  user: string;
  /** Requests whose response is still open (those marked with `begin`). */
  inFlight: number;
  /** When the last marked request started or ended (ms, the clock given to the constructor). */
  lastActive: number;
}

/**
 * The open protocol 2025-11-25 sessions of one process, bounded: by user, overall, and by an idle timeout.
 * Your route keeps its SDK servers and transports in it (see the README's `examples/readme` controllers):
 *
 * - `open(user, create)` admits a session of a verified user under a fresh id (the transport's session id):
 *   a user at `maxPerUser` first loses their own oldest idle session, a process at `max` its oldest idle
 *   session (any user's); when none is idle nothing is created and it answers `undefined` (send 503 with
 *   `Retry-After: MCP_SESSION_RETRY_AFTER_S`).
 * - `get(id)` finds it again with its user, for the check that a later request comes from the same user.
 * - `begin(id)` marks a request in flight until the returned function is called (when its response closes).
 *   A session with a request in flight is never idle: it is neither evicted nor expired.
 * - `start()` runs one unref'd interval that closes sessions idle for `idleMs`, between `idleMs` and `idleMs`
 *   plus one sweep (at most `idleMs / 2`, at most 30 s) after their last request; `closeAll()` stops it and
 *   closes everything (call them on application bootstrap and shutdown).
 *
 * Every session belongs to a verified user: open one only after your MCP authorization identified the
 * request (a 401 otherwise), so that nobody can hold sessions without an account. Closing goes through the
 * session's `close()`; your transport's `onclose` calls `delete(id)`.
 */
export class McpSessions<S extends McpSessionHandle> {
  private readonly limits: Readonly<McpSessionLimits>;
  private readonly entries = new Map<string, Entry<S>>();
  private readonly byUser = new Map<string, Set<string>>();
  private timer: NodeJS.Timeout | undefined;
  /** `closeAll({ graceMs })` calls waiting for no request to be in flight. */
  private idleWaiters: Array<() => void> = [];

  /**
   * @param limits the caps and the idle timeout; a field left out takes its default
   *   ({@link DEFAULT_MCP_SESSION_LIMITS}). A value that is not a whole number above 0 throws a `RangeError`.
   * @param now the clock, in milliseconds (tests pass a fake one). @default Date.now
   */
  constructor(
    limits: Partial<McpSessionLimits> = {},
    private readonly now: () => number = Date.now,
  ) {
    const resolved = { ...DEFAULT_MCP_SESSION_LIMITS };
    for (const name of ['idleMs', 'maxPerUser', 'max'] as const) {
      const value = limits[name];
      if (value === undefined) continue;
      if (!Number.isSafeInteger(value) || value <= 0) {
        throw new RangeError(`McpSessions limit "${name}" must be a whole number above 0, got ${String(value)}.`);
      }
      resolved[name] = value;
    }
    this.limits = resolved;
  }

  /** The number of open sessions. */
  get size(): number {
    return this.entries.size;
  }

  /** Starts the idle sweep: one interval for all sessions, unref'd so that it never keeps the process alive. */
  start(): void {
    if (this.timer) return;
    const every = Math.max(MIN_SWEEP_INTERVAL_MS, Math.min(Math.floor(this.limits.idleMs / 2), MAX_SWEEP_INTERVAL_MS));
    this.timer = setInterval(() => this.sweep(this.now()), every).unref();
  }

  /** Session `id` and the user who opened it, while it is open. */
  get(id: string): { session: S; user: string } | undefined {
    const entry = this.entries.get(id);
    return entry && { session: entry.session, user: entry.user };
  }

  /**
   * Admits a session of `user`, the request's verified user (making room by closing an idle session if a cap
   * is reached), and stores what `create(id)` returns under a fresh random id. Answers `undefined`, with
   * nothing created, when there is no room. Throws a `TypeError` without a user: sessions are for verified
   * users only.
   */
  open(user: string, create: (id: string) => S): { id: string; session: S } | undefined {
    if (typeof user !== 'string' || user === '') {
      throw new TypeError('McpSessions.open needs the verified user of the request: answer 401 to a request without one.');
    }
    const own = this.byUser.get(user);
    let victim: string | undefined;
    // Closing one of the user's own sessions also makes room in the process (its cap counts every user's).
    if (own && own.size >= this.limits.maxPerUser) {
      victim = this.oldestIdle(own);
      if (!victim) return undefined;
    } else if (this.entries.size >= this.limits.max) {
      victim = this.oldestIdle(this.entries.keys());
      if (!victim) return undefined;
    }
    if (victim !== undefined) void this.close(victim);

    const id = randomUUID();
    const session = create(id);
    this.entries.set(id, { session, user, inFlight: 0, lastActive: this.now() });
    this.byUser.set(user, (own ?? new Set<string>()).add(id));
    return { id, session };
  }

  /**
   * Marks a request of session `id` in flight; call the returned function once its response has closed
   * (`res.once('close', sessions.begin(id))`; extra calls are ignored). Leave the GET stream unmarked.
   */
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
      if (entry.inFlight === 0) this.notifyIfIdle();
    };
  }

  /** Forgets session `id` (from its transport's `onclose`). Closes nothing. */
  delete(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    const ids = this.byUser.get(entry.user);
    ids?.delete(id);
    if (ids?.size === 0) this.byUser.delete(entry.user);
    if (entry.inFlight > 0) this.notifyIfIdle();
  }

  /**
   * Forgets session `id` at once (so that the caps count it out) and closes it; a failing `close()` is
   * ignored. For a session no client knows (its transport refused the `initialize`).
   */
  async close(id: string): Promise<void> {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.delete(id);
    await entry.session.close().catch(() => undefined);
  }

  /** Closes every session idle for `idleMs` at `now` (the interval calls it; tests may too). */
  sweep(now: number): void {
    for (const [id, entry] of this.entries) {
      if (entry.inFlight === 0 && now - entry.lastActive >= this.limits.idleMs) void this.close(id);
    }
  }

  /** Stops the sweep and closes every session (on application shutdown). */
  /**
   * Stops the idle sweep and closes every session. With `graceMs`, first waits (at most that long) until no
   * session has a request in flight, so that answers being written (a tool that just ended because the app is
   * shutting down) reach their clients: call it from `beforeApplicationShutdown`, before the HTTP server closes
   * (which waits for every open response, the sessions' GET streams included). @default graceMs 0
   */
  async closeAll({ graceMs = 0 }: { graceMs?: number } = {}): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    if (graceMs > 0 && this.busy()) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => this.idleWaiters.push(resolve)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs))),
      ]);
      clearTimeout(timer);
    }
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

  /** Whether any session has a request in flight. */
  private busy(): boolean {
    for (const entry of this.entries.values()) if (entry.inFlight > 0) return true;
    return false;
  }

  /** Wakes `closeAll({ graceMs })` once no request is in flight. */
  private notifyIfIdle(): void {
    if (this.idleWaiters.length === 0 || this.busy()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of waiters) wake();
  }
}
