import { sealedKeyId } from '../security/secret-box.js';
import type { ElicitationStoreKeys } from './elicitation-store.js';
import type { StoredPasskey } from './passkey-store.js';

/*
 * What a shared store seals of a passkey, whichever store: its user, public key, transports and name together, as the
 * JSON object `{"userId":…,"publicKey":…,"name":…,"transports":…}`, sealed with the store's keys and bound to the
 * passkey's id (a part moved to another passkey does not open). Its counter and times a store keeps in clear, so that
 * a use is a compare-and-set the store itself can make.
 */

/** What sealing and opening passkeys needs of the store's keys. */
export type PasskeySealing = Pick<ElicitationStoreKeys, 'seal' | 'open'>;

/** The sealed part of a passkey, once opened. */
export type SealedPasskeyParts = Pick<StoredPasskey, 'userId' | 'publicKey' | 'name' | 'transports'>;

/** The part of a passkey a store keeps in clear. */
export type ClearPasskeyParts = Pick<StoredPasskey, 'counter' | 'createdAt' | 'lastUsedAt' | 'removedAt'>;

/** The additional data a passkey's sealed part is bound to: its id. */
function passkeyContext(id: string): string {
  return `passkey:${id}`;
}

/** The sealed part of `passkey`. */
export function sealPasskey(passkey: StoredPasskey, keys: PasskeySealing): string {
  const parts: SealedPasskeyParts = {
    userId: passkey.userId,
    publicKey: passkey.publicKey,
    name: passkey.name,
    ...(passkey.transports && { transports: passkey.transports }),
  };
  return keys.seal(JSON.stringify(parts), passkeyContext(passkey.id));
}

/** Passkey `id` from its sealed part and the part kept in clear; throws when the sealed part does not open. */
export function openPasskey(id: string, sealed: string, clear: ClearPasskeyParts, keys: PasskeySealing): StoredPasskey {
  const opened = JSON.parse(keys.open(sealed, passkeyContext(id))) as Partial<SealedPasskeyParts> | null;
  if (!opened || typeof opened.userId !== 'string' || typeof opened.publicKey !== 'string' || typeof opened.name !== 'string') {
    throw new Error(`The sealed part of passkey ${id} holds no user, public key and name.`);
  }
  return {
    id,
    userId: opened.userId,
    publicKey: opened.publicKey,
    counter: clear.counter,
    ...(Array.isArray(opened.transports) && { transports: opened.transports.filter((t) => typeof t === 'string') }),
    name: opened.name,
    createdAt: clear.createdAt,
    ...(clear.lastUsedAt !== undefined && { lastUsedAt: clear.lastUsedAt }),
    ...(clear.removedAt !== undefined && { removedAt: clear.removedAt }),
  };
}

/** The key id each ring seals under, found once per ring (by what it seals: the keys hand out no key ids). */
const sealingKeyIds = new WeakMap<PasskeySealing, string | undefined>();

function sealingKeyId(keys: PasskeySealing): string | undefined {
  if (!sealingKeyIds.has(keys)) sealingKeyIds.set(keys, sealedKeyId(keys.seal('', passkeyContext('key id'))));
  return sealingKeyIds.get(keys);
}

/**
 * Passkey `id`'s sealed part sealed again under the ring's first key, with its user (to file it under their name by
 * that key); `'current'` when it is sealed under that key already, `'unreadable'` when it does not open with this ring
 * or holds no user.
 */
function resealPasskey(id: string, sealed: string, keys: PasskeySealing): 'current' | 'unreadable' | { sealed: string; userId: string } {
  if (sealedKeyId(sealed) === sealingKeyId(keys)) return 'current';
  try {
    const plaintext = keys.open(sealed, passkeyContext(id));
    const { userId } = JSON.parse(plaintext) as Partial<SealedPasskeyParts>;
    return typeof userId === 'string' ? { sealed: keys.seal(plaintext, passkeyContext(id)), userId } : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

/** The moves of one step over passkeys read as `[id, sealed part]`: what to write, and how many do not open. */
export function resealMoves(
  found: ReadonlyArray<readonly [id: string, sealed: string]>,
  keys: PasskeySealing,
): { moves: Array<{ id: string; old: string; sealed: string; userId: string }>; unreadable: number } {
  const moves: Array<{ id: string; old: string; sealed: string; userId: string }> = [];
  let unreadable = 0;
  for (const [id, old] of found) {
    const resealed = resealPasskey(id, old, keys);
    if (resealed === 'unreadable') unreadable++;
    else if (resealed !== 'current') moves.push({ id, old, ...resealed });
  }
  return { moves, unreadable };
}
