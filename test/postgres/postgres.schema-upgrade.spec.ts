/**
 * The PostgreSQL schema's versions on a real PostgreSQL: a database made by version 1 (sql/postgres/0001_elicitation.sql
 * as shipped, its records, task and counter written by version 1's own functions) is brought forward by
 * `createSchema()` with everything intact, as is one made by version 4 (its records then in the inbox); a schema at a
 * version above the one this release knows is refused, by `createSchema()`, by the start-up check and by the schema's
 * text run as a migration tool would, and left as it is.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import pg from 'pg';
import type { ElicitationRecord } from '../../src/core/elicitation.types.js';
import { ElicitationConfigError } from '../../src/errors/elicitation-config.error.js';
import { channelOf, qualified, type PostgresNames } from '../../src/postgres/postgres.names.js';
import { SCHEMA_FILES, SCHEMA_VERSION } from '../../src/postgres/postgres.schema-version.js';
import { createSchema, schemaSql } from '../../src/postgres/postgres.schema.js';
import { PostgresElicitationStore } from '../../src/postgres/postgres.store.js';
import { sealRecord } from '../../src/stores/sealed-record.codec.js';
import type { StoredTask } from '../../src/stores/task-store.js';
import { pendingRecord } from '../../src/testing/store-contract.js';
import { DATABASE_URL, describePostgres, dropSchema } from '../support/postgres.js';
import { keyed, TEST_STORE_KEYS } from '../support/store-keys.js';

const SCHEMA = `test_upgrade_${randomUUID().slice(0, 8)}`;
const WINDOW_MS = 60_000;

/** A file of sql/postgres/ as shipped (`version`'s), its default names moved to the test's schema and `prefix`. */
function versionSql(version: number, prefix: string): string {
  const text = readFileSync(SCHEMA_FILES[version - 1], 'utf8')
    .replaceAll('public.elicitation_', `${SCHEMA}.${prefix}`)
    .replaceAll("'public_elicitation_events'", `'${channelOf({ schema: SCHEMA, prefix })}'`)
    .replaceAll('CREATE SCHEMA IF NOT EXISTS public;', `CREATE SCHEMA IF NOT EXISTS ${SCHEMA};`)
    .replaceAll("table_schema = 'public'", `table_schema = '${SCHEMA}'`)
    .replaceAll(' elicitation_', ` ${prefix}`)
    .replaceAll("'elicitation_", `'${prefix}`);
  expect(text).toMatch(new RegExp(`^-- .*schema, version ${version}\n`));
  expect(text).not.toMatch(/elicitation_|public/);
  return text;
}

