import { createHmac, createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';
import { SecretBox } from './secret-box.js';

/** HKDF info of the keys that name index entries (keyed hashes). */
const NAMES_PURPOSE = 'nestjs-mcp-elicitation store names';
/** HKDF info of the keys that seal what a store keeps of a record. */
const RECORDS_PURPOSE = 'nestjs-mcp-elicitation store records';
/** Bytes of HMAC-SHA256 a name keeps: 128 bits, 22 base64url characters. */
const NAME_BYTES = 16;

/**
 * The keys the module hands its store (`ElicitationStore.useKeys`, structurally an `ElicitationStoreKeys`),
 * derived with HKDF-SHA256 from each key of the `encryptionKey` ring, one purpose each: keyed hashes for the
 * names of index entries, and AES-256-GCM for what the store keeps of a record. The store never gets the
 * ring itself, so it cannot open answers, `requestState`s or CSRF tokens.
 */
export class StoreKeyRing {
  /** One HMAC key per key of the ring, the first key's first. */
  private readonly nameKeys: KeyObject[];
  private readonly box: SecretBox;

  constructor(encryptionKeys: Buffer[]) {
    if (encryptionKeys.length === 0) throw new Error('StoreKeyRing needs at least one key');
    this.nameKeys = encryptionKeys.map((key) => createSecretKey(derive(key, NAMES_PURPOSE)));
    this.box = new SecretBox(encryptionKeys, RECORDS_PURPOSE);
  }

  /**
   * The name of `parts` for `purpose` under every key of the ring, the first key's first: HMAC-SHA256 of
   * the JSON array `[purpose, ...parts]` (unambiguous whatever the parts hold), cut to 128 bits, base64url.
   */
  names(purpose: string, ...parts: string[]): string[] {
    const message = JSON.stringify([purpose, ...parts]);
    return this.nameKeys.map((key) => createHmac('sha256', key).update(message).digest().subarray(0, NAME_BYTES).toString('base64url'));
  }

  /** AES-256-GCM under the first key, bound to `context`. */
  seal(plaintext: string, context: string): string {
    return this.box.seal(plaintext, context);
  }

  /**
   * Opens what `seal` sealed for `context` under any key of the ring; throws `ElicitationKeyError` when the ring
   * lacks the key it was sealed under, an `Error` when it cannot open it otherwise.
   */
  open(sealed: string, context: string): string {
    return this.box.open(sealed, context);
  }
}

function derive(key: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), purpose, 32));
}
