import type { ElicitationRecord } from '../elicitation.types.js';

/** The memory store's index for `findLatestCompleted` and `listByUser`: userId → type → ids, in creation order. */
export type UserTypeIndex = Map<string, Map<string, Set<string>>>;

/** Files a new record's id under its user and type. */
export function addToIndex(index: UserTypeIndex, record: ElicitationRecord): void {
  let types = index.get(record.userId);
  if (!types) index.set(record.userId, (types = new Map<string, Set<string>>()));
  let ids = types.get(record.type);
  if (!ids) types.set(record.type, (ids = new Set<string>()));
  ids.add(record.id);
}

/** Takes a forgotten record's id out, and the user's and type's entries once they are empty. */
export function removeFromIndex(index: UserTypeIndex, record: ElicitationRecord): void {
  const types = index.get(record.userId);
  const ids = types?.get(record.type);
  if (!types || !ids) return;
  ids.delete(record.id);
  if (ids.size === 0) {
    types.delete(record.type);
    if (types.size === 0) index.delete(record.userId);
  }
}
