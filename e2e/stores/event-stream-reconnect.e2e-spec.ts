/**
 * Events that survive a dropped Redis connection: two demo processes (A and B) on a redis-server this file
 * owns. A tool on A waits for a page; exactly A's Redis connections are killed (`CLIENT KILL ADDR`, found in
 * `CLIENT LIST` by the connection names A's REDIS_URL gives them) just before the page is completed on B. The
 * completion's event is appended to the event stream while A is cut off; once A is back, its reader resumes
 * from the last event it read, so the tool wakes and the MCP client gets `notifications/elicitation/complete`.
 *
 * So that the completion lands while A is cut off on any machine, however fast A would reconnect, A logs in as
 * an ACL user of its own which is switched off before the kill and on again after the completion (a network
 * cut, as Redis sees it). A last test kills A's connections without holding it off, as an outage usually is.
 *
 * Without redis-server the suite is skipped with a visible message, unless REQUIRE_REDIS=1.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, expect, it } from '@jest/globals';
import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { Redis } from 'ioredis';
import { startDemoProcess, type DemoProcess } from '../../examples/demo/demo-process.js';
import { redisClients, type RedisClientInfo } from '../../test/support/redis.js';
import { createElicitationTestClient, submitPage, type ElicitationTestClient, type TestToolResult } from '../../src/testing/index.js';
import {
  describeWithRedisBinaries,
  freePort,
  HOST,
  sleep,
  startRedisServer,
  stopProcess,
  waitUntil,
  within,
  type ServerProcess,
} from '../../test/support/redis-server.js';
import { textOf } from '../support/mcp-client.js';

const PREFIX = `e2e-stream-${randomUUID().slice(0, 8)}`;
/** A's ACL user and password: switched off to keep A from reconnecting. */
const A_USER = 'instance-a';
const A_PASSWORD = randomUUID();
/** The connection names (CLIENT SETNAME) of each instance's connections: the store's, and `<name>:events` for its event reader. */
const A_NAME = 'instance-a';
const B_NAME = 'instance-b';

/** The clients of `redis` whose name is `name` or starts with `name:`. */
async function clientsNamed(admin: Redis, name: string): Promise<RedisClientInfo[]> {
  return (await redisClients(admin)).filter((c) => c.name === name || c.name.startsWith(`${name}:`));
}

/** Kills exactly these connections, by address (`CLIENT KILL ADDR` answers how many it killed: one each). */
async function killByAddress(admin: Redis, clients: RedisClientInfo[]): Promise<void> {
  for (const c of clients) expect([c.name, await admin.call('CLIENT', 'KILL', 'ADDR', c.addr)]).toEqual([c.name, 1]);
}

/** The elicitation id of a page URL. */
const idOf = (url: string) => /\/([0-9a-f-]{36})\/[a-z-]+$/.exec(new URL(url).pathname)![1];
/** The same page on another instance. */
const on = (instance: DemoProcess, url: string) => `${instance.url}${new URL(url).pathname}`;

