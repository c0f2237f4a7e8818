import type { PostgresQueries } from './postgres.bounded.js';
import type { CounterHit, ElicitationStoreKeys } from '../stores/elicitation-store.js';

/** A counter key's readable kind: its leading lower-case word (`throttle:…`), kept in clear as in Redis. */
const COUNTER_KIND = /^([a-z][a-z-]{0,31}):/;

/**
 * The counters of the PostgreSQL store: one row per counter, its window's end beside its count (windows aligned to
 * multiples of `windowMs`, so every instance counts in the same one); a hit is one upsert.
 */
export class PostgresCounters {
  constructor(
    private readonly pool: PostgresQueries,
    private readonly t: (object: string) => string,
    private readonly keys: () => ElicitationStoreKeys,
  ) {}

  async hit(key: string, windowMs: number, now: number): Promise<CounterHit> {
    const resetAt = (Math.floor(now / windowMs) + 1) * windowMs;
    const { rows } = await this.pool.query<{ count: number }>(`SELECT ${this.t('hit')}($1, $2) AS count`, [this.nameOf(key), resetAt]);
    return { count: Number(rows[0].count), resetAt };
  }

  async peek(key: string, windowMs: number, now: number): Promise<number> {
    const resetAt = (Math.floor(now / windowMs) + 1) * windowMs;
    const { rows } = await this.pool.query<{ count: number }>(`SELECT count FROM ${this.t('counters')} WHERE name = $1 AND reset_at = $2`, [
      this.nameOf(key),
      resetAt,
    ]);
    return rows[0] ? Number(rows[0].count) : 0;
  }

  /** A counter key's name: a keyed hash (an IP address never in clear), after its readable kind. */
  private nameOf(key: string): string {
    const kind = COUNTER_KIND.exec(key)?.[1];
    const name = this.keys().names('counter', key)[0];
    return kind ? `${kind}:${name}` : name;
  }
}
