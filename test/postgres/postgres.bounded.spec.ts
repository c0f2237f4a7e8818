/**
 * A PostgreSQL store that never hangs (#41 part 6), on a real PostgreSQL: with its records table locked by another
 * session, every operation fails within `operationTimeoutMs` with `ElicitationStoreUnavailableError` naming the bound,
 * on the store's own pool and on the app's; a dozen such calls leave the pool usable (a task on an unlocked table is
 * read at once) and no statement of the store waiting on the server (each was cancelled); a pool with no client to
 * give fails within the bound too; once the lock goes, the same store works again. The status route answers 503 with
 * `Retry-After` meanwhile.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import pg from 'pg';
import request from 'supertest';
import { ElicitationConfigError } from '../../src/errors/elicitation-config.error.js';
import { ElicitationStoreUnavailableError } from '../../src/errors/elicitation-store-unavailable.error.js';
import { PostgresElicitationStore } from '../../src/postgres/postgres.store.js';
import { DATABASE_URL, describePostgres, dropSchema } from '../support/postgres.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { ElicitationModule } from '../../src/module/elicitation.module.js';
import { keyed, TEST_ENCRYPTION_KEY } from '../support/store-keys.js';
import { pendingRecord } from '../support/store-contract.js';

const SCHEMA = `bounded_${randomUUID().slice(0, 8)}`;
// A bound a loaded CI machine (two lanes side by side on 2 CPUs) meets for one uncontended statement.
const BOUND_MS = 1_000;

/** How long `work` took to settle, and how. */
async function timed<T>(work: Promise<T>): Promise<{ ms: number; error?: unknown; value?: T }> {
  const started = performance.now();
  try {
    const value = await work;
    return { ms: performance.now() - started, value };
  } catch (error) {
    return { ms: performance.now() - started, error };
  }
}

