/**
 * The inbox and the outbox of PostgresElicitationStore on a real PostgreSQL, beyond the contract suite: two instances
 * (two stores, each on a pool of its own) racing to claim the same notices never both get one, and a page of
 * `listOpen` walks the index of the user's open records in its order, reading no more rows than it shows.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import pg from 'pg';
import { qualified } from '../../src/postgres/postgres.names.js';
import { openPageSql } from '../../src/postgres/postgres.inbox.js';
import { PostgresElicitationStore } from '../../src/postgres/postgres.store.js';
import type { NewNotice, StoredNotice } from '../../src/stores/notice-store.js';
import { pendingRecord } from '../../src/testing/store-contract.js';
import { DATABASE_URL, describePostgres, dropSchema } from '../support/postgres.js';
import { keyed, TEST_STORE_KEYS } from '../support/store-keys.js';

const SCHEMA = `test_outbox_${randomUUID().slice(0, 8)}`;
const BASE = 1_900_000_000_000;

/** A plan node of `EXPLAIN (FORMAT JSON)`, as far as the test reads it. */
interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  'Index Cond'?: string;
  'Actual Rows'?: number;
  Plans?: PlanNode[];
}

/** Every node of a plan, the root first. */
function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)];
}

describePostgres('the PostgreSQL inbox and outbox', () => {
  const pools: pg.Pool[] = [];
  const stores: PostgresElicitationStore[] = [];
  let admin: pg.Pool;

  /** A store on a pool of its own (another instance), on the schema and `prefix`, the schema created. */
  async function instance(prefix: string): Promise<PostgresElicitationStore> {
    const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
    pools.push(pool);
    const store = keyed(new PostgresElicitationStore(pool, { schema: SCHEMA, tablePrefix: prefix }));
    stores.push(store);
    await store.createSchema();
    await store.onModuleInit();
    return store;
  }

  beforeAll(() => {
    admin = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
  });

  afterAll(async () => {
    await Promise.all(stores.map((s) => s.onModuleDestroy()));
    await Promise.all(pools.map((p) => p.end()));
    await dropSchema(admin, SCHEMA);
    await admin.end();
  });

  it('hands each of 200 due notices to one of two instances claiming at once, and again to one once its lease ends', async () => {
    const [a, b] = [await instance('race_'), await instance('race_')];
    const notices: NewNotice[] = Array.from({ length: 200 }, (_, i) => ({
      id: `n_${i}_${randomUUID()}`,
      elicitationId: randomUUID(),
      dueAt: BASE + (i % 17),
      forgetAt: BASE + 3_600_000,
      body: `{"i":${i}}`,
    }));
    expect(await a.addNotices(notices, BASE)).toBe(200);
    expect(await b.addNotices(notices.slice(0, 50), BASE)).toBe(0);
    const leaseMs = 60_000;

    /** Four claimers on each instance, each claiming small batches until it gets none. */
    const race = async (now: number): Promise<Array<StoredNotice & { by: string }>> => {
      const claimed: Array<StoredNotice & { by: string }> = [];
      const claimer = async (store: PostgresElicitationStore, owner: string) => {
        for (;;) {
          const got = await store.claimNotices(owner, now, 7, leaseMs);
          if (got.length === 0) return;
          claimed.push(...got.map((n) => ({ ...n, by: owner })));
        }
      };
      await Promise.all([0, 1, 2, 3].flatMap((i) => [claimer(a, `a${i}`), claimer(b, `b${i}`)]));
      return claimed;
    };

    const first = await race(BASE + 20);
    expect(first).toHaveLength(200);
    expect(new Set(first.map((n) => n.id)).size).toBe(200);
    expect(first.every((n) => n.attempts === 1 && n.owner === n.by && n.dueAt === BASE + 20 + leaseMs)).toBe(true);
    expect(first.find((n) => n.id === notices[3].id)?.body).toBe('{"i":3}');
    // Both instances took part.
    expect(first.some((n) => n.by.startsWith('a')) && first.some((n) => n.by.startsWith('b'))).toBe(true);
    // While the leases hold, nobody claims any of them again.
    expect(await race(BASE + 20 + leaseMs - 1)).toEqual([]);

    const second = await race(BASE + 20 + leaseMs);
    expect(second).toHaveLength(200);
    expect(new Set(second.map((n) => n.id)).size).toBe(200);
    expect(second.every((n) => n.attempts === 2 && n.owner === n.by)).toBe(true);
    // The first claimers' settlements are fenced off; the second ones' count.
    const taken = second[0];
    const before = first.find((n) => n.id === taken.id)!;
    if (before.by !== taken.by)
      await expect(a.settleNotice(taken.id, before.by, { kind: 'delivered' }, BASE + 20 + leaseMs)).resolves.toBe(false);
    await expect(b.settleNotice(taken.id, taken.by, { kind: 'delivered' }, BASE + 20 + leaseMs)).resolves.toBe(true);
    expect(await a.noticeStats(BASE + 20 + leaseMs)).toMatchObject({ pending: 199, failed: 0, delivered: 1 });
  });

  it('keeps a notice body sealed, and the sweep forgets notices past their forgetAt', async () => {
    const store = await instance('sealed_');
    const notice: NewNotice = {
      id: `n_${randomUUID()}`,
      elicitationId: randomUUID(),
      dueAt: BASE,
      forgetAt: BASE + 1_000,
      body: '{"hook":"ops-pager"}',
    };
    await store.addNotices([notice], BASE);
    const table = qualified({ schema: SCHEMA, prefix: 'sealed_' }, 'notices');
    const dump = JSON.stringify((await admin.query(`SELECT * FROM ${table}`)).rows);
    expect(dump).toContain(notice.id);
    expect(dump).not.toContain('ops-pager');
    await store.sweep(BASE + 999, 1_000);
    expect((await admin.query(`SELECT id FROM ${table}`)).rowCount).toBe(1);
    await store.sweep(BASE + 1_000, 1_000);
    expect((await admin.query(`SELECT id FROM ${table}`)).rowCount).toBe(0);
  });

  it("reads a page of a user's open records through the index records_open; a busy user's in its order, no more rows than the page", async () => {
    const prefix = 'inbox_';
    const store = await instance(prefix);
    const t = (object: string) => qualified({ schema: SCHEMA, prefix }, object);
    const insert = `INSERT INTO ${t('records')} (id, event_part, sealed, user_name, type_name, status, created_at, expires_at, purge_at)`;
    // 20,000 records of 400 users, a tenth of them open (ANALYZE reads them all: the plans do not depend on a sample);
    // EXPLAIN does not open the records' texts.
    await admin.query(
      `${insert} SELECT 'r' || i, 'x', 'x', 'user' || (i % 400), 'type', CASE WHEN i % 10 = 0 THEN 'pending' ELSE 'completed' END,
         $1::bigint + i, $1::bigint + 10000000, $1::bigint + 20000000
       FROM generate_series(1, 20000) AS i`,
      [BASE],
    );
    // And one user with 1,000 open questions, whose page reads 21 of them.
    const [busy] = TEST_STORE_KEYS.names('user', 'busy@example.com');
    await admin.query(
      `${insert} SELECT 'busy' || i, 'x', 'x', $2, 'type', 'pending', $1::bigint + 20 * i, $1::bigint + 10000000, $1::bigint + 20000000
       FROM generate_series(1, 1000) AS i`,
      [BASE, busy],
    );
    await admin.query(`ANALYZE ${t('records')}`);
    const plan = async (names: string[], cursor: boolean): Promise<PlanNode[]> => {
      const values: unknown[] = [names.length === 1 ? names[0] : names, BASE + 1, 21];
      if (cursor) values.push(BASE + 20 * 500, 'busy500');
      const { rows } = await admin.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${openPageSql(t, names.length === 1 ? 'one' : 'several', cursor)}`,
        values,
      );
      return nodesOf(rows[0]['QUERY PLAN'][0].Plan);
    };
    const readsTheIndex = (nodes: PlanNode[]) => {
      expect(nodes.filter((n) => n['Relation Name'] === `${prefix}records` && n['Node Type'] === 'Seq Scan')).toEqual([]);
      expect(nodes.some((n) => /Index Scan$/.test(n['Node Type']) && n['Index Name'] === `${prefix}records_open`)).toBe(true);
    };
    for (const cursor of [false, true]) {
      const nodes = await plan([busy], cursor);
      readsTheIndex(nodes);
      // The index walked in its order right under the limit: no sort between them, 21 rows read.
      const limited = nodes.find((n) => n['Node Type'] === 'Limit' && n.Plans?.[0]['Index Name'] === `${prefix}records_open`);
      expect(limited?.Plans?.[0]['Node Type']).toBe('Index Scan');
      expect(limited?.Plans?.[0]['Actual Rows']).toBe(21);
      if (cursor) expect(limited?.Plans?.[0]['Index Cond']).toMatch(/created_at/);
      // A user with a few open records, and a user named under two keys (a ring being rotated): the same index.
      readsTheIndex(await plan(['user7'], cursor));
      readsTheIndex(await plan([busy, 'user7'], cursor));
    }
    // The store's own statement answers from the same rows (a real record among them, newest).
    const record = pendingRecord({ userId: 'busy@example.com', createdAt: BASE + 30_000 });
    await store.create(record);
    const page = await store.listOpen('busy@example.com', BASE + 30_001, { limit: 1 });
    expect(page.records.map((r) => r.id)).toEqual([record.id]);
    expect(page.next).toBe(`${BASE + 30_000}.${record.id}`);
  });
});
