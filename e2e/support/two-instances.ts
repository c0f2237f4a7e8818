/**
 * Two demo instances sharing one store, Redis and then PostgreSQL, with `tasks.leaseMs` of `LEASE_MS` and the demo's
 * test tools (`DEMO_EFFECTS_FILE`) appending their side effects to a file of the suite's own: what the suites on task
 * runs across processes share. The processes (resumed first, should a test have left one stopped), the clients, the
 * store's keys or tables and the file are cleaned up after each store's suite.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe } from '@jest/globals';
import { freePort, startDemoProcess, type DemoProcess } from '../../examples/demo/demo-process.js';
import { connectV2Client, type V2TestClient } from './mcp-v2-client.js';
import { TASKS } from './mcp-tasks-client.js';
import { sharedStores } from './shared-stores.js';

/** The instances' `tasks.leaseMs`: short, so a take-over happens within a test. */
export const LEASE_MS = 3_000;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One store's pair of instances, set before its tests run. */
export interface TwoInstances {
  a: DemoProcess;
  b: DemoProcess;
  /** A 2026-07-28 client of `instance` as `user`: declaring the Tasks extension, or (`tasks: false`) in manual mode. */
  client: (instance: DemoProcess, user: string, options?: { tasks?: boolean }) => Promise<V2TestClient>;
  /** The lines the test tools appended so far, split on spaces (the first is the pid). */
  effects: () => string[][];
  /** What both processes were started with: the store's settings and the shared `ELICITATION_ENCRYPTION_KEY`. */
  env: Record<string, string>;
}

/** How the instances are reached: `host` (e.g. `localhost`, for passkeys, which need a domain name) as their `PUBLIC_URL`. */
export interface TwoInstancesOptions {
  host?: string;
}

/** Runs `suite` once per shared store, against two instances of the demo on it. */
export function describeTwoInstances(
  title: string,
  name: string,
  suite: (instances: TwoInstances) => void,
  options: TwoInstancesOptions = {},
): void {
  const stores = sharedStores(name, randomUUID().slice(0, 8));
  describe.each(Object.keys(stores) as Array<keyof typeof stores>)(`${title} on two instances sharing one %s`, (storeName) => {
    const store = stores[storeName];
    store.describe(`on ${storeName}`, () => {
      const file = join(tmpdir(), `${name}-${randomUUID()}.log`);
      const processes: DemoProcess[] = [];
      const clients: V2TestClient[] = [];
      const instances = {
        client: async (instance, user, { tasks = true } = {}) => {
          const c = await connectV2Client(instance.mcpUrl, { user, manual: !tasks, ...(tasks && { extensions: { [TASKS]: {} } }) });
          clients.push(c);
          return c;
        },
        effects: () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []).map((line) => line.split(' ')),
      } as TwoInstances;

      beforeAll(async () => {
        const env = {
          ...store.env,
          ELICITATION_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
          ELICITATION_TASK_LEASE_MS: String(LEASE_MS),
          DEMO_EFFECTS_FILE: file,
        };
        instances.env = env;
        const start = async () => {
          if (!options.host) return startDemoProcess(env);
          const port = await freePort();
          return startDemoProcess({ ...env, PUBLIC_URL: `http://${options.host}:${port}` }, { port });
        };
        [instances.a, instances.b] = await Promise.all([start(), start()]);
        processes.push(instances.a, instances.b);
      }, 60_000);

      afterAll(async () => {
        for (const p of processes) p.child.kill('SIGCONT');
        await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
        await Promise.all(processes.map((p) => p.stop()));
        await store.cleanUp();
        rmSync(file, { force: true });
      }, 30_000);

      suite(instances);
    });
  });
}
