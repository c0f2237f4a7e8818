import type { PostgresQueries } from './postgres.bounded.js';
import type { ElicitationCallStateStore } from '../stores/call-state-store.js';

/**
 * The call states of the PostgreSQL store (`ElicitationCallStateStore`): a row per state in `call_states`, written with
 * an upsert and taken with `DELETE ... RETURNING` (one statement: of two takers, one gets the row). The sweep function
 * of the schema forgets the expired rows.
 */
export class PostgresCallStates implements ElicitationCallStateStore {
  constructor(
    private readonly pool: PostgresQueries,
    private readonly t: (object: string) => string,
  ) {}

  async keepCallState(key: string, value: string, expiresAt: number): Promise<void> {
    await this.pool.query(
      `INSERT INTO ${this.t('call_states')} (key, value, expires_at) VALUES ($1, $2, $3)
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at`,
      [key, value, Math.round(expiresAt)],
    );
  }

  async takeCallState(key: string, now: number): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ value: string; expires_at: string }>(
      `DELETE FROM ${this.t('call_states')} WHERE key = $1 RETURNING value, expires_at`,
      [key],
    );
    const row = rows[0];
    return row && Number(row.expires_at) > now ? row.value : undefined;
  }
}
