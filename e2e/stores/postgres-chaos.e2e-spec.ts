/**
 * The PostgreSQL store under chaos: two demo instances (separate processes) on a PostgreSQL server this file owns
 * (its own cluster on a free loopback port), a 2025-11-25 session on A with questions waiting, and the pages answered
 * on B while the instances' listening connections are killed (`pg_terminate_backend`) and while the server restarts.
 * Every answer a page acknowledged reaches A's client as one completion notification: none lost, none twice.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import pg from 'pg';
import { startDemoProcess, type DemoProcess } from '../../examples/demo/demo-process.js';
import { submitPage } from '../../src/testing/index.js';
import { describeWithPostgresBinaries, startPrivatePostgres, type PrivatePostgres } from '../../test/support/postgres-server.js';
import { freePort, sleep, waitUntil } from '../../test/support/redis-server.js';
import { connectClient, textOf, type TestClient } from '../support/mcp-client.js';

/** Questions waiting, answered a third at a time. */
const N = 12;

describeWithPostgresBinaries('the PostgreSQL store when its connections drop and its server restarts', () => {
  let server: PrivatePostgres | undefined;
  const processes: DemoProcess[] = [];
  const clients: TestClient[] = [];
  let a: DemoProcess;
  let b: DemoProcess;

  beforeAll(async () => {
    server = startPrivatePostgres(await freePort());
    const env = {
      ELICITATION_STORE: 'postgres',
      DATABASE_URL: server.url,
      ELICITATION_POSTGRES_PREFIX: 'chaos_',
      // One user asks N questions at once (the default allows 10 a minute).
      ELICITATION_CREATE_PER_MINUTE: '100',
      ELICITATION_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    };
    const started = (p: DemoProcess) => (processes.push(p), p);
    a = started(await startDemoProcess(env));
    b = started(await startDemoProcess(env));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await Promise.all(processes.map((p) => p.stop()));
    server?.stop();
  }, 60_000);

  /** Answers a page on B, again while the store is away (503) or the request fails, until it is acknowledged. */
  async function answerOnB(url: string, key: string): Promise<void> {
    const page = `${b.url}${new URL(url).pathname}`;
    await waitUntil(`the page ${page} acknowledged`, 30_000, async () => {
      const answered = await submitPage(page, { apiKey: key }, { cookie: 'demo_user=chaos-alice' }).catch(() => undefined);
      if (answered?.status === 200) return true;
      await sleep(200);
      return false;
    });
  }

  it('delivers every acknowledged answer to the session on A once: listeners killed, then the server restarted', async () => {
    const client = await connectClient(a.mcpUrl, { user: 'chaos-alice' });
    clients.push(client);
    const asked: Array<{ id: string; url: string; service: string }> = [];
    for (let i = 0; i < N; i++) {
      const service = `svc${i}`;
      const error = await client.client.callTool({ name: 'connect-service', arguments: { service } }).then(
        (result) => new Error(`a result instead of -32042: ${JSON.stringify(result)}`),
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(UrlElicitationRequiredError);
      const [el] = (error as UrlElicitationRequiredError).elicitations;
      asked.push({ id: el.elicitationId, url: el.url, service });
    }

    // 1. Every listening connection killed; the first third answered on B at once, while A reconnects.
    const admin = new pg.Pool({ connectionString: server!.url, max: 1 });
    try {
      const killed = await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN %'`);
      expect(killed.rowCount).toBe(2);
    } finally {
      await admin.end();
    }
    for (const q of asked.slice(0, N / 3)) await answerOnB(q.url, `key-${q.service}`);

    // 2. The server restarted while the rest wait; the second third answered as soon as the pages take answers again.
    server!.restart();
    for (const q of asked.slice(N / 3, (2 * N) / 3)) await answerOnB(q.url, `key-${q.service}`);

    // 3. The last third, after both.
    for (const q of asked.slice((2 * N) / 3)) await answerOnB(q.url, `key-${q.service}`);

    // Both instances listen again, on connections to the restarted server.
    await waitUntil('both instances listening again', 15_000, async () => {
      const check = new pg.Client({ connectionString: server!.url });
      await check.connect();
      try {
        const { rows } = await check.query<{ n: string }>(`SELECT count(*) AS n FROM pg_stat_activity WHERE query LIKE 'LISTEN %'`);
        return Number(rows[0].n) === 2;
      } finally {
        await check.end();
      }
    });

    // Each answer reached A's session once (through the events table: the poll, the catch-up or a notification).
    await waitUntil('every completion notification on A', 30_000, () => Promise.resolve(client.completed.length >= N));
    await sleep(1_500); // a duplicate would show by now (the poll runs every 5 s at most; a notification at once)
    expect([...client.completed].sort()).toEqual(asked.map((q) => q.id).sort());

    // And the tool gets each answer on its retry.
    for (const q of asked) {
      expect(textOf(await client.client.callTool({ name: 'connect-service', arguments: { service: q.service } }))).toBe(
        `Connected to ${q.service}`,
      );
    }
  }, 120_000);
});
