/**
 * What idle `subscriptions/listen` streams cost a PostgreSQL store (#41 weakness 4: 50 streams on 20 tasks drove
 * PostgreSQL from 8 to 500 transactions a second). TASKS tasks of one user wait for a person (each run once through the
 * binding's runner, up to its form question); `McpTaskNotifications` serves listen streams that follow all of them,
 * polling every POLL_MS; the statements the store's pool sends while the streams idle are counted (each one a
 * transaction of its own), first with one stream, then with LISTEN_STREAMS (1,000). One statement per interval per
 * instance, whatever the streams follow (#46: it was one per followed task per interval, #41: one per stream): 1,000
 * streams cost what one does.
 */
import type pg from 'pg';
import type { McpTasks } from '../src/mcp/tasks/mcp-tasks.js';
import { detailedTask, type TaskBody } from '../src/mcp/tasks/task-body.js';
import { McpTaskNotifications, type FetchMcpHandler } from '../src/mcp/tasks/task-notifications.js';
import { McpCallers } from '../src/mcp/sdk/mcp-callers.js';
import type { ElicitationMcpOptions } from '../src/options/mcp-options.js';
import type { PostgresElicitationStore } from '../src/postgres/index.js';
import { isTerminalTaskStatus, type ElicitationTaskStore, type StoredTask } from '../src/stores/task-store.js';
import { bySize } from './bench-kit.js';
import { releaseTaskRunner } from './release-tasks.js';

export const LISTEN_TASKS = 20;
export const LISTEN_STREAMS = bySize(1_000, 200, 20);
/** The streams' poll interval (`tasks.pollIntervalMs`): short, so that a window holds many polls. */
export const LISTEN_POLL_MS = 250;
const POLL_MS = LISTEN_POLL_MS;
/** How long each count runs, after the streams settled. */
const WINDOW_MS = bySize(5_000, 2_000, 500);
const USER = 'bench-listener';

/** Statements per second the store sent with one stream and with LISTEN_STREAMS, all idle. */
export interface ListenerFigures {
  one: number;
  many: number;
}

/** The `subscriptions/listen` request of a stream following `taskIds`. */
function listenRequest(taskIds: string[]): Request {
  return new Request('http://bench.local/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'mcp-method': 'subscriptions/listen', 'mcp-protocol-version': '2026-07-28' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'subscriptions/listen',
      params: {
        notifications: { taskIds },
        _meta: { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
      },
    }),
  });
}

