/**
 * `McpSessions`, the bounded bookkeeping of 2025-11-25 sessions (exported for routes users write), on a fake
 * clock. The demo's route over real HTTP and memory under a flood: e2e/mcp/mcp-sessions.e2e-spec.ts; the README's
 * controllers: e2e/docs/readme-controllers.e2e-spec.ts.
 */
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { DEFAULT_MCP_SESSION_LIMITS, McpSessions, type McpSessionLimits } from '../../src/index.js';

interface FakeSession {
  id: string;
  close(): Promise<void>;
}

function make(limits: Partial<McpSessionLimits> = { idleMs: 1_000, maxPerUser: 2, max: 3 }) {
  let now = 0;
  const closed: string[] = [];
  const sessions = new McpSessions<FakeSession>(limits, () => now);
  const open = (user: string) =>
    sessions.open(user, (id) => ({
      id,
      close: () => {
        closed.push(id);
        return Promise.resolve();
      },
    }))?.id;
  return { sessions, open, closed, tick: (ms: number) => (now += ms), at: () => now };
}

describe('McpSessions (the bookkeeping, on a fake clock)', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  it('stores what create(id) returns under a fresh random id, with the user who opened it', () => {
    const { sessions, open } = make();
    const a = open('alice')!;
    const b = open('alice')!;
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(b).not.toBe(a);
    expect(sessions.get(a)).toEqual({ session: expect.objectContaining({ id: a }), user: 'alice' });
    expect(sessions.get('unknown')).toBeUndefined();
    expect(sessions.size).toBe(2);
  });

  it("a user at the cap loses their own oldest idle session, never another user's", () => {
    const { sessions, open, closed, tick } = make({ idleMs: 1_000, maxPerUser: 2, max: 10 });
    const a1 = open('a');
    tick(1);
    const b1 = open('b');
    tick(1);
    const a2 = open('a');
    tick(1);
    expect(open('a')).toBeDefined();
    expect(closed).toEqual([a1]);
    expect(sessions.get(a1!)).toBeUndefined();
    expect(sessions.get(b1!)).toBeDefined();
    expect(sessions.get(a2!)).toBeDefined();
  });

  it('a user whose sessions all have a request open is refused, and nothing is created', () => {
    const { sessions, open, closed } = make({ idleMs: 1_000, maxPerUser: 2, max: 10 });
    for (const id of [open('a')!, open('a')!]) sessions.begin(id);
    const create = jest.fn(() => ({ id: 'x', close: () => Promise.resolve() }));
    expect(sessions.open('a', create)).toBeUndefined();
    expect(create).not.toHaveBeenCalled();
    expect(closed).toEqual([]);
    expect(open('b')).toBeDefined();
  });

  it('a full process closes its oldest idle session (any user), and refuses when every session has a request open', () => {
    const { sessions, open, closed, tick } = make();
    const ids = ['a', 'b', 'c'].map((u) => {
      tick(1);
      return open(u)!;
    });
    for (const id of ids.slice(1)) sessions.begin(id);
    tick(1);
    const d = open('d')!;
    expect(closed).toEqual([ids[0]]);
    const endD = sessions.begin(d);
    expect(open('e')).toBeUndefined();
    endD();
    endD(); // a second call changes nothing
    expect(open('e')).toBeDefined();
    expect(closed).toEqual([ids[0], d]);
    expect(sessions.size).toBe(3);
  });

  it('sweeps sessions idle for idleMs, not those with a request open, and closes all on shutdown', async () => {
    const { sessions, open, closed, tick, at } = make({ idleMs: 1_000, maxPerUser: 5, max: 10 });
    const idle = open('a')!;
    const busy = open('a')!;
    const end = sessions.begin(busy);
    tick(999);
    sessions.sweep(at());
    expect(closed).toEqual([]);
    tick(1);
    sessions.sweep(at());
    expect(closed).toEqual([idle]);
    end();
    tick(999);
    sessions.sweep(at());
    expect(sessions.size).toBe(1);
    await sessions.closeAll();
    expect(closed).toEqual([idle, busy]);
    expect(sessions.size).toBe(0);
  });

  it('start() sweeps on an unref’d interval of idleMs / 2 (at most 30 s) until closeAll()', async () => {
    jest.useFakeTimers({ now: 0 });
    const closed: string[] = [];
    const sessions = new McpSessions<FakeSession>({ idleMs: 1_000 });
    const id = sessions.open('a', (sid) => ({ id: sid, close: () => Promise.resolve(void closed.push(sid)) }))!.id;
    sessions.start();
    sessions.start(); // once
    expect(jest.getTimerCount()).toBe(1);
    jest.advanceTimersByTime(999);
    expect(closed).toEqual([]);
    jest.advanceTimersByTime(500); // the sweep at 1,000 ms finds it idle
    expect(closed).toEqual([id]);
    await sessions.closeAll();
    expect(jest.getTimerCount()).toBe(0);
  });

  it('delete(id) forgets without closing; close(id) forgets and closes, ignoring a failing close', async () => {
    const { sessions, open, closed } = make({ idleMs: 1_000, maxPerUser: 1, max: 10 });
    const a = open('a')!;
    sessions.delete(a);
    expect(sessions.get(a)).toBeUndefined();
    expect(closed).toEqual([]);
    const b = open('a')!; // the per-user count forgot `a` too
    expect(b).toBeDefined();
    await sessions.close(b);
    expect(closed).toEqual([b]);
    const failing = sessions.open('c', (id) => ({ id, close: () => Promise.reject(new Error('already closed')) }))!.id;
    await expect(sessions.close(failing)).resolves.toBeUndefined();
    expect(sessions.size).toBe(0);
  });

  it('opens sessions for verified users only: no user throws and creates nothing', () => {
    const { sessions } = make();
    const create = jest.fn(() => ({ id: 'x', close: () => Promise.resolve() }));
    expect(() => sessions.open('', create)).toThrow(TypeError);
    expect(() => sessions.open(undefined as unknown as string, create)).toThrow(
      'McpSessions.open needs the verified user of the request: answer 401 to a request without one.',
    );
    expect(create).not.toHaveBeenCalled();
    expect(sessions.size).toBe(0);
  });

  it('takes the default of every limit left out, and refuses a limit that is not a whole number above 0', () => {
    expect(DEFAULT_MCP_SESSION_LIMITS).toEqual({ idleMs: 300_000, maxPerUser: 5, max: 1000 });
    const { open, closed } = make({});
    const ids = Array.from({ length: 6 }, () => open('a'));
    expect(ids.every(Boolean)).toBe(true);
    expect(closed).toEqual([ids[0]]);
    for (const [name, value] of [
      ['idleMs', 0],
      ['maxPerUser', 1.5],
      ['max', Number.NaN],
    ] as const) {
      expect(() => new McpSessions({ [name]: value })).toThrow(
        new RangeError(`McpSessions limit "${name}" must be a whole number above 0, got ${value}.`),
      );
    }
  });
  it('closeAll({ graceMs }) waits for the requests in flight to end, at most graceMs, then closes every session', async () => {
    const { sessions, open, closed } = make({ idleMs: 1_000, maxPerUser: 5, max: 5 });
    const a = open('alice')!;
    const b = open('bob')!;
    const endA = sessions.begin(a);
    const endB = sessions.begin(b);
    const closing = sessions.closeAll({ graceMs: 60_000 });
    endA();
    await Promise.resolve();
    expect(closed).toEqual([]); // bob's request is still answering
    endB();
    await closing;
    expect(closed.sort()).toEqual([a, b].sort());
    expect(sessions.size).toBe(0);
  });

  it('closeAll({ graceMs }) closes after graceMs even with a request still in flight', async () => {
    jest.useFakeTimers();
    const { sessions, open, closed } = make();
    const a = open('alice')!;
    sessions.begin(a);
    const closing = sessions.closeAll({ graceMs: 5_000 });
    await jest.advanceTimersByTimeAsync(4_999);
    expect(closed).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    await closing;
    expect(closed).toEqual([a]);
  });
});
