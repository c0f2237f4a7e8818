import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { TaskProtocolError } from './task-protocol.error.js';
import { InjectMcpOptions, type ElicitationMcpOptions } from '../../options/mcp-options.js';
import { McpTasks, type DetailedTask } from './mcp-tasks.js';
import type { SdkRequestExtra } from '../sdk/sdk.types.js';
import { McpCallers } from '../sdk/mcp-callers.js';
import { TASKS_EXTENSION } from './task-body.js';

/** A fetch-shaped MCP handler: SDK 2.x `createMcpHandler`'s (or any `{ fetch }` that `toNodeHandler` takes). */
export interface FetchMcpHandler {
  fetch(request: Request, options?: { authInfo?: unknown; parsedBody?: unknown }): Promise<Response>;
}

/** The `_meta` key every notification of a subscription carries (its `subscriptions/listen` request id). */
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
/** Streams open at once in this process, every user's (the SDK's own listen router allows as many). */
const MAX_STREAMS = 1024;
/** A comment line on a stream quiet this long, so that proxies keep it open (as the SDK's listen streams do). */
const KEEP_ALIVE_MS = 15_000;

/** One `subscriptions/listen` stream for tasks. */
interface Listening {
  id: string | number;
  user: string;
  /** The tasks it follows, each with the last detailed task sent (JSON). */
  tasks: Map<string, string>;
  lastWrite: number;
  /** Checks of this stream run one after the other (its notifications stay in order). */
  queue: Promise<void>;
  write(message: object | string): void;
  close(graceful: boolean): void;
}

/**
 * `notifications/tasks` (the Tasks extension's status notifications) for clients that listen: wrap the SDK 2.x handler,
 * `handler(createMcpHandler(...))`, and a `subscriptions/listen` request naming `notifications.taskIds` gets a stream
 * of its own: the acknowledgement with the task ids this user may follow, each task's current state, then a
 * notification whenever a task changes (at once for a change made on this instance, within `tasks.pollIntervalMs`
 * for one made on another), until every followed task is finished. Every other request goes to the SDK's handler.
 * One timer in the process polls for all streams; a stream holds no timer of its own.
 */
