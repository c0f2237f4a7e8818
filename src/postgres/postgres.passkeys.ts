import type { PostgresQueries } from './postgres.bounded.js';
import type { ElicitationStoreKeys } from '../stores/elicitation-store.js';
import type { AddPasskeyResult, ElicitationPasskeyStore, PasskeyResealStep, StoredPasskey } from '../stores/passkey-store.js';
import { openPasskey, resealMoves, sealPasskey } from '../stores/sealed-passkey.codec.js';

/** A passkey row. */
interface PasskeyRow {
  id: string;
  sealed: string;
  counter: string;
  created_at: string;
  last_used_at: string | null;
  removed_at: string | null;
}

const COLUMNS = 'id, sealed, counter, created_at, last_used_at, removed_at';

/**
 * The passkeys of the PostgreSQL store (`ElicitationPasskeyStore`): a row per passkey in `passkeys`, its user, public
 * key, name and transports sealed together (stores/sealed-passkey.codec.ts), its user's name (a keyed hash: written
 * under the ring's first key, read and counted under all) in clear. `addPasskey` is a function of the schema (the
 * cap and the insert under one lock per user); a removal and a use are one compare-and-set statement each. Nothing
 * expires: the sweep leaves passkeys alone.
 */
export class PostgresPasskeys implements ElicitationPasskeyStore {
  constructor(
    private readonly pool: PostgresQueries,
    private readonly t: (object: string) => string,
    private readonly keys: () => ElicitationStoreKeys,
  ) {}

  async addPasskey(passkey: StoredPasskey, maxPerUser: number): Promise<AddPasskeyResult> {
    const keys = this.keys();
    const users = keys.names('user', passkey.userId);
    const { rows } = await this.pool.query<{ result: AddPasskeyResult }>(
      `SELECT ${this.t('add_passkey')}($1, $2, $3, $4, $5, $6, $7) AS result`,
      [passkey.id, users[0], users, sealPasskey(passkey, keys), passkey.counter, passkey.createdAt, maxPerUser],
    );
    return rows[0].result;
  }

  async getPasskey(id: string): Promise<StoredPasskey | undefined> {
    const keys = this.keys();
    const { rows } = await this.pool.query<PasskeyRow>(`SELECT ${COLUMNS} FROM ${this.t('passkeys')} WHERE id = $1`, [id]);
    return rows[0] && passkeyOf(rows[0], keys);
  }

  async listPasskeys(userId: string): Promise<StoredPasskey[]> {
    const keys = this.keys();
    const { rows } = await this.pool.query<PasskeyRow>(
      `SELECT ${COLUMNS} FROM ${this.t('passkeys')} WHERE user_name = ANY($1) AND removed_at IS NULL
       ORDER BY created_at, id COLLATE "C"`,
      [keys.names('user', userId)],
    );
    return rows.map((row) => passkeyOf(row, keys));
  }

  async removePasskey(userId: string, id: string, now: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE ${this.t('passkeys')} SET removed_at = $3 WHERE id = $1 AND user_name = ANY($2) AND removed_at IS NULL`,
      [id, this.keys().names('user', userId), now],
    );
    return rowCount === 1;
  }

  async usePasskey(id: string, expected: number, counter: number, now: number): Promise<boolean> {
    this.keys();
    const { rowCount } = await this.pool.query(
      `UPDATE ${this.t('passkeys')} SET counter = $3, last_used_at = $4 WHERE id = $1 AND counter = $2 AND removed_at IS NULL`,
      [id, expected, counter, now],
    );
    return rowCount === 1;
  }

  /** Passkeys by id after `cursor`; the moves in one statement, each a compare-and-set of the sealed part. */
  async resealPasskeys(cursor: string | undefined, limit: number): Promise<PasskeyResealStep> {
    const keys = this.keys();
    const { rows } = await this.pool.query<Pick<PasskeyRow, 'id' | 'sealed'>>(
      `SELECT id, sealed FROM ${this.t('passkeys')} WHERE id > $1 ORDER BY id LIMIT $2`,
      [cursor ?? '', limit],
    );
    const { moves, unreadable } = resealMoves(
      rows.map(({ id, sealed }) => [id, sealed] as const),
      keys,
    );
    let moved = 0;
    if (moves.length > 0) {
      const { rowCount } = await this.pool.query(
        `UPDATE ${this.t('passkeys')} AS p SET sealed = m.sealed, user_name = m.user_name
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS m(id, old, sealed, user_name)
         WHERE p.id = m.id AND p.sealed = m.old`,
        [
          moves.map((move) => move.id),
          moves.map((move) => move.old),
          moves.map((move) => move.sealed),
          moves.map((move) => keys.names('user', move.userId)[0]),
        ],
      );
      moved = rowCount ?? 0;
    }
    return { moved, unreadable, ...(rows.length === limit && { next: rows[rows.length - 1].id }) };
  }
}

/** The passkey of `row`, its sealed part opened. */
function passkeyOf(row: PasskeyRow, keys: ElicitationStoreKeys): StoredPasskey {
  return openPasskey(
    row.id,
    row.sealed,
    {
      counter: Number(row.counter),
      createdAt: Number(row.created_at),
      ...(row.last_used_at !== null && { lastUsedAt: Number(row.last_used_at) }),
      ...(row.removed_at !== null && { removedAt: Number(row.removed_at) }),
    },
    keys,
  );
}
