/**
 * PostgresElicitationStore on a real PostgreSQL: the shared store contract suite (records, counters, tasks), then what
 * is PostgreSQL's own (the schema check, a race of finishers, what is stored in clear, the events between two stores).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import type { ElicitationEvent } from '../../src/core/elicitation.types.js';
import { ElicitationConfigError } from '../../src/errors/elicitation-config.error.js';
import { ElicitationStoreUnavailableError } from '../../src/errors/elicitation-store-unavailable.error.js';
import { PostgresElicitationStore } from '../../src/postgres/postgres.store.js';
import { DATABASE_URL, describePostgres, dropSchema } from '../support/postgres.js';
import { keyed } from '../support/store-keys.js';
import { compileElicitation } from '../support/testing-module.js';
import { describeElicitationStoreContract, pendingRecord, SHARED_STORE_OFFERS } from '../support/store-contract.js';

const SCHEMA = `test_${randomUUID().slice(0, 8)}`;
let pool: pg.Pool;
let n = 0;
const stores: PostgresElicitationStore[] = [];

/** A store on its own table prefix, its schema created, with the test keys. */
async function freshStore(prefix = `s${++n}_`): Promise<PostgresElicitationStore> {
  const store = keyed(new PostgresElicitationStore(pool, { schema: SCHEMA, tablePrefix: prefix, eventPollMs: 200 }));
  await store.createSchema();
  await store.onModuleInit();
  stores.push(store);
  return store;
}

