/**
 * Starts the compiled demo app (`dist-demo/examples/demo/main.js`, from `npm run build:demo`) in its own OS
 * process: for the multi-instance tests and the benchmarks, which need real separate processes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { freePort } from './http-server.js';

/**
 * The compiled entry point. This file runs from source under jest (examples/demo/) and compiled in
 * dist-demo/examples/demo/ for the benchmarks; either way main.js is found.
 */
export const DEMO_MAIN = fileURLToPath(
  new URL(import.meta.url.includes('/dist-demo/') ? './main.js' : '../../dist-demo/examples/demo/main.js', import.meta.url),
);

/** The compiled entry point of the same demo on `@rekog/mcp-nest` (`examples/mcp-nest`, `npm run start:mcp-nest`). */
export const MCP_NEST_DEMO_MAIN = fileURLToPath(
  new URL(import.meta.url.includes('/dist-demo/') ? '../mcp-nest/main.js' : '../../dist-demo/examples/mcp-nest/main.js', import.meta.url),
);

/** A demo app running in its own OS process. */
export interface DemoProcess {
  url: string;
  mcpUrl: string;
  port: number;
  child: ChildProcess;
  /** Everything the process printed (for failure messages). */
  output(): string;
  /** Stops the process (SIGTERM, then SIGKILL after 5 s) and waits for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

declare global {
  // A global of the test file: e2e/support/demo-environment.mjs reads it.
  var __liveDemoChildren: Set<ChildProcess> | undefined;
}

/**
 * Every demo process started and not yet exited, so an emergency exit can kill them synchronously. Kept on the global
 * object, where the e2e test environment (e2e/support/demo-environment.mjs) finds it at the end of each file.
 */
export const liveChildren: Set<ChildProcess> = (globalThis.__liveDemoChildren ??= new Set<ChildProcess>());

export { freePort } from './http-server.js';

/**
 * Starts the demo on 127.0.0.1 with `env` (on `port`, or a free one) and waits at most `readyMs` until it
 * prints that it is ready (`ready`: the line another `main` prints, e.g. the benchmark's secure-stack baseline). A
 * process that fails to start is stopped before the error is thrown.
 */
export async function startDemoProcess(
  env: Record<string, string>,
  {
    port,
    readyMs = 45_000,
    main = DEMO_MAIN,
    ready = /MCP elicitation demo .*ready/,
  }: { port?: number; readyMs?: number; main?: string; ready?: RegExp } = {},
): Promise<DemoProcess> {
  if (!existsSync(main)) throw new Error(`${main} is missing: run "npm run build:demo" first`);
  port ??= await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [main], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), PUBLIC_URL: url, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  liveChildren.add(child);
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      liveChildren.delete(child);
      resolve();
    }),
  );
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(killer);
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`demo on port ${port} not ready in ${readyMs / 1000} s:\n${out}`)), readyMs);
      child.stdout.on('data', () => {
        if (ready.test(out)) {
          clearTimeout(timer);
          resolve();
        }
      });
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`demo on port ${port} exited with ${child.exitCode ?? child.signalCode}:\n${out}`));
      });
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, mcpUrl: `${url}/mcp`, port, child, output: () => out, stop };
}
