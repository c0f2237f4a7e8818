/**
 * A passkey (a WebAuthn credential) a user registered on the module's passkey page, as the store keeps it. Nothing in it
 * is secret: the public key verifies the user's signatures, the private key never leaves their authenticator.
 */
export interface StoredPasskey {
  /** The credential's id, base64url: unique in the store, whoever's it is. */
  id: string;
  /** The user it was registered by (the page's browser user). */
  userId: string;
  /** The credential's COSE public key, base64url. */
  publicKey: string;
  /** The authenticator's signature counter at its last use (0 for an authenticator that keeps none). */
  counter: number;
  /** How the browser said the authenticator can be reached (`internal`, `usb`, `hybrid`…), as hints for the next use. */
  transports?: string[];
  /** A name for the user's list (the authenticator's kind and the day it was added, or what the user typed). */
  name: string;
  /** When it was registered, epoch milliseconds. */
  createdAt: number;
  /** When it last signed a decision, epoch milliseconds. */
  lastUsedAt?: number;
  /**
   * When the user removed it, epoch milliseconds: a removed passkey signs nothing more and is not listed, but its public
   * key stays, so the receipts it signed can still be verified.
   */
  removedAt?: number;
}

/** What `addPasskey` did: added, or nothing written because the id is taken or the user has `maxPerUser` already. */
export type AddPasskeyResult = 'added' | 'exists' | 'limit';

/** One step of `resealPasskeys`. */
export interface PasskeyResealStep {
  /** The passkeys it moved under the ring's first key. */
  moved: number;
  /** The passkeys it left as they were because their sealed part does not open with this ring (a key dropped too soon). */
  unreadable: number;
  /** Where the next step starts; none when every passkey was looked at. */
  next?: string;
}

/**
 * The passkey half of a store (optional): each user's passkeys, several per user, removable. Needed for
 * `presence: 'passkey'` and the passkey page; a store without it refuses neither, the module does (at start-up, naming
 * the store).
 */
export interface ElicitationPasskeyStore {
  /**
   * Adds `passkey` in one atomic step: `'exists'` (nothing written) when a passkey with its id is kept already, removed
   * or not, whoever's it is; `'limit'` when its user has `maxPerUser` passkeys not removed.
   */
  addPasskey(passkey: StoredPasskey, maxPerUser: number): Promise<AddPasskeyResult>;
  /** The passkey with this credential id, removed ones included, or `undefined`. */
  getPasskey(id: string): Promise<StoredPasskey | undefined>;
  /** The user's passkeys not removed, oldest first. */
  listPasskeys(userId: string): Promise<StoredPasskey[]>;
  /**
   * Marks the user's passkey `id` removed at `now` (`removedAt`); `false` when the user has no such passkey not removed
   * (another user's passkey is left alone).
   */
  removePasskey(userId: string, id: string, now: number): Promise<boolean>;
  /**
   * A use of passkey `id`, as a compare-and-set of its counter: writes `counter` and `lastUsedAt = now` when the stored
   * counter is still `expected` and the passkey is not removed; `false` otherwise (another use went first, or removed).
   */
  usePasskey(id: string, expected: number, counter: number, now: number): Promise<boolean>;
  /**
   * One step of moving passkeys kept under an older key of the `encryptionKey` ring (sealed, or filed under their user's
   * name, with it) under the ring's first key, removed ones included: from `cursor` (none: the first step), at most about
   * `limit` passkeys looked at. Each move is a compare-and-set of the sealed part (a passkey changed meanwhile is looked
   * at again by the next pass). The module runs passes once the instances sharing the store seal with one key, so that
   * an older key can leave the ring without taking passkeys with it. A store that seals nothing may leave it out.
   */
  resealPasskeys?(cursor: string | undefined, limit: number): Promise<PasskeyResealStep>;
}