/** Measures the statements idle listen streams cost `store` (its pool is `pool`, whose statements are counted meanwhile). */
export async function measureIdleListeners(store: PostgresElicitationStore, pool: pg.Pool): Promise<ListenerFigures> {
  const tasks: ElicitationTaskStore = {
    createTask: (task, limit) => store.createTask(task, limit),
    getTask: (id, now) => store.getTask(id, now),
    getTasks: (ids, now) => store.getTasks(ids, now),
    putTask: (task, now, finished) => store.putTask(task, now, finished),
  };
  const runner = releaseTaskRunner(tasks, { ttlMs: 600_000, pollIntervalMs: POLL_MS, maxOpenPerUser: LISTEN_TASKS });
  const ids: string[] = [];
  for (let i = 0; i < LISTEN_TASKS; i++) ids.push((await runner.start('release', { app: `app-${i}` }, USER, ['form'])).task.id);
  for (let waited = 0; ; waited += 50) {
    await new Promise((r) => setTimeout(r, 50));
    const read = await Promise.all(ids.map((id) => store.getTask(id, Date.now())));
    if (read.every((t) => t?.status === 'input_required' && !t.lease)) break;
    if (waited > 30_000) throw new Error('the tasks did not reach their question in 30 s');
  }

  // The binding's view of the tasks, as McpTasks gives it: a stream's first read of each task one getTask, each poll's
  // read of every followed task one getTasks.
  const detailed = (read: { task: StoredTask; body: TaskBody }) => ({
    detail: detailedTask(read.task, read.body),
    terminal: isTerminalTaskStatus(read.task.status),
  });
  const binding = {
    onChange: () => () => undefined,
    detailed: async (taskId: string, user: string) => detailed(await runner.read(taskId, user)),
    detailedMany: async (wanted: Array<{ taskId: string; userId: string }>) =>
      (await runner.readMany(wanted)).map((read) => read && detailed(read)),
  } as unknown as McpTasks;
  const options = {
    resolveMcpUser: () => USER,
    tasks: { pollIntervalMs: POLL_MS, maxListenersPerUser: LISTEN_STREAMS, maxTasksPerListener: LISTEN_TASKS },
  } as unknown as ElicitationMcpOptions;
  const notifications = new McpTaskNotifications(binding, options, new McpCallers(options));
  notifications.onModuleInit();
  const handler = notifications.handler<FetchMcpHandler>({ fetch: () => Promise.resolve(new Response('inner')) });

  const statements = countStatements(pool);
  /** Statements per second while `count` streams follow every task, idle. */
  const rateWith = async (count: number): Promise<number> => {
    /** Each stream's task notifications so far: its first ones are every task's state, read when it opened. */
    const seen = Array.from({ length: count }, () => 0);
    const decoder = new TextDecoder();
    const readers = await Promise.all(
      seen.map(async (_, i) => {
        const response = await handler.fetch(listenRequest(ids));
        const reader = response.body!.getReader();
        void (async () => {
          for (;;) {
            const chunk = await reader.read().catch(() => ({ done: true, value: undefined }));
            if (chunk.done) return;
            seen[i] += decoder.decode(chunk.value).split('notifications/tasks').length - 1;
          }
        })();
        return reader;
      }),
    );
    // Counted once every stream sent each task's state (the reads a stream makes when it opens), after one more poll.
    for (let waited = 0; seen.some((n) => n < LISTEN_TASKS); waited += 20) {
      if (waited > 30_000) throw new Error(`the listen streams did not send every task's state in 30 s (${seen.join(', ')})`);
      await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
    statements.count = 0;
    const started = performance.now();
    await new Promise((r) => setTimeout(r, WINDOW_MS));
    const rate = statements.count / ((performance.now() - started) / 1000);
    await Promise.all(readers.map((reader) => reader.cancel().catch(() => undefined)));
    await new Promise((r) => setTimeout(r, 2 * POLL_MS));
    return rate;
  };
  try {
    const one = await rateWith(1);
    const many = await rateWith(LISTEN_STREAMS);
    return { one, many };
  } finally {
    statements.stop();
    notifications.onModuleDestroy();
    await Promise.all(ids.map((id) => runner.cancel(id, USER).catch(() => undefined)));
  }
}

/** Counts the statements sent on `pool`'s clients (each checkout's `query`, as the store's bounded pool sends them). */
export interface StatementCounter {
  count: number;
  stop(): void;
}

/**
 * Counts the statements `pool`'s clients send from now on, but those `skip` matches: every client checked out of the
 * pool gets a counting `query` (once), so statements are counted whether the store sends them through `pool.query` or
 * through a client it checked out (its bounded pool does).
 */
export function countStatements(pool: pg.Pool, skip: (text: string) => boolean = () => false): StatementCounter {
  const counter = { count: 0, stopped: false, stop: () => undefined as void };
  const counted = new WeakSet<object>();
  const onAcquire = (client: pg.PoolClient) => {
    if (counted.has(client)) return;
    counted.add(client);
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const text = typeof args[0] === 'string' ? args[0] : ((args[0] as { text?: string } | undefined)?.text ?? '');
      if (!counter.stopped && !skip(text)) counter.count++;
      return query(...args);
    };
  };
  pool.on('acquire', onAcquire);
  counter.stop = () => {
    counter.stopped = true;
    pool.off('acquire', onAcquire);
  };
  return counter;
}
