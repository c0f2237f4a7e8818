import type { AddPasskeyResult, ElicitationPasskeyStore, StoredPasskey } from './passkey-store.js';

/**
 * The passkeys of `MemoryElicitationStore` (`ElicitationPasskeyStore`): a map by id, and each user's ids in the order
 * they were added (removed ones included: few per user, filtered on read). Objects are copied in and out, so no caller
 * holds what the store keeps. Nothing expires: a passkey is kept, removed or not, as long as the process.
 */
export class MemoryPasskeys implements ElicitationPasskeyStore {
  private readonly passkeys = new Map<string, StoredPasskey>();
  /** userId → ids, oldest first. */
  private readonly byUser = new Map<string, string[]>();

  addPasskey(passkey: StoredPasskey, maxPerUser: number): Promise<AddPasskeyResult> {
    if (this.passkeys.has(passkey.id)) return Promise.resolve('exists');
    const ids = this.byUser.get(passkey.userId) ?? [];
    if (this.kept(ids).length >= maxPerUser) return Promise.resolve('limit');
    this.passkeys.set(passkey.id, copy(passkey));
    ids.push(passkey.id);
    this.byUser.set(passkey.userId, ids);
    return Promise.resolve('added');
  }

  getPasskey(id: string): Promise<StoredPasskey | undefined> {
    const passkey = this.passkeys.get(id);
    return Promise.resolve(passkey && copy(passkey));
  }

  listPasskeys(userId: string): Promise<StoredPasskey[]> {
    const kept = this.kept(this.byUser.get(userId) ?? []);
    return Promise.resolve(kept.sort((a, b) => a.createdAt - b.createdAt).map(copy));
  }

  removePasskey(userId: string, id: string, now: number): Promise<boolean> {
    const passkey = this.passkeys.get(id);
    if (!passkey || passkey.userId !== userId || passkey.removedAt !== undefined) return Promise.resolve(false);
    passkey.removedAt = now;
    return Promise.resolve(true);
  }

  usePasskey(id: string, expected: number, counter: number, now: number): Promise<boolean> {
    const passkey = this.passkeys.get(id);
    if (!passkey || passkey.removedAt !== undefined || passkey.counter !== expected) return Promise.resolve(false);
    passkey.counter = counter;
    passkey.lastUsedAt = now;
    return Promise.resolve(true);
  }

  /** The passkeys of `ids` not removed, in that order (the store's own objects, in an array of their own). */
  private kept(ids: readonly string[]): StoredPasskey[] {
    const kept: StoredPasskey[] = [];
    for (const id of ids) {
      const passkey = this.passkeys.get(id);
      if (passkey && passkey.removedAt === undefined) kept.push(passkey);
    }
    return kept;
  }
}

/** A copy of `passkey` sharing nothing with it (its transports are an array of their own). */
function copy(passkey: StoredPasskey): StoredPasskey {
  return { ...passkey, ...(passkey.transports && { transports: [...passkey.transports] }) };
}
