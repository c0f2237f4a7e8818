import { checkAnnouncedKeyRing } from '../security/key-ring-check.js';
import type { KeyRingEntry } from '../stores/elicitation-store.js';
import type { PostgresQueries } from './postgres.bounded.js';

/**
 * The key rings of the live instances on PostgreSQL (`announceKeyRing`): an instance's key ids kept until `now +
 * ttlMs` (0: its row is gone) by the schema's `announce` function, which answers with every ring still live. Key ids
 * only, never a key.
 */
export async function announcePostgresKeyRing(
  db: PostgresQueries,
  t: (object: string) => string,
  entry: KeyRingEntry,
  now: number,
  ttlMs: number,
): Promise<KeyRingEntry[]> {
  checkAnnouncedKeyRing(entry);
  const { rows } = await db.query<{ instance_id: string; key_ids: string }>(
    `SELECT instance_id, key_ids FROM ${t('announce')}($1, $2, $3, $4)`,
    [entry.instanceId, entry.keyIds.join(','), ttlMs > 0 ? now + ttlMs : 0, now],
  );
  return rows.map((r) => ({ instanceId: r.instance_id, keyIds: r.key_ids.split(',') }));
}
