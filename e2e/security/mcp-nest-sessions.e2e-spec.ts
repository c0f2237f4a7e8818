/**
 * The MCP-Nest demo's 2025-11-25 sessions are bounded as the SDK demo's are (issue 28, item 6): MCP-Nest 2.0.5
 * bounds none, so the demo's own route (`examples/mcp-nest/mcp-http.controller.ts`) keeps them in the package's
 * `McpSessions`: a cap per user and overall (the oldest idle session makes room, else 503 with `Retry-After`) and an
 * idle timeout, and a session it closes is ended in MCP-Nest too (its GET stream ends; a flood leaves the memory
 * flat). Small limits through the demo's environment (`MCP_MAX_SESSIONS_PER_USER`, `MCP_MAX_SESSIONS`,
 * `MCP_SESSION_IDLE_MS`); the demo runs compiled as its own process (Jest cannot load MCP-Nest).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MCP_NEST_DEMO_MAIN, startDemoProcess, type DemoProcess } from '../../examples/demo/demo-process.js';

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'sessions', version: '1.0.0' } },
});

const headers = (user?: string, sessionId?: string): Record<string, string> => ({
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
  ...(user ? { Authorization: `Bearer ${user}` } : {}),
  ...(sessionId ? { 'Mcp-Session-Id': sessionId, 'Mcp-Protocol-Version': '2025-11-25' } : {}),
});

interface Answer {
  status: number;
  sessionId: string | null;
  retryAfter: string | null;
  body: string;
}

async function initialize(mcpUrl: string, user: string): Promise<Answer> {
  const res = await fetch(mcpUrl, { method: 'POST', headers: headers(user), body: INITIALIZE });
  return {
    status: res.status,
    sessionId: res.headers.get('mcp-session-id'),
    retryAfter: res.headers.get('retry-after'),
    body: await res.text(),
  };
}

/** An `initialize` that must open a session: its id. */
async function open(mcpUrl: string, user: string): Promise<string> {
  const answer = await initialize(mcpUrl, user);
  expect(answer.status).toBe(200);
  if (!answer.sessionId) throw new Error(`no session id: ${answer.body}`);
  return answer.sessionId;
}

/** A `ping` on a session as `user`: 200 while it is open and theirs, 404 once it is closed. */
async function ping(mcpUrl: string, sessionId: string, user?: string): Promise<number> {
  const res = await fetch(mcpUrl, {
    method: 'POST',
    headers: headers(user, sessionId),
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  await res.text();
  return res.status;
}

/** Opens a session's standing GET stream; `ended` resolves once the server ends it (MCP-Nest closed the session). */
async function openStream(mcpUrl: string, user: string, sessionId: string): Promise<{ ended: Promise<'ended'>; abort(): void }> {
  const controller = new AbortController();
  const res = await fetch(mcpUrl, {
    headers: {
      Accept: 'text/event-stream',
      Authorization: `Bearer ${user}`,
      'Mcp-Session-Id': sessionId,
      'Mcp-Protocol-Version': '2025-11-25',
    },
    signal: controller.signal,
  });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const ended = (async () => {
    while (!(await reader.read()).done);
    return 'ended' as const;
  })();
  ended.catch(() => undefined);
  return { ended, abort: () => controller.abort() };
}

const within = <T>(promise: Promise<T>, ms: number): Promise<T | 'still open'> =>
  Promise.race([promise, new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), ms))]);

/** A session whose `delete-file` call stays in flight: its form question is never answered (abort ends the call). */
async function busySession(mcpUrl: string, user: string, calls: AbortController[]): Promise<string> {
  const init = JSON.parse(INITIALIZE) as { params: { capabilities: object } };
  init.params.capabilities = { elicitation: { form: {} } };
  const res = await fetch(mcpUrl, { method: 'POST', headers: headers(user), body: JSON.stringify(init) });
  await res.text();
  const id = res.headers.get('mcp-session-id');
  if (res.status !== 200 || !id) throw new Error(`${user}: initialize answered ${res.status}`);
  await (
    await fetch(mcpUrl, {
      method: 'POST',
      headers: headers(user, id),
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    })
  ).text();
  const call = new AbortController();
  calls.push(call);
  const answer = await fetch(mcpUrl, {
    method: 'POST',
    headers: headers(user, id),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'delete-file', arguments: { path: '/srv/busy.txt' } },
    }),
    signal: call.signal,
  });
  // The question arrives on the call's stream; the call then waits for the answer.
  const reader = answer.body!.getReader();
  let seen = '';
  while (!seen.includes('elicitation/create')) {
    const chunk = await reader.read();
    if (chunk.done) throw new Error(`${user}: the call ended without asking: ${seen}`);
    seen += new TextDecoder().decode(chunk.value);
  }
  return id;
}

/** Loaded into the demo process: on SIGWINCH, full GCs, then the V8 heap in use on stderr (as e2e/mcp/mcp-sessions). */
const GC_ON_SIGNAL = `process.on('SIGWINCH', async () => {
  for (let i = 0; i < 4; i++) {
    globalThis.gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  process.stderr.write('gc-heap-used ' + process.memoryUsage().heapUsed + '\\n');
});
`;

/** The demo process's V8 heap in use after full GCs, in MB. */
async function heapAfterGc(p: DemoProcess): Promise<number> {
  const seen = p.output().length;
  p.child.kill('SIGWINCH');
  for (const deadline = Date.now() + 3_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
    const heapUsed = /gc-heap-used (\d+)/.exec(p.output().slice(seen));
    if (heapUsed) return Number(heapUsed[1]) / 2 ** 20;
  }
  throw new Error(`the demo process did not report its heap:\n${p.output()}`);
}

