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

/** Drops every table and function of a store's table prefix in `public` (what an e2e's demo instances made). */
export async function dropPrefix(pool: pg.Pool, prefix: string): Promise<void> {
  const like = `${prefix.replace(/_/g, '\\_')}%`;
  const tables = await pool.query<{ name: string }>(
    `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE $1`,
    [like],
  );
  const functions = await pool.query<{ name: string }>(
    `SELECT p.oid::regprocedure::text AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname = 'public' AND p.proname LIKE $1`,
    [like],
  );
  for (const { name } of functions.rows) await pool.query(`DROP FUNCTION IF EXISTS ${name} CASCADE`);
  for (const { name } of tables.rows) await pool.query(`DROP TABLE IF EXISTS public.${name} CASCADE`);
}
