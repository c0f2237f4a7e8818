import type { ElicitationRecord } from '../core/elicitation.types.js';

/**
 * The memory store's indexes, userId → a second key → ids, in creation order: by type for `findLatestCompleted` and
 * `listByUser`, by askKey for `findByAskKey`.
 */
export type UserTypeIndex = Map<string, Map<string, Set<string>>>;

/** Files a new record's id under its user and `key` (its type, or its askKey). */
export function addToIndex(index: UserTypeIndex, record: ElicitationRecord, key: string = record.type): void {
  let types = index.get(record.userId);
  if (!types) index.set(record.userId, (types = new Map<string, Set<string>>()));
  let ids = types.get(key);
  if (!ids) types.set(key, (ids = new Set<string>()));
  ids.add(record.id);
}

/** Takes a forgotten record's id out, and the user's and key's entries once they are empty. */
export function removeFromIndex(index: UserTypeIndex, record: ElicitationRecord, key: string = record.type): void {
  const types = index.get(record.userId);
  const ids = types?.get(key);
  if (!types || !ids) return;
  ids.delete(record.id);
  if (ids.size === 0) {
    types.delete(key);
    if (types.size === 0) index.delete(record.userId);
  }
}