describePostgres('PostgresElicitationStore: every operation ends within operationTimeoutMs', () => {
  let admin: pg.Pool;
  const stores: PostgresElicitationStore[] = [];
  const pools: pg.Pool[] = [];

  const store = async (pool: pg.Pool | string, prefix: string, operationTimeoutMs = BOUND_MS) => {
    const created = keyed(new PostgresElicitationStore(pool, { schema: SCHEMA, tablePrefix: prefix, operationTimeoutMs }));
    stores.push(created);
    await created.createSchema();
    await created.onModuleInit();
    return created;
  };

  /** Holds an ACCESS EXCLUSIVE lock on `table` (every read and write of it waits) until the returned release. */
  const lock = async (table: string): Promise<() => Promise<void>> => {
    const holder = await admin.connect();
    await holder.query('BEGIN');
    await holder.query(`LOCK TABLE ${SCHEMA}.${table} IN ACCESS EXCLUSIVE MODE`);
    return async () => {
      await holder.query('ROLLBACK');
      holder.release();
    };
  };

  /** Statements waiting for a lock on the server now, of the store's prefix. */
  const waiting = async (prefix: string) => {
    const { rows } = await admin.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`,
      [`%${SCHEMA}.${prefix}%`],
    );
    return rows[0].n;
  };

  beforeAll(() => {
    admin = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.onModuleDestroy()));
    await Promise.all(pools.map((p) => p.end()));
    await dropSchema(admin, SCHEMA);
    await admin.end();
  });

  it('refuses an operationTimeoutMs under 100 ms, naming the option and the value', () => {
    expect(() => new PostgresElicitationStore(DATABASE_URL, { operationTimeoutMs: 50 })).toThrow(ElicitationConfigError);
    expect(() => new PostgresElicitationStore(DATABASE_URL, { operationTimeoutMs: 50 })).toThrow(/operationTimeoutMs.*at least 100.*50/s);
  });

  describe.each([
    ['its own pool (a connection string)', 'own_', () => DATABASE_URL],
    [
      "the app's pool (4 clients)",
      'app_',
      () => {
        const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
        pools.push(pool);
        return pool;
      },
    ],
  ] as const)('on %s', (_name, prefix, poolOf) => {
    it('with its records table locked, a dozen reads and writes each fail within the bound, naming it; the pool still serves tasks; nothing is left waiting on the server', async () => {
      const s = await store(poolOf(), prefix);
      const kept = pendingRecord({ userId: 'alice' });
      expect(await s.create(kept)).toBe('created');
      const release = await lock(`${prefix}records`);
      try {
        const calls = await Promise.all([
          ...Array.from({ length: 10 }, () => timed(s.get(kept.id, Date.now()))),
          timed(s.create(pendingRecord({ userId: 'bob' }))),
          timed(s.listByUser('alice', Date.now())),
        ]);
        for (const call of calls) {
          expect(call.error).toBeInstanceOf(ElicitationStoreUnavailableError);
          expect(String((call.error as Error).message)).toMatch(/operationTimeoutMs \(1000 ms\)/);
          // Within the bound (and a margin for a busy machine), never as long as the lock is held.
          expect(call.ms).toBeGreaterThanOrEqual(BOUND_MS - 150);
          expect(call.ms).toBeLessThan(BOUND_MS + 2_500);
        }
        // The tasks table is not locked: a task is read at once although a dozen calls timed out before it.
        const task = { id: randomUUID(), userId: 'alice', status: 'working' as const, createdAt: Date.now(), updatedAt: Date.now() };
        const created = await timed(
          s.createTask({ ...task, expiresAt: Date.now() + 60_000, version: 1, body: '{}' }, { maxOpenPerUser: 5 }),
        );
        expect(created.error).toBeUndefined();
        expect(created.value).toBe('created');
        expect((await s.getTask(task.id, Date.now()))?.id).toBe(task.id);
        // Each timed-out statement was cancelled on the server (or ended by its own lock_timeout), not left queued.
        const started = Date.now();
        while ((await waiting(prefix)) > 0 && Date.now() - started < 3_000) await new Promise((r) => setTimeout(r, 50));
        expect(await waiting(prefix)).toBe(0);
      } finally {
        await release();
      }
      // The lock gone, the same store works: nothing stored was lost.
      expect((await s.get(kept.id, Date.now()))?.status).toBe('pending');
    });
  });

  it('an app pool with no client to give: the operation fails within the bound, and the late client goes back to the pool', async () => {
    const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
    pools.push(pool);
    const s = await store(pool, 'busy_');
    const taken = await pool.connect();
    const ping = await timed(s.ping());
    expect(ping.error).toBeInstanceOf(ElicitationStoreUnavailableError);
    expect(String((ping.error as Error).message)).toMatch(/waiting for a connection from the pool/);
    expect(ping.ms).toBeLessThan(BOUND_MS + 2_500);
    taken.release();
    // The client the timed-out wait got later was handed back: the pool serves the next call.
    await expect(s.ping()).resolves.toBeUndefined();
    expect(pool.idleCount + pool.waitingCount).toBeLessThanOrEqual(1);
  });

  it('the status route answers 503 with Retry-After while the table is locked, and 200 after', async () => {
    const s = await store(DATABASE_URL, 'http_');
    const moduleRef = await Test.createTestingModule({
      imports: [
        ElicitationModule.forRoot({
          baseUrl: 'https://mcp.example.com',
          resolvePageUser: () => 'alice',
          cleanupIntervalMs: 0,
          store: s,
          encryptionKey: TEST_ENCRYPTION_KEY,
        }),
      ],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    const service = app.get(ElicitationService);
    try {
      const { elicitationId } = await service.createUrlElicitation({ kind: 'confirm', message: 'Go?', userId: 'alice' });
      const release = await lock('http_records');
      try {
        const started = Date.now();
        const res = await request(app.getHttpServer() as Server).get(`/elicit/${elicitationId}/status`);
        expect(res.status).toBe(503);
        expect(res.headers['retry-after']).toBe('5');
        expect(Date.now() - started).toBeLessThan(BOUND_MS + 2_500);
      } finally {
        await release();
      }
      expect((await request(app.getHttpServer() as Server).get(`/elicit/${elicitationId}/status`)).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});
