/**
 * Test-owned redis-server processes (for the Cluster and fault tests): free loopback ports, start/stop
 * with bounded waits, and the skip rule for machines without the binaries.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import type { describe } from '@jest/globals';
import { describeOrSkip } from './describe-or-skip.js';

export const HOST = '127.0.0.1';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Rejects when `promise` takes longer than `ms`. */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`Timed out after ${ms} ms: ${what}`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `check` until it returns true (bounded). */
export async function waitUntil(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}

/** Resolves the port bound (0 = any free one), or undefined if it cannot be bound. */
export function tryBind(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(undefined));
    srv.listen(port, HOST, () => {
      const bound = (srv.address() as { port: number }).port;
      srv.close(() => resolve(bound));
    });
  });
}

/** A free TCP port on the loopback interface. */
export async function freePort(): Promise<number> {
  const port = await tryBind(0);
  if (port === undefined) throw new Error('no free loopback port');
  return port;
}

/**
 * `describe` for tests that run their own redis-server (and redis-cli). Without the binaries they are
 * skipped with a visible message, unless `REQUIRE_REDIS=1`, where they run and fail.
 */
export function describeWithRedisBinaries(binaries: string[] = ['redis-server']): typeof describe {
  const missing = binaries.filter((b) => spawnSync(b, ['--version'], { stdio: 'ignore', timeout: 5_000 }).error);
  return describeOrSkip(missing.length ? `${missing.join(' and ')} not installed (install redis-server 7)` : undefined, 'REQUIRE_REDIS');
}

/** A redis-server this test started. */
export interface ServerProcess {
  port: number;
  child: ChildProcess;
  /** The last few KB of the server's output, for error messages. */
  output(): string;
}

/** Starts `redis-server` with `args` and resolves once it accepts connections (bounded). */
export function startRedisServer(port: number, args: string[], timeoutMs = 15_000): Promise<ServerProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    const done = (error?: Error) => {
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.stderr.off('data', onData);
      child.off('exit', onExit);
      child.off('error', onError);
      // Keep draining the pipes so the server never blocks on a full one.
      child.stdout.resume();
      child.stderr.resume();
      if (error) void stopProcess(child).finally(() => reject(error));
      else resolve({ port, child, output: () => log });
    };
    const onData = (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-8_000);
      if (log.includes('Ready to accept connections')) done();
    };
    const onExit = (code: number | null, signal: string | null) =>
      done(new Error(`redis-server on port ${port} exited early (code ${code}, signal ${signal}):\n${log}`));
    const onError = (error: Error) => done(new Error(`Could not start redis-server: ${error.message}`));
    const timer = setTimeout(() => done(new Error(`redis-server on port ${port} not ready after ${timeoutMs} ms:\n${log}`)), timeoutMs);
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', onExit);
    child.once('error', onError);
  });
}

/**
 * Starts redis-server on `port` with its data in `dir`: append-only file fsynced before every reply
 * (`appendfsync always`), no RDB snapshots. Started again on the same port and directory after a SIGKILL, it
 * holds everything it acknowledged: records, counters and the event stream.
 */
export function startDurableRedis(port: number, dir: string): Promise<ServerProcess> {
  const args = ['--port', String(port), '--bind', HOST, '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'always'];
  return startRedisServer(port, [...args, '--save', '', '--daemonize', 'no']);
}

/** SIGTERM, then SIGKILL if the process has not exited after `graceMs`. Resolves once it is gone (bounded). */
export async function stopProcess(child: ChildProcess, graceMs = 5_000): Promise<void> {
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  if (gone() || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  if (
    await within(graceMs, 'SIGTERM', exited).then(
      () => true,
      () => false,
    )
  )
    return;
  child.kill('SIGKILL');
  await within(5_000, 'SIGKILL', exited).catch(() => undefined);
}