describePostgres('the PostgreSQL schema across versions', () => {
  let pool: pg.Pool;
  const stores: PostgresElicitationStore[] = [];

  beforeAll(() => {
    pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
  });

  afterAll(async () => {
    await Promise.all(stores.map((s) => s.onModuleDestroy()));
    await dropSchema(pool, SCHEMA);
    await pool.end();
  });

  function storeOn(prefix: string): PostgresElicitationStore {
    const store = keyed(new PostgresElicitationStore(pool, { schema: SCHEMA, tablePrefix: prefix }));
    stores.push(store);
    return store;
  }

  /** Creates `record` with version 1's `create` function, as a version-1 store called it. */
  async function createAtVersion1(names: PostgresNames, record: ElicitationRecord): Promise<void> {
    const { eventPart, sealed } = sealRecord(record, TEST_STORE_KEYS);
    const users = TEST_STORE_KEYS.names('user', record.userId);
    await pool.query(`SELECT ${qualified(names, 'create')}($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, NULL, NULL, NULL, NULL, NULL, NULL)`, [
      record.id,
      eventPart,
      sealed,
      users[0],
      users,
      TEST_STORE_KEYS.names('completed', record.userId, record.type)[0],
      null,
      record.createdAt,
      record.expiresAt,
      record.purgeAt,
    ]);
  }

  it('brings a schema at version 1 forward, its records, tasks and counters intact', async () => {
    const names = { schema: SCHEMA, prefix: 'v1_' };
    const t = (object: string) => qualified(names, object);
    await pool.query(versionSql(1, names.prefix));
    const waiting = pendingRecord({ userId: 'alice@example.com', type: 'github-token', sessionId: 'session-1' });
    const answered = pendingRecord({ userId: 'alice@example.com', type: 'github-token', createdAt: waiting.createdAt + 1 });
    await createAtVersion1(names, waiting);
    await createAtVersion1(names, answered);
    const now = answered.createdAt + 10;
    await pool.query(`SELECT * FROM ${t('finish')}($1, 'completed', $2, $3, $4, NULL, NULL)`, [
      answered.id,
      JSON.stringify({ $sealed: 'the answer' }),
      now,
      answered.purgeAt,
    ]);
    const task: StoredTask = {
      id: randomUUID(),
      userId: 'alice@example.com',
      status: 'input_required',
      createdAt: now,
      updatedAt: now,
      expiresAt: now + 86_400_000,
      version: 1,
      body: '{"tool":"deploy"}',
    };
    const taskUsers = TEST_STORE_KEYS.names('user', task.userId);
    await pool.query(`SELECT ${t('create_task')}($1, $2, $3, $4, $5, $6, $7, $8, NULL, NULL, $9, 10)`, [
      task.id,
      taskUsers[0],
      taskUsers,
      task.status,
      task.createdAt,
      task.updatedAt,
      task.expiresAt,
      task.version,
      TEST_STORE_KEYS.seal(JSON.stringify({ userId: task.userId, body: task.body }), `task:${task.id}`),
    ]);
    const counter = `throttle:${TEST_STORE_KEYS.names('counter', 'throttle:203.0.113.9')[0]}`;
    await pool.query(`SELECT ${t('hit')}($1, $2)`, [counter, (Math.floor(now / WINDOW_MS) + 1) * WINDOW_MS]);

    const store = storeOn(names.prefix);
    await expect(store.onModuleInit()).rejects.toThrow(
      /needs schema version 6 .* found version 1: run sql\/postgres\/0002_named_columns.sql, sql\/postgres\/0003_finished_tasks.sql, sql\/postgres\/0004_sweep_once.sql, sql\/postgres\/0005_notices.sql, sql\/postgres\/0006_passkeys.sql in order/,
    );
    await store.createSchema();
    await expect(store.onModuleInit()).resolves.toBeUndefined();

    const { rows: meta } = await pool.query<{ value: string }>(`SELECT value FROM ${t('meta')} WHERE name = 'schema_version'`);
    expect(meta).toEqual([{ value: String(SCHEMA_VERSION) }]);
    const { rows: columns } = await pool.query<{ name: string }>(
      `SELECT column_name AS name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position`,
      [SCHEMA, `${names.prefix}records`],
    );
    expect(columns.map((c) => c.name).slice(0, 3)).toEqual(['id', 'event_part', 'sealed']);

    expect(await store.get(waiting.id, now)).toEqual(waiting);
    expect(await store.findLatestCompleted(answered.userId, answered.type, now)).toMatchObject({
      id: answered.id,
      status: 'completed',
      finishedAt: now,
      data: { $sealed: 'the answer' },
    });
    expect((await store.listByUser(waiting.userId, now)).map((r) => r.id)).toEqual([waiting.id, answered.id]);
    expect(await store.consume(answered.id, now + 1)).toMatchObject({ id: answered.id, data: { $sealed: 'the answer' } });
    expect(await store.getTask(task.id, now)).toEqual(task);
    expect(await store.peekHits('throttle:203.0.113.9', WINDOW_MS, now)).toBe(1);
    // The functions of version 2 at work on the same tables.
    const later = pendingRecord({ userId: 'bob@example.com', createdAt: now });
    expect(await store.create(later)).toBe('created');
    expect(await store.finish(waiting.id, { status: 'declined', now: now + 2, purgeAt: now + 60_000 })).toMatchObject({ ok: true });
    expect(await store.get(later.id, now + 2)).toEqual(later);
    await store.createSchema(); // at its version: nothing to do
  });

  it('brings a schema at version 4 forward: its open records in the inbox, and an outbox', async () => {
    const names = { schema: SCHEMA, prefix: 'v4_' };
    await pool.query(versionSql(4, names.prefix));
    const store = storeOn(names.prefix);
    await expect(store.onModuleInit()).rejects.toThrow(
      /needs schema version 6 .* found version 4: run sql\/postgres\/0005_notices.sql, sql\/postgres\/0006_passkeys.sql in order/,
    );
    // Written on version 4 (its create function is the one version 5 keeps).
    const older = pendingRecord({ userId: 'carol@example.com' });
    const newer = pendingRecord({ userId: 'carol@example.com', createdAt: older.createdAt + 1 });
    expect(await store.create(older)).toBe('created');
    expect(await store.create(newer)).toBe('created');
    await store.createSchema();
    await expect(store.onModuleInit()).resolves.toBeUndefined();
    const now = newer.createdAt + 1;
    expect((await store.listOpen('carol@example.com', now, { limit: 10 })).records).toEqual([newer, older]);
    const notice = { id: `n_${randomUUID()}`, elicitationId: newer.id, dueAt: now, forgetAt: now + 60_000, body: '{}' };
    expect(await store.addNotices([notice], now)).toBe(1);
    expect(await store.claimNotices('a', now, 10, 1_000)).toMatchObject([{ id: notice.id, attempts: 1 }]);
    expect(await store.settleNotice(notice.id, 'a', { kind: 'delivered' }, now)).toBe(true);
    expect(await store.noticeStats(now)).toEqual({ pending: 0, failed: 0, delivered: 1 });
  });

  it('refuses a schema at a later version, however it is asked to change it, and leaves it as it is', async () => {
    const names = { schema: SCHEMA, prefix: 'v9_' };
    const store = storeOn(names.prefix);
    await store.createSchema();
    const record = pendingRecord();
    await store.create(record);
    await pool.query(`UPDATE ${qualified(names, 'meta')} SET value = '9' WHERE name = 'schema_version'`);
    const snapshot = async () =>
      JSON.stringify([
        (
          await pool.query(
            `SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name LIKE 'v9\\_%'
             ORDER BY table_name, ordinal_position`,
            [SCHEMA],
          )
        ).rows,
        (
          await pool.query(
            `SELECT pg_get_functiondef(p.oid) AS definition FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
             WHERE n.nspname = $1 AND p.proname LIKE 'v9\\_%' ORDER BY p.proname`,
            [SCHEMA],
          )
        ).rows,
        (await pool.query(`SELECT * FROM ${qualified(names, 'meta')} ORDER BY name`)).rows,
        (await pool.query(`SELECT id, status FROM ${qualified(names, 'records')}`)).rows,
      ]);
    const before = await snapshot();
    const refusal = /knows schema version 6, found version 9 in .*v9_\*.*never downgraded/;

    await expect(store.createSchema()).rejects.toThrow(ElicitationConfigError);
    await expect(store.createSchema()).rejects.toThrow(refusal);
    await expect(store.onModuleInit()).rejects.toThrow(refusal);
    // The text itself, as a migration tool runs it: refused in its own transaction.
    await expect(pool.query(schemaSql(names))).rejects.toThrow(/at version 9, newer than version 6, which this release knows/);
    // Moved on by a newer release between createSchema()'s read and its transaction: refused all the same.
    let reads = 0;
    const racing = {
      query: (text: string, values?: unknown[]) =>
        text.startsWith('SELECT value FROM') && reads++ === 0 ? Promise.resolve({ rows: [] }) : pool.query(text, values),
    } as unknown as pg.Pool;
    await expect(createSchema(racing, names, (query) => query())).rejects.toThrow(refusal);
    expect(reads).toBe(2);

    expect(await snapshot()).toBe(before);
    expect(await store.get(record.id, record.createdAt)).toEqual(record);
  });
});