describe('MCP-Nest demo sessions: caps (2 per user, 3 in the process)', () => {
  let demo: DemoProcess;
  let preloadDir: string;
  const calls: AbortController[] = [];

  beforeAll(async () => {
    preloadDir = mkdtempSync(join(tmpdir(), 'mcp-nest-sessions-'));
    const preload = join(preloadDir, 'gc-on-signal.mjs');
    writeFileSync(preload, GC_ON_SIGNAL);
    demo = await startDemoProcess(
      {
        MCP_MAX_SESSIONS_PER_USER: '2',
        MCP_MAX_SESSIONS: '3',
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --expose-gc --import=${pathToFileURL(preload).href}`.trim(),
      },
      { main: MCP_NEST_DEMO_MAIN, readyMs: 60_000 },
    );
  }, 90_000);

  afterAll(async () => {
    for (const call of calls) call.abort();
    await demo?.stop();
    rmSync(preloadDir, { recursive: true, force: true });
  }, 30_000);

  it("a user's third session closes their oldest idle one, in MCP-Nest too (its GET stream ends); the others serve", async () => {
    const first = await open(demo.mcpUrl, 'alice');
    const stream = await openStream(demo.mcpUrl, 'alice', first);
    const second = await open(demo.mcpUrl, 'alice');
    expect(await within(stream.ended, 300)).toBe('still open');
    const third = await open(demo.mcpUrl, 'alice');
    expect(await within(stream.ended, 3_000)).toBe('ended');
    expect(await ping(demo.mcpUrl, first, 'alice')).toBe(404);
    expect(await ping(demo.mcpUrl, second, 'alice')).toBe(200);
    expect(await ping(demo.mcpUrl, third, 'alice')).toBe(200);

    // Another user's and an anonymous request on alice's session are refused; the owner's DELETE ends it.
    expect(await ping(demo.mcpUrl, second, 'bob')).toBe(403);
    expect(await ping(demo.mcpUrl, second)).toBe(401);
    for (const id of [second, third]) {
      const res = await fetch(demo.mcpUrl, { method: 'DELETE', headers: headers('alice', id) });
      expect(res.status).toBe(200);
      expect(await ping(demo.mcpUrl, id, 'alice')).toBe(404);
    }
  });

  it('a full process whose sessions all have a call in flight answers 503 with Retry-After, and keeps them', async () => {
    const busy = [
      await busySession(demo.mcpUrl, 'bea', calls),
      await busySession(demo.mcpUrl, 'cy', calls),
      await busySession(demo.mcpUrl, 'dan', calls),
    ];
    const refused = await initialize(demo.mcpUrl, 'eve');
    expect(refused).toEqual({
      status: 503,
      sessionId: null,
      retryAfter: '5',
      body: JSON.stringify({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Too many open sessions: close one or retry later' },
        id: null,
      }),
    });
    expect(await ping(demo.mcpUrl, busy[0], 'bea')).toBe(200);
    expect(await ping(demo.mcpUrl, busy[1], 'cy')).toBe(200);
    expect(await ping(demo.mcpUrl, busy[2], 'dan')).toBe(200);
    // bea's call ends (her client hung up): her session is idle, and makes room for eve.
    calls[0].abort();
    for (const deadline = Date.now() + 3_000; ; await new Promise((r) => setTimeout(r, 50))) {
      const answer = await initialize(demo.mcpUrl, 'eve');
      if (answer.status === 200 || Date.now() > deadline) {
        expect(answer.status).toBe(200);
        break;
      }
    }
    expect(await ping(demo.mcpUrl, busy[0], 'bea')).toBe(404);
    expect(await ping(demo.mcpUrl, busy[1], 'cy')).toBe(200);
    for (const call of calls) call.abort();
  }, 30_000);

  it('500 identified initialize keep the heap flat: closed sessions are forgotten by MCP-Nest too', async () => {
    await open(demo.mcpUrl, 'warm-up');
    const before = await heapAfterGc(demo);
    for (let round = 0; round < 50; round++) {
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => initialize(demo.mcpUrl, `flood-${i % 5}`)));
      expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    }
    const after = await heapAfterGc(demo);
    console.log(`mcp-nest sessions: 500 initialize → heap used ${before.toFixed(1)} → ${after.toFixed(1)} MB`);
    // Kept, 500 MCP-Nest sessions hold about 8 MB (each an SDK server, its transport and tool registrations).
    expect(after - before).toBeLessThan(4);
  }, 60_000);
});

describe('MCP-Nest demo sessions: the idle timeout (MCP_SESSION_IDLE_MS=500)', () => {
  let demo: DemoProcess;
  const calls: AbortController[] = [];

  beforeAll(async () => {
    demo = await startDemoProcess({ MCP_SESSION_IDLE_MS: '500' }, { main: MCP_NEST_DEMO_MAIN, readyMs: 60_000 });
  }, 90_000);

  afterAll(async () => {
    for (const call of calls) call.abort();
    await demo?.stop();
  }, 30_000);

  it('closes a session without requests (an open GET stream does not count), in MCP-Nest too; a call in flight keeps its session', async () => {
    const busy = await busySession(demo.mcpUrl, 'kim', calls);
    const started = Date.now();
    const idle = await open(demo.mcpUrl, 'lee');
    const stream = await openStream(demo.mcpUrl, 'lee', idle);
    expect(await within(stream.ended, 5_000)).toBe('ended');
    // Not before idleMs after the initialize (then within one sweep, idleMs / 2, where the machine keeps up).
    expect(Date.now() - started).toBeGreaterThanOrEqual(490);
    expect(await ping(demo.mcpUrl, idle, 'lee')).toBe(404);
    // kim's call has waited for a person all along (over 2 idle timeouts): the session stays.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await ping(demo.mcpUrl, busy, 'kim')).toBe(200);
  }, 30_000);
});
