/**
 * PostgresEventChannel on a real PostgreSQL: what its reads of the events table cost when many notifications arrive
 * at once (32 pages posted together finish 32 elicitations), and that each event still arrives once, in order.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import pg from 'pg';
import type { ElicitationEvent } from '../../src/core/elicitation.types.js';
import type { PostgresQueries } from '../../src/postgres/postgres.bounded.js';
import { PostgresEventChannel } from '../../src/postgres/postgres.event-channel.js';
import { channelOf } from '../../src/postgres/postgres.names.js';
import { PostgresElicitationStore } from '../../src/postgres/postgres.store.js';
import { encodeEventMessage, eventMessageHead } from '../../src/stores/event-wire.js';
import { DATABASE_URL, describePostgres, dropSchema } from '../support/postgres.js';
import { keyed, TEST_STORE_KEYS } from '../support/store-keys.js';

const SCHEMA = `test_${randomUUID().slice(0, 8)}`;
const PREFIX = 'burst_';
const EVENTS = `${SCHEMA}.${PREFIX}events`;

describePostgres('PostgresEventChannel on a real PostgreSQL', () => {
  let pool: pg.Pool;

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
    await keyed(new PostgresElicitationStore(pool, { schema: SCHEMA, tablePrefix: PREFIX })).createSchema();
  });

  afterAll(async () => {
    await dropSchema(pool, SCHEMA);
    await pool.end();
  });

  /** A channel on the test schema whose reads of the events table are counted, and the events it delivered. */
  async function countedChannel() {
    const reads: string[] = [];
    const counted: PostgresQueries = {
      query: <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => {
        if (text.includes(`FROM ${EVENTS} WHERE`)) reads.push(text);
        return pool.query<R>(text, values);
      },
    };
    const seen: string[] = [];
    const channel = await PostgresEventChannel.open(
      {
        pool: counted,
        connection: { connectionString: DATABASE_URL },
        keys: TEST_STORE_KEYS,
        channel: channelOf({ schema: SCHEMA, prefix: PREFIX }),
        events: EVENTS,
        emit: `${SCHEMA}.${PREFIX}emit`,
        pollMs: 60_000, // no poll within a test: only the notifications make it read
        onClose: () => undefined,
      },
      (event) => seen.push(event.elicitationId),
    );
    return { reads, seen, channel };
  }

  it('reads a burst of 32 notifications in a few reads of the events table, each event delivered once and in order', async () => {
    const { reads, seen, channel } = await countedChannel();
    try {
      const ids = Array.from({ length: 32 }, () => randomUUID());
      const head = eventMessageHead(randomUUID());
      const events: ElicitationEvent[] = ids.map((elicitationId, i) => ({
        type: 'completed',
        elicitationId,
        userId: 'burst-user',
        kind: 'api-key',
        elicitationType: 'api-key-github',
        at: 1_000 + i,
      }));
      // One transaction: its 32 notifications reach the listener together, as a burst of page posts' would.
      await pool.query(
        `SELECT ${SCHEMA}.${PREFIX}emit(at, message) FROM unnest($1::bigint[], $2::text[]) WITH ORDINALITY AS e(at, message, n) ORDER BY n`,
        [events.map((e) => e.at), events.map((e) => encodeEventMessage(head, e, TEST_STORE_KEYS))],
      );
      const deadline = Date.now() + 5_000;
      while (seen.length < ids.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(seen).toEqual(ids);
      // One read per notification would be 32; notifications that arrive while a read waits to start share it.
      expect(reads.length).toBeGreaterThanOrEqual(1);
      expect(reads.length).toBeLessThanOrEqual(4);
    } finally {
      await channel.close();
    }
  });

  it('reads nothing for the notifications of its own events (their origin is in the payload), and reads the others', async () => {
    const { reads, seen, channel } = await countedChannel();
    const emit = (head: string, elicitationId: string) =>
      pool.query(`SELECT ${SCHEMA}.${PREFIX}emit($1, $2)`, [
        1_000,
        encodeEventMessage(
          head,
          { type: 'completed', elicitationId, userId: 'u', kind: 'api-key', elicitationType: 't', at: 1_000 },
          TEST_STORE_KEYS,
        ),
      ]);
    try {
      const settled = () => new Promise((r) => setTimeout(r, 300));
      await settled(); // the first read, at open
      reads.length = 0;
      for (let i = 0; i < 5; i++) await emit(channel.head, randomUUID());
      await settled();
      expect(reads).toEqual([]);
      // Another instance's event is read (and its own before it are passed over in the same read, never delivered).
      const theirs = randomUUID();
      await emit(eventMessageHead(randomUUID()), theirs);
      const deadline = Date.now() + 5_000;
      while (seen.length < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(seen).toEqual([theirs]);
      expect(reads.length).toBe(1);
    } finally {
      await channel.close();
    }
  });
});
