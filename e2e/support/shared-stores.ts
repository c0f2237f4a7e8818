/**
 * The shared stores the multi-instance e2e run on, each with what a test needs of it: the demo processes' settings
 * (under a prefix of the run's own), its event log as the tests read it, and its clean-up.
 */
import { Redis } from 'ioredis';
import pg from 'pg';
import type { describe } from '@jest/globals';
import { DATABASE_URL, describePostgres, dropPrefix } from '../../test/support/postgres.js';
import { deletePrefix, describeRedis, REDIS_URL } from '../../test/support/redis.js';

export interface SharedStore {
  describe: typeof describe;
  env: Record<string, string>;
  /** The moves on the shared event log for one elicitation, in order. */
  moves(elicitationId: string): Promise<string[]>;
  cleanUp(): Promise<void>;
}

type WireMove = { event: { type: string; elicitationId: string } };

/** Redis and PostgreSQL, each under a prefix made of `name` and `run` (letters, digits and `-`). */
export function sharedStores(name: string, run: string): Record<'Redis' | 'PostgreSQL', SharedStore> {
  const redisPrefix = `e2e-${name}-${run}`;
  const postgresPrefix = `e2e_${name.replace(/-/g, '_')}_${run}_`;
  return {
    Redis: {
      describe: describeRedis,
      env: { ELICITATION_STORE: 'redis', REDIS_URL, ELICITATION_REDIS_PREFIX: redisPrefix },
      async moves(id) {
        const redis = new Redis(REDIS_URL);
        try {
          return (await redis.xrange(`{${redisPrefix}}:v2:events`, '-', '+'))
            .map(([, fields]) => (JSON.parse(fields[1]) as WireMove).event)
            .filter((event) => event.elicitationId === id)
            .map((event) => event.type);
        } finally {
          await redis.quit();
        }
      },
      async cleanUp() {
        const redis = new Redis(REDIS_URL);
        await deletePrefix(redis, redisPrefix);
        await redis.quit();
      },
    },
    PostgreSQL: {
      describe: describePostgres,
      env: { ELICITATION_STORE: 'postgres', DATABASE_URL, ELICITATION_POSTGRES_PREFIX: postgresPrefix },
      async moves(id) {
        const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
        try {
          const { rows } = await pool.query<{ message: string }>(`SELECT message FROM ${postgresPrefix}events ORDER BY id`);
          return rows
            .map((row) => (JSON.parse(row.message) as WireMove).event)
            .filter((event) => event.elicitationId === id)
            .map((event) => event.type);
        } finally {
          await pool.end();
        }
      },
      async cleanUp() {
        const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
        await dropPrefix(pool, postgresPrefix);
        await pool.end();
      },
    },
  };
}
