import type { describe } from '@jest/globals';
import pg from 'pg';
import { describeOrSkip } from './describe-or-skip.js';

/** The PostgreSQL the tests use: `DATABASE_URL`, default the local server (trust auth, user postgres). */
export const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

async function probe(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Whether a real PostgreSQL answers at DATABASE_URL (probed once per test file). */
export const postgresAvailable = await probe(DATABASE_URL);

/**
 * `describe` for tests that need a real PostgreSQL. Without one they are skipped with a visible message, unless
 * `REQUIRE_POSTGRES=1` (set by .ci/run), where they run and fail.
 */
export const describePostgres: typeof describe = describeOrSkip(
  postgresAvailable ? undefined : `no PostgreSQL answers at ${DATABASE_URL} (set DATABASE_URL)`,
  'REQUIRE_POSTGRES',
);

/** Drops a test schema and everything in it. */
export async function dropSchema(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
}