@Injectable()
export class McpTaskNotifications implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('ElicitationTasks');
  private readonly streams = new Set<Listening>();
  /** Streams open per user (`tasks.maxListenersPerUser`). */
  private readonly perUser = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private unsubscribe?: () => void;

  constructor(
    private readonly tasks: McpTasks,
    @InjectMcpOptions() private readonly options: ElicitationMcpOptions,
    private readonly callers: McpCallers,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.tasks.onChange((taskId) => {
      for (const stream of this.streams) if (stream.tasks.has(taskId)) this.check(stream, taskId);
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
    for (const stream of [...this.streams]) stream.close(true);
  }

  /** Number of task streams open (tests check that closed ones are forgotten). */
  get size(): number {
    return this.streams.size;
  }

  /** `inner` with task notifications: a `subscriptions/listen` for task ids is served here, anything else by `inner`. */
  handler<H extends FetchMcpHandler>(inner: H): H {
    const fetch: FetchMcpHandler['fetch'] = (request, options) =>
      request.method === 'POST' && request.headers.get('mcp-method') === 'subscriptions/listen'
        ? this.listen(inner, request, options)
        : inner.fetch(request, options);
    return Object.assign({}, inner, { fetch });
  }

  private async listen(
    inner: FetchMcpHandler,
    request: Request,
    options?: { authInfo?: unknown; parsedBody?: unknown },
  ): Promise<Response> {
    const body = (options?.parsedBody ??
      (await request
        .clone()
        .json()
        .catch(() => undefined))) as ListenRequest | undefined;
    const taskIds = body?.params?.notifications?.taskIds;
    const id = body?.id;
    // Not for tasks, or not a request this code reads: the SDK's handler answers it (and refuses what it must).
    if (
      taskIds === undefined ||
      (typeof id !== 'string' && typeof id !== 'number') ||
      request.headers.get('mcp-protocol-version') !== '2026-07-28'
    ) {
      return inner.fetch(request, options);
    }
    if (!Array.isArray(taskIds) || taskIds.some((t) => typeof t !== 'string')) {
      return rpcError(id, 200, -32602, 'Invalid params: notifications.taskIds must be an array of task ids');
    }
    const { maxListenersPerUser, maxTasksPerListener } = this.options.tasks;
    if (new Set(taskIds).size > maxTasksPerListener) {
      return limitError(id, 'maxTasksPerListener', maxTasksPerListener, `A listen may follow at most ${maxTasksPerListener} tasks`);
    }
    const meta = body?.params?._meta;
    if (!this.callers.declaresExtension(meta, TASKS_EXTENSION)) {
      const refusal = TaskProtocolError.missingExtension('subscriptions/listen for task notifications');
      return rpcError(id, 400, refusal.code, refusal.message, refusal.data);
    }
    if (this.streams.size >= MAX_STREAMS) return rpcError(id, 200, -32603, 'Subscription limit reached');
    const extra = { requestId: id, signal: request.signal, authInfo: options?.authInfo, _meta: meta } as unknown as SdkRequestExtra;
    const user = this.callers.userOf(extra) ?? '';
    if ((this.perUser.get(user) ?? 0) >= maxListenersPerUser) {
      return limitError(id, 'maxListenersPerUser', maxListenersPerUser, 'Too many task subscriptions open for this user: close one first');
    }
    // The place is taken now (a listen that reads its tasks meanwhile counts); the stream gives it back when it closes.
    this.count(user, +1);
    // The tasks this user may follow: others are left out of the acknowledgement, as unknown ones are.
    const followed = new Map<string, string>();
    for (const taskId of new Set(taskIds as string[])) {
      if (await this.read(taskId, user)) followed.set(taskId, '');
    }
    return this.open(id, user, followed, request.signal);
  }

  /** The stream: acknowledgement, each task's state, then its changes. */
  private open(id: string | number, user: string, tasks: Map<string, string>, signal: AbortSignal): Response {
    const encoder = new TextEncoder();
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let closed = false;
    const stream: Listening = {
      id,
      user,
      tasks,
      lastWrite: Date.now(),
      queue: Promise.resolve(),
      write: (message) => {
        if (closed) return;
        stream.lastWrite = Date.now();
        const frame = typeof message === 'string' ? message : `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', ...message })}\n\n`;
        try {
          controller.enqueue(encoder.encode(frame));
        } catch {
          stream.close(false);
        }
      },
      close: (graceful) => {
        if (closed) return;
        if (graceful) stream.write({ id, result: { resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: id } } });
        closed = true;
        this.streams.delete(stream);
        this.count(user, -1);
        if (this.streams.size === 0) this.stopPolling();
        signal.removeEventListener('abort', onAbort);
        try {
          controller.close();
        } catch {
          // already closed by the client
        }
      },
    };
    const onAbort = () => stream.close(false);
    const readable = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
        stream.write({
          method: 'notifications/subscriptions/acknowledged',
          params: { notifications: { taskIds: [...tasks.keys()] }, _meta: { [SUBSCRIPTION_ID]: id } },
        });
        if (tasks.size === 0) return stream.close(true);
        this.streams.add(stream);
        this.startPolling();
        for (const taskId of tasks.keys()) this.check(stream, taskId);
      },
      cancel: () => stream.close(false),
    });
    if (signal.aborted) stream.close(false);
    else signal.addEventListener('abort', onAbort, { once: true });
    return new Response(readable, {
      status: 200,
      headers: {
        'Content-Type': 'text/event-stream',
        'Cache-Control': 'no-cache, no-transform',
        Connection: 'keep-alive',
        'X-Accel-Buffering': 'no',
      },
    });
  }

  /** Adds `delta` to the user's open streams (a user with none is forgotten). */
  private count(user: string, delta: number): void {
    const open = (this.perUser.get(user) ?? 0) + delta;
    if (open > 0) this.perUser.set(user, open);
    else this.perUser.delete(user);
  }

  /**
   * Reads a followed task (or takes `read`, the poll's one read of it for every stream) and, when what a client sees
   * of it changed, sends it; a finished task is sent once and let go.
   */
  private check(stream: Listening, taskId: string, read?: Promise<Detailed | undefined>): void {
    stream.queue = stream.queue.then(async () => {
      if (!stream.tasks.has(taskId)) return;
      const detailed = await (read ?? this.read(taskId, stream.user));
      if (!detailed) {
        stream.tasks.delete(taskId); // expired (forgotten with its ttlMs)
      } else {
        const { resultType: _complete, ...task } = detailed.detail;
        const seen = JSON.stringify(task);
        if (seen !== stream.tasks.get(taskId)) {
          stream.tasks.set(taskId, seen);
          stream.write({ method: 'notifications/tasks', params: { ...task, _meta: { [SUBSCRIPTION_ID]: stream.id } } });
        }
        if (detailed.terminal) stream.tasks.delete(taskId);
      }
      if (stream.tasks.size === 0) stream.close(true);
    });
    stream.queue = stream.queue.catch((error: unknown) => this.logger.warn(`A task notification failed: ${String(error)}`));
  }

  /** A task as `user` may see it, `undefined` when not (unknown, expired, another user's). */
  private read(taskId: string, user: string): Promise<Detailed | undefined> {
    return this.tasks.detailed(taskId, user).catch(() => undefined);
  }

  /**
   * The one timer: the followed tasks read again (changes made on other instances), all of them in one store call per
   * interval however many streams follow however many tasks (a task is one user's: the same read serves each of their
   * streams), and a keep-alive on a quiet stream.
   */
  private startPolling(): void {
    if (this.timer) return;
    const { pollIntervalMs } = this.options.tasks;
    this.timer = setInterval(() => {
      const now = Date.now();
      const wanted = new Map<string, { taskId: string; userId: string }>();
      for (const stream of this.streams) {
        for (const taskId of stream.tasks.keys()) wanted.set(`${stream.user}\n${taskId}`, { taskId, userId: stream.user });
        if (now - stream.lastWrite >= KEEP_ALIVE_MS) stream.write(': keepalive\n\n');
      }
      if (wanted.size === 0) return;
      // One read of every followed task, in one store call: what each stream sees of its tasks comes from it.
      const all = this.tasks.detailedMany([...wanted.values()]).catch(() => [] as Array<Detailed | undefined>);
      const at = new Map([...wanted.keys()].map((key, i) => [key, i]));
      for (const stream of this.streams) {
        for (const taskId of stream.tasks.keys()) {
          const i = at.get(`${stream.user}\n${taskId}`);
          this.check(
            stream,
            taskId,
            all.then((read) => (i === undefined ? undefined : read[i])),
          );
        }
      }
    }, pollIntervalMs);
    this.timer.unref();
  }

  private stopPolling(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** What this code reads of a `subscriptions/listen` request. */
interface ListenRequest {
  id?: unknown;
  method?: unknown;
  params?: { notifications?: { taskIds?: unknown }; _meta?: Record<string, unknown> };
}

/** A task as `McpTasks.detailed` reads it. */
type Detailed = DetailedTask;

/** -32005 for a listen past one of the limits, naming the option and its value. */
function limitError(id: string | number, option: 'maxListenersPerUser' | 'maxTasksPerListener', value: number, what: string): Response {
  return rpcError(id, 200, -32005, `${what} (tasks.${option} = ${value}).`, { limit: `tasks.${option}`, value });
}

/** A JSON-RPC error answer. */
function rpcError(id: string | number, status: number, code: number, message: string, data?: unknown): Response {
  return Response.json({ jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined && { data }) } }, { status });
}