describeWithRedisBinaries()('events survive a dropped Redis connection (two demo processes, CLIENT KILL)', () => {
  let server: ServerProcess | undefined;
  let admin: Redis;
  let monitor: Redis | undefined;
  let a: DemoProcess;
  let b: DemoProcess;
  const processes: DemoProcess[] = [];
  const clients: ElicitationTestClient[] = [];

  beforeAll(async () => {
    const port = await freePort();
    server = await startRedisServer(port, [
      '--port',
      String(port),
      '--bind',
      HOST,
      '--save',
      '',
      '--appendonly',
      'no',
      '--daemonize',
      'no',
    ]);
    admin = new Redis({ host: HOST, port, maxRetriesPerRequest: 1 });
    expect(await admin.call('ACL', 'SETUSER', A_USER, 'on', `>${A_PASSWORD}`, '~*', '&*', '+@all')).toBe('OK');
    const env = {
      ELICITATION_STORE: 'redis',
      ELICITATION_REDIS_PREFIX: PREFIX,
      ELICITATION_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    };
    const started = await Promise.allSettled([
      startDemoProcess({ ...env, REDIS_URL: `redis://${A_USER}:${A_PASSWORD}@${HOST}:${port}?connectionName=${A_NAME}` }),
      startDemoProcess({ ...env, REDIS_URL: `redis://${HOST}:${port}?connectionName=${B_NAME}` }),
    ]);
    for (const s of started) if (s.status === 'fulfilled') processes.push(s.value);
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    [a, b] = processes;
    // Both readers are up: each instance's event reader is blocked in XREAD.
    await waitUntil('both event readers to wait in XREAD', 10_000, async () =>
      (await Promise.all([A_NAME, B_NAME].map((n) => clientsNamed(admin, `${n}:events`)))).every(
        (c) => c.length === 1 && c[0].cmd === 'xread',
      ),
    );
  }, 60_000);

  /** Each test leaves A's user on, however it ends. */
  afterEach(async () => {
    await admin.call('ACL', 'SETUSER', A_USER, 'on');
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await Promise.all(processes.map((p) => p.stop()));
    monitor?.disconnect();
    admin?.disconnect();
    if (server) await stopProcess(server.child);
  }, 40_000);

  /**
   * A 2025-11-25 client of A calls approve-deploy (its page is a confirm page) and accepts the URL request;
   * resolves once the tool waits on the page: after the client's accept, A reads the record (the waiter's read),
   * seen by MONITOR on A's connection.
   */
  async function toolWaitingOnA(user: string): Promise<{ client: ElicitationTestClient; call: Promise<TestToolResult>; url: string }> {
    monitor ??= await admin.monitor();
    let answered = false;
    const reads: string[] = [];
    const onCommand = (_time: string, args: string[]) => {
      if (answered && String(args[0]).toLowerCase() === 'hmget') reads.push(String(args[1]));
    };
    monitor.on('monitor', onCommand);
    try {
      const client = await createElicitationTestClient({
        url: a.mcpUrl,
        era: '2025-11-25',
        user,
        answer: () => {
          answered = true;
          return { action: 'accept' };
        },
      });
      clients.push(client);
      const call = client.callTool('approve-deploy', { app: `shop-${user}` }, { timeoutMs: 30_000 });
      call.catch(() => undefined); // awaited by the test
      const url = await client.waitForUrl(10_000);
      expect(url.startsWith(`${a.url}/elicit/`)).toBe(true);
      await waitUntil('the tool on A to wait on its page', 10_000, () =>
        Promise.resolve(reads.some((key) => key.endsWith(`:r:${idOf(url)}`))),
      );
      return { client, call, url };
    } finally {
      monitor.off('monitor', onCommand);
    }
  }

  it('wakes the tool waiting on A and notifies its client when the page is confirmed on B while A is cut off', async () => {
    const { client, call, url } = await toolWaitingOnA('bob');
    const id = idOf(url);

    // Cut A off: its user may not log in again, then exactly A's connections are killed, by address.
    expect(await admin.call('ACL', 'SETUSER', A_USER, 'off')).toBe('OK');
    const aConnections = await clientsNamed(admin, A_NAME);
    const bConnections = await clientsNamed(admin, B_NAME);
    expect(aConnections.map((c) => c.name)).toEqual(expect.arrayContaining([A_NAME, `${A_NAME}:events`]));
    await killByAddress(admin, aConnections);

    // The page is confirmed on B: its event is appended to the stream while A cannot read it.
    const page = await submitPage(on(b, url), {}, { cookie: 'demo_user=bob' });
    expect(page.status).toBe(200);
    await sleep(300);
    expect(await clientsNamed(admin, A_NAME)).toEqual([]); // A really is cut off
    expect((await clientsNamed(admin, B_NAME)).map((c) => c.addr).sort()).toEqual(bConnections.map((c) => c.addr).sort()); // B untouched
    expect(client.completions).toEqual([]);
    const stillWaiting = await Promise.race([call.then(() => 'finished'), sleep(50).then(() => 'waiting')]);
    expect(stillWaiting).toBe('waiting');

    // A is let back in: its reader resumes from its last event and finds the completion.
    expect(await admin.call('ACL', 'SETUSER', A_USER, 'on')).toBe('OK');
    const result = await within(15_000, 'the tool on A to finish', call);
    expect(textOf(result)).toBe('Deployed shop-bob');
    await client.completion(id, 10_000);
    expect(client.completions).toEqual([id]);
  }, 60_000);

  it('also when only the blocked reader connection is killed: the -32042 client of A is notified of the completion on B', async () => {
    const client = await createElicitationTestClient({ url: a.mcpUrl, era: '2025-11-25', user: 'carol' });
    clients.push(client);
    const error = await client.callTool('connect-service', { service: 'github' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UrlElicitationRequiredError);
    const [{ elicitationId, url }] = (error as UrlElicitationRequiredError).elicitations as Array<{ elicitationId: string; url: string }>;

    expect(await admin.call('ACL', 'SETUSER', A_USER, 'off')).toBe('OK');
    const readers = await clientsNamed(admin, `${A_NAME}:events`);
    expect(readers).toHaveLength(1);
    expect(readers[0].cmd).toBe('xread');
    const store = await clientsNamed(admin, A_NAME).then((all) => all.filter((c) => c.name === A_NAME));
    await killByAddress(admin, readers);

    const page = await submitPage(on(b, url), { apiKey: `ghp_${randomUUID()}` }, { cookie: 'demo_user=carol' });
    expect(page.status).toBe(200);
    await sleep(300);
    expect(await clientsNamed(admin, `${A_NAME}:events`)).toEqual([]);
    expect((await clientsNamed(admin, A_NAME)).map((c) => c.addr)).toEqual(store.map((c) => c.addr)); // A's store connection untouched
    expect(client.completions).toEqual([]);

    expect(await admin.call('ACL', 'SETUSER', A_USER, 'on')).toBe('OK');
    await client.completion(elicitationId, 15_000);
    expect(client.completions).toEqual([elicitationId]);
    const retry = await client.callTool('connect-service', { service: 'github' });
    expect(textOf(retry)).toBe('Connected to github');
  }, 60_000);

  it('and when A reconnects at once: the kill lands just before the completion, the tool still wakes, once', async () => {
    const { client, call, url } = await toolWaitingOnA('dave');
    const id = idOf(url);
    const killed = killByAddress(admin, await clientsNamed(admin, A_NAME));
    const page = submitPage(on(b, url), {}, { cookie: 'demo_user=dave' });
    await killed;
    expect((await page).status).toBe(200);
    expect(textOf(await within(15_000, 'the tool on A to finish', call))).toBe('Deployed shop-dave');
    await client.completion(id, 10_000);
    await sleep(200); // room for a second notification
    expect(client.completions).toEqual([id]);
  }, 60_000);
});
