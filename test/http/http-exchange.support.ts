/**
 * What the http/ specs share: one real HTTP exchange through a real Express app, with Nest's own `ExecutionContext`
 * (`ExecutionContextHost`, what Nest hands guards and filters) over Express's request and response.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger, type LoggerService } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import express, { type Request, type Response } from 'express';

/** What the client sent. */
export interface ExchangeRequest {
  method?: string;
  /** The request target (path and query). @default '/' */
  path?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** What the client received, and what the route's `handle` returned or threw. */
export interface Exchanged<T> {
  status: number;
  headers: Headers;
  body: string;
  result?: T;
  thrown?: unknown;
}

/** How the app is set up: where the route's handler is (for a guard reading its metadata), Express's `trust proxy`. */
export interface ExchangeSetup {
  controller?: new (...args: never[]) => unknown;
  handler?: (...args: never[]) => unknown;
  /** Take the client's address from X-Forwarded-For (`req.ip`). */
  trustProxy?: boolean;
  /** The route's Express path, for its parameters (`req.params`). @default every path, no parameters */
  route?: string;
}

/**
 * Sends one request to a fresh Express app (urlencoded bodies parsed as Nest's Express adapter parses them) whose one
 * route runs `handle`; answers with what `handle` left on the response (an empty body when it sent nothing). The
 * server is closed before this resolves.
 */
export async function exchange<T>(
  request: ExchangeRequest,
  handle: (context: ExecutionContextHost, req: Request, res: Response) => T | Promise<T>,
  setup: ExchangeSetup = {},
): Promise<Exchanged<T>> {
  const app = express();
  if (setup.trustProxy) app.set('trust proxy', true);
  app.use(express.urlencoded({ extended: true }));
  let result: T | undefined;
  let thrown: unknown;
  const serve = async (req: Request, res: Response, next: () => void): Promise<void> => {
    const context = new ExecutionContextHost([req, res, next], setup.controller as never, setup.handler);
    try {
      result = await handle(context, req, res);
    } catch (error) {
      thrown = error;
    }
    if (!res.headersSent) res.end();
  };
  if (setup.route) app.all(setup.route, serve);
  else app.use(serve);
  const server = createServer(app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}${request.path ?? '/'}`, {
      method: request.method ?? 'GET',
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
    });
    const body = await response.text();
    return { status: response.status, headers: response.headers, body, result, thrown };
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

/**
 * A Nest logger that keeps what it is given, by level, until `restore()` puts the quiet one back. `loggerClass`: the
 * `Logger` of another load of `@nestjs/common` (a module loaded in isolation gets its own).
 */
export function captureLogs(loggerClass: Pick<typeof Logger, 'overrideLogger'> = Logger): {
  warn: string[];
  error: string[];
  debug: string[];
  restore(): void;
} {
  const logs = { warn: [] as string[], error: [] as string[], debug: [] as string[] };
  const keep =
    (into: string[]) =>
    (message: unknown): void => {
      into.push(String(message));
    };
  const logger: LoggerService = {
    log: () => undefined,
    warn: keep(logs.warn),
    error: keep(logs.error),
    debug: keep(logs.debug),
    verbose: () => undefined,
    fatal: keep(logs.error),
  };
  loggerClass.overrideLogger(logger);
  const quiet = () => undefined;
  const restore = (): void => {
    loggerClass.overrideLogger({ log: quiet, warn: quiet, error: quiet });
  };
  return { ...logs, restore };
}