describePostgres('PostgresElicitationStore on a real PostgreSQL', () => {
  beforeAll(() => {
    pool = new pg.Pool({ connectionString: DATABASE_URL, max: 20 });
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.onModuleDestroy()));
    await dropSchema(pool, SCHEMA);
    await pool.end();
  });

  describeElicitationStoreContract('PostgresElicitationStore', () => freshStore(), {
    offers: [...SHARED_STORE_OFFERS, 'listOpen', 'addNotices', 'claimNotices', 'settleNotice', 'noticeStats'],
  });

  describe('PostgreSQL specifics', () => {
    it('refuses to start without its schema, naming the fix; createSchema() is idempotent', async () => {
      const store = keyed(new PostgresElicitationStore(pool, { schema: SCHEMA, tablePrefix: 'missing_' }));
      await expect(store.onModuleInit()).rejects.toThrow(ElicitationConfigError);
      await expect(store.onModuleInit()).rejects.toThrow(
        /schema version 6 .* found none: run sql\/postgres\/0001_elicitation.sql, sql\/postgres\/0002_named_columns.sql, sql\/postgres\/0003_finished_tasks.sql, sql\/postgres\/0004_sweep_once.sql, sql\/postgres\/0005_notices.sql, sql\/postgres\/0006_passkeys.sql in order .*store.createSchema\(\)/,
      );
      await store.createSchema();
      await store.createSchema();
      await expect(store.onModuleInit()).resolves.toBeUndefined();
      await pool.query(`UPDATE ${SCHEMA}.missing_meta SET value = '0' WHERE name = 'schema_version'`);
      await expect(store.onModuleInit()).rejects.toThrow(/found version 0/);
    });

    it('refuses a connection string pg would misread, and a database or role that does not exist, as config errors naming the fix', async () => {
      // `not-a-url` would reach DNS as the host "base"; the error says what it got without repeating it.
      expect(() => new PostgresElicitationStore('not-a-url')).toThrow(ElicitationConfigError);
      expect(() => new PostgresElicitationStore('not-a-url')).toThrow(
        /a string of 9 characters that starts with neither postgres:\/\/ nor postgresql:\/\//,
      );
      expect(() => new PostgresElicitationStore('postgres://user:hunter2@[bad')).toThrow(/not a valid URL/);
      expect(() => new PostgresElicitationStore('postgres://user:hunter2@[bad')).not.toThrow(/hunter2/);
      const url = new URL(DATABASE_URL);
      for (const [change, message] of [
        [
          (u: URL) => (u.pathname = '/no_such_database_here'),
          /database "no_such_database_here" does not exist \(3D000\); create that database/,
        ],
        [(u: URL) => (u.username = 'no_such_role_here'), /role "no_such_role_here" does not exist \(28000\); create that role/],
      ] as const) {
        const wrong = new URL(url);
        change(wrong);
        const store = keyed(new PostgresElicitationStore(wrong.toString(), { schema: SCHEMA }));
        stores.push(store);
        await expect(store.onModuleInit()).rejects.toThrow(ElicitationConfigError);
        await expect(store.onModuleInit()).rejects.toThrow(message);
      }
    });

    it('creates its schema from several instances at once (one after the other)', async () => {
      const racing = Array.from({ length: 4 }, () => keyed(new PostgresElicitationStore(pool, { schema: SCHEMA, tablePrefix: 'race_' })));
      await Promise.all(racing.map((store) => store.createSchema()));
      await Promise.all(racing.map((store) => store.onModuleInit()));
    });

    it('keeps an app from starting on a database without its schema (ElicitationModule), naming the fix', async () => {
      const store = new PostgresElicitationStore(pool, { schema: SCHEMA, tablePrefix: 'absent_' });
      await expect(compileElicitation({ store, encryptionKey: randomBytes(32) })).rejects.toThrow(
        /run sql\/postgres\/0001_elicitation.sql/,
      );
      const ready = new PostgresElicitationStore(pool, { schema: SCHEMA, tablePrefix: 'present_' });
      await ready.createSchema();
      const app = await compileElicitation({ store: ready, encryptionKey: randomBytes(32) });
      await app.close();
    });

    it('trims the events table by count and by age at each sweep', async () => {
      const store = keyed(
        new PostgresElicitationStore(pool, { schema: SCHEMA, tablePrefix: 'trim_', eventsMaxCount: 3, eventsMaxAgeMs: 60_000 }),
      );
      await store.createSchema();
      stores.push(store);
      const channel = await store.openEventChannel(() => undefined);
      const now = Date.now();
      for (let i = 0; i < 6; i++) await store.create(pendingRecord({ createdAt: now - 120_000 + i * 30_000 }));
      const count = async () => Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${SCHEMA}.trim_events`)).rows[0].n);
      expect(await count()).toBe(6);
      await store.sweep(now - 90_000, 1_000); // before any record expires: only the trim by count
      expect(await count()).toBe(3);
      await store.sweep(now + 1, 1_000); // the age cut: the events at or after now - 60 s are kept (the last one)
      const left = (await pool.query<{ at: string }>(`SELECT at FROM ${SCHEMA}.trim_events ORDER BY id`)).rows.map((r) => Number(r.at));
      expect(left.every((at) => at >= now + 1 - 60_000)).toBe(true);
      await channel.close();
    });

    it('leaves a schema at its version alone: createSchema() on a live database takes no lock on its tables', async () => {
      const store = await freshStore('live_');
      const holder = await pool.connect();
      await holder.query('BEGIN');
      await holder.query(`LOCK TABLE ${SCHEMA}.live_records IN ACCESS EXCLUSIVE MODE`);
      try {
        const blocked = new Promise((resolve) => setTimeout(() => resolve('blocked'), 2_000));
        await expect(Promise.race([store.createSchema().then(() => 'done'), blocked])).resolves.toBe('done');
      } finally {
        await holder.query('ROLLBACK');
        holder.release();
      }
    });

    it('refuses bad names and unknown options, naming them', () => {
      expect(() => new PostgresElicitationStore(pool, { schema: 'Bad-Name' })).toThrow(/schema.*"Bad-Name"/);
      expect(() => new PostgresElicitationStore(pool, { tablePrefix: 'x;drop' })).toThrow(/tablePrefix.*"x;drop"/);
      expect(() => new PostgresElicitationStore(pool, { keyPrefix: 'x' } as never)).toThrow(/keyPrefix/);
      expect(() => new PostgresElicitationStore(42 as never)).toThrow(/pg Pool or a connection string/);
    });

    it('ends the pool it opened from a connection string, never a pool it was given', async () => {
      const given = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
      const onGiven = keyed(new PostgresElicitationStore(given, { schema: SCHEMA, tablePrefix: 's1_' }));
      await onGiven.ping();
      await onGiven.onModuleDestroy();
      await expect(given.query('SELECT 1')).resolves.toBeDefined();
      await given.end();
      const own = keyed(new PostgresElicitationStore(DATABASE_URL, { schema: SCHEMA, tablePrefix: 's1_' }));
      await own.ping();
      await own.onModuleDestroy();
      expect((own.pool as pg.Pool & { ended: boolean }).ended).toBe(true);
    });

    it('says the store is unavailable when PostgreSQL does not answer', async () => {
      const away = keyed(new PostgresElicitationStore('postgres://postgres@127.0.0.1:9/postgres'));
      await expect(away.ping()).rejects.toThrow(ElicitationStoreUnavailableError);
      await expect(away.get('x', Date.now())).rejects.toThrow(/The elicitation store is unavailable \(get\)/);
      await away.onModuleDestroy();
    });

    it('lets exactly one of 40 concurrent completions win', async () => {
      const store = await freshStore();
      const record = pendingRecord();
      await store.create(record);
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          store.finish(record.id, {
            status: 'completed',
            data: { $sealed: `answer-${i}` },
            now: record.createdAt + 1,
            purgeAt: record.createdAt + 10_000,
          }),
        ),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      const winner = results.find((r) => r.ok) as { ok: true; record: { data?: unknown } };
      expect((await store.get(record.id, record.createdAt + 2))!.data).toEqual(winner.record.data);
      expect(results.filter((r) => !r.ok && r.reason === 'already-finished')).toHaveLength(39);
    });

    it('sweeps every due record in batches (sweepBatch), and forgets the finished ones past their time', async () => {
      const store = keyed(new PostgresElicitationStore(pool, { schema: SCHEMA, tablePrefix: 'batch_', sweepBatch: 2 }));
      await store.createSchema();
      stores.push(store);
      const due = Array.from({ length: 5 }, () => pendingRecord());
      for (const record of due) await store.create(record);
      const now = Math.max(...due.map((r) => r.expiresAt));
      const { expired } = await store.sweep(now, 1_000);
      expect(expired.map((r) => r.id).sort()).toEqual(due.map((r) => r.id).sort());
      expect(expired.every((r) => r.status === 'expired' && r.purgeAt === now + 1_000)).toBe(true);
      expect((await store.sweep(now + 1_000, 1_000)).expired).toEqual([]);
      expect(Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${SCHEMA}.batch_records`)).rows[0].n)).toBe(0);
    });

    it('keeps no user id, type, message or counter key in clear', async () => {
      const store = await freshStore('clear_');
      const record = pendingRecord({ userId: 'alice@example.com', type: 'api-key-github', message: 'Enter your GitHub key' });
      await store.create(record);
      await store.hit('throttle:203.0.113.9', 60_000, record.createdAt);
      const dump = JSON.stringify([
        (await pool.query(`SELECT * FROM ${SCHEMA}.clear_records`)).rows,
        (await pool.query(`SELECT * FROM ${SCHEMA}.clear_counters`)).rows,
      ]);
      for (const secret of ['alice@example.com', 'api-key-github', 'Enter your GitHub key', '203.0.113.9'])
        expect(dump).not.toContain(secret);
      expect(dump).toContain(record.id);
    });

    it('sends events between two stores on one database: the move and its event in one step, each delivered once', async () => {
      const a = await freshStore('ev_');
      const b = keyed(new PostgresElicitationStore(pool, { schema: SCHEMA, tablePrefix: 'ev_', eventPollMs: 200 }));
      stores.push(b);
      const seen: ElicitationEvent[] = [];
      const onB = await b.openEventChannel((event) => seen.push(event));
      const onA = await a.openEventChannel(() => undefined);
      const record = pendingRecord({ userId: 'event-user', sessionId: 'event-session', taskId: 'event-task' });
      expect(await a.create(record)).toEqual({ result: 'created', eventSent: true });
      const finished = await a.finish(record.id, { status: 'declined', now: record.createdAt + 1, purgeAt: record.createdAt + 5_000 });
      expect(finished).toMatchObject({ ok: true, eventSent: true });
      const deadline = Date.now() + 5_000;
      while (seen.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(seen.map((e) => [e.type, e.elicitationId, e.userId, e.sessionId, e.taskId])).toEqual([
        ['created', record.id, 'event-user', 'event-session', 'event-task'],
        ['declined', record.id, 'event-user', 'event-session', 'event-task'],
      ]);
      expect(onB.isLive?.()).toBe(true);
      // Nothing in the events table names the user, the session or the task in clear.
      const messages = JSON.stringify((await pool.query(`SELECT message FROM ${SCHEMA}.ev_events`)).rows);
      for (const clear of ['event-user', 'event-session', 'event-task']) expect(messages).not.toContain(clear);
      await new Promise((r) => setTimeout(r, 400)); // a poll or two: nothing is delivered twice
      expect(seen).toHaveLength(2);
      await onA.close();
      await onB.close();
    });
  });
});
