/**
 * What the PostgreSQL store writes, read back by a raw pg client: a record's row holds the two texts of the
 * store-neutral sealed record (stores/sealed-record.codec.ts) in columns named for them, the events its functions
 * append are messages of the event wire (stores/event-wire.ts), the pieces joined around the row's event part, and a
 * task's user and body are sealed in the one shape of every shared store (stores/sealed-task.codec.ts).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import pg from 'pg';
import type { ElicitationEvent } from '../../src/core/elicitation.types.js';
import { lifecycleEvent } from '../../src/events/elicitation-events.js';
import { PostgresElicitationStore } from '../../src/postgres/postgres.store.js';
import type { ElicitationEventChannel } from '../../src/stores/elicitation-store.js';
import { decodeEventMessage, eventMessageEnd, eventMessageHead, eventMessageStart } from '../../src/stores/event-wire.js';
import { openRecord } from '../../src/stores/sealed-record.codec.js';
import { openTask } from '../../src/stores/sealed-task.codec.js';
import { pendingRecord } from '../../src/testing/store-contract.js';
import { workingTask } from '../../src/testing/store-contract.tasks.js';
import { DATABASE_URL, describePostgres, dropSchema } from '../support/postgres.js';
import { keyed, TEST_STORE_KEYS } from '../support/store-keys.js';

const SCHEMA = `test_rows_${randomUUID().slice(0, 8)}`;

describePostgres('PostgreSQL rows and events', () => {
  let pool: pg.Pool;
  let store: PostgresElicitationStore;
  let channel: ElicitationEventChannel;

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
    store = keyed(new PostgresElicitationStore(pool, { schema: SCHEMA }));
    await store.createSchema();
    channel = await store.openEventChannel(() => undefined);
  });

  afterAll(async () => {
    await channel.close();
    await store.onModuleDestroy();
    await dropSchema(pool, SCHEMA);
    await pool.end();
  });

  /** The messages the functions appended, oldest first. */
  async function messages(): Promise<string[]> {
    const { rows } = await pool.query<{ message: string }>(`SELECT message FROM ${SCHEMA}.elicitation_events ORDER BY id`);
    return rows.map((r) => r.message);
  }

  it('keeps the sealed record in event_part and sealed, and its functions append wire messages around the stored part', async () => {
    const record = pendingRecord({ userId: 'alice@example.com', type: 'github-token', sessionId: 'session-1' });
    await store.create(record);
    const { rows } = await pool.query<{ event_part: string; sealed: string }>(
      `SELECT event_part, sealed FROM ${SCHEMA}.elicitation_records WHERE id = $1`,
      [record.id],
    );
    const [row] = rows;
    expect(openRecord(row.event_part, row.sealed, 'pending', record.expiresAt, TEST_STORE_KEYS)).toMatchObject({
      id: record.id,
      userId: record.userId,
      type: record.type,
      message: record.message,
    });
    const now = record.createdAt + 1;
    await store.extend(record.id, { expiresAt: record.expiresAt + 1_000, purgeAt: record.purgeAt + 1_000, now });
    await store.finish(record.id, { status: 'declined', now: now + 1, purgeAt: now + 60_000 });
    const [created, extended, declined] = await messages();
    const origin = decodeEventMessage(created, TEST_STORE_KEYS)!.origin!;
    const head = eventMessageHead(origin);
    expect(created).toBe(eventMessageStart(head, 'created') + row.event_part + eventMessageEnd(record.createdAt));
    expect(extended).toBe(eventMessageStart(head, 'extended') + row.event_part + eventMessageEnd(now, undefined, record.expiresAt + 1_000));
    expect(declined).toBe(eventMessageStart(head, 'declined') + row.event_part + eventMessageEnd(now + 1));
    const events: ElicitationEvent[] = [
      lifecycleEvent('created', record, record.createdAt),
      lifecycleEvent('extended', { ...record, expiresAt: record.expiresAt + 1_000 }, now),
      lifecycleEvent('declined', record, now + 1),
    ];
    expect([created, extended, declined].map((m) => decodeEventMessage(m, TEST_STORE_KEYS)?.event)).toEqual(events);
  });

  it('seals a task’s user and body as every shared store does', async () => {
    const task = workingTask({ userId: 'alice@example.com' });
    expect(await store.createTask(task, { maxOpenPerUser: 5 })).toBe('created');
    const { rows } = await pool.query<{ sealed: string }>(`SELECT sealed FROM ${SCHEMA}.elicitation_tasks WHERE id = $1`, [task.id]);
    expect(openTask(task.id, rows[0].sealed, TEST_STORE_KEYS)).toEqual({ userId: task.userId, body: task.body });
  });
});
