import { createCipheriv, createDecipheriv, createHash, createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';
import { ElicitationKeyError } from '../errors/elicitation-key.error.js';
import { keyIdOf } from './key-ids.js';
import { randomPool } from './random-pool.js';

/** Sealed values start with this tag; anything else is refused by `open`. */
const VERSION = 'v1';
/** IVs are 12 random bytes, drawn from the shared random pool. */
const IV_BYTES = 12;
/** GCM tags are 16 bytes; GCM itself would accept one cut to 4 bytes, so the length is enforced. */
const TAG_BYTES = 16;

/**
 * The exact shape `seal` writes: `v1.<8 hex>.<iv: 16 chars>.<ciphertext>.<tag: 22 chars>`, every part in
 * canonical base64url. Canonical means no padding, no stray characters, and zero unused low bits in the
 * last character (a 22-character tag leaves 4 unused bits, so its last character is one of A, Q, g, w).
 */
const SEALED = /^v1\.[0-9a-f]{8}\.[A-Za-z0-9_-]{16}\.([A-Za-z0-9_-]*)\.[A-Za-z0-9_-]{21}[AQgw]$/;
/** Ciphertext parts of 4k+2 and 4k+3 characters leave 4 and 2 unused bits in their last character. */
const LAST_OF_4K2 = /[AQgw]$/;
const LAST_OF_4K3 = /[AEIMQUYcgkosw048]$/;

/**
 * Whether a value has exactly the shape `seal` writes (`v1.<key id>.<12-byte iv>.<ciphertext>.<16-byte tag>`)
 * with every part in canonical base64url. Node's decoder ignores extra parts, padding, whitespace, stray
 * characters and the unused low bits of the last character, so without this many strings would open as
 * the same value. Checked on the text alone, without decoding.
 */
export function isCanonicalSealed(sealed: string): boolean {
  const match = SEALED.exec(sealed);
  if (match === null) return false;
  const ciphertext = match[1];
  switch (ciphertext.length % 4) {
    case 0:
      return true;
    case 2:
      return LAST_OF_4K2.test(ciphertext);
    case 3:
      return LAST_OF_4K3.test(ciphertext);
    default:
      return false;
  }
}

/** The `<key id>` a sealed value names (the key it was sealed under), or `undefined` when it has not the shape `seal` writes. */
export function sealedKeyId(sealed: string): string | undefined {
  return isCanonicalSealed(sealed) ? sealed.slice(3, 11) : undefined;
}

/**
 * AES-256-GCM with a key ring. `seal` encrypts with the first key and binds the ciphertext to `context`
 * (additional authenticated data, e.g. the elicitation id, so a sealed value cannot be moved to another
 * record); `open` finds the key by its id, so values sealed before a rotation stay readable.
 *
 * Format: `v1.<key id>.<iv>.<ciphertext>.<tag>` (base64url parts). The key id is the `encryptionKey`'s id
 * (`keyIdOf`, a fingerprint, never the key), the same whichever purpose the box serves, so a value that cannot be
 * opened is reported as an `ElicitationKeyError` naming the key it was sealed under.
 */
export class SecretBox {
  private readonly keys: Array<{ id: string; legacyId: string; key: KeyObject }>;

  /**
   * @param encryptionKeys the `encryptionKey` ring, 32 bytes each, the sealing key first.
   * @param purpose when given, the box encrypts under keys derived from the ring for this purpose alone
   *   (HKDF-SHA256, this info); the key ids stay those of the ring's keys.
   */
  constructor(encryptionKeys: readonly Buffer[], purpose?: string) {
    if (encryptionKeys.length === 0) throw new Error('SecretBox needs at least one key');
    this.keys = encryptionKeys.map((encryptionKey) => {
      if (encryptionKey.length !== 32) throw new Error('SecretBox keys are 32 bytes');
      const key = purpose === undefined ? encryptionKey : Buffer.from(hkdfSync('sha256', encryptionKey, Buffer.alloc(0), purpose, 32));
      return {
        id: keyIdOf(encryptionKey),
        // The id values sealed before key ids were fingerprints carry: 8 hex characters of the box key's SHA-256.
        legacyId: createHash('sha256').update(key).digest('hex').slice(0, 8),
        // A KeyObject is imported once; a Buffer key would be imported again by every cipher.
        key: createSecretKey(key),
      };
    });
  }

  /** The ids of the ring's keys, the sealing key's first. */
  get keyIds(): string[] {
    return this.keys.map((k) => k.id);
  }

  seal(plaintext: string, context: string): string {
    const { id, key } = this.keys[0];
    const iv = randomPool.take(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    // GCM is a stream mode: `final` adds no bytes, so `update`'s output is the whole ciphertext.
    const ciphertext = cipher.update(plaintext, 'utf8');
    cipher.final();
    return `${VERSION}.${id}.${iv.toString('base64url')}.${ciphertext.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}`;
  }

  /**
   * Decrypts a sealed value. Throws `ElicitationKeyError` when it was sealed under a key this ring does not hold,
   * and an `Error` when it has not the shape `seal` writes, was tampered with or was sealed for another context.
   */
  open(sealed: string, context: string): string {
    const entry = this.keyFor(sealed);
    // Fixed offsets: "v1." (3) + key id (8) + "." then the 16-character IV, "." and the rest.
    const tagAt = sealed.length - 22;
    const decipher = createDecipheriv('aes-256-gcm', entry.key, Buffer.from(sealed.slice(12, 28), 'base64url'), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(sealed.slice(tagAt), 'base64url'));
    const text = decipher.update(Buffer.from(sealed.slice(29, tagAt - 1), 'base64url')).toString('utf8');
    decipher.final();
    return text;
  }

  /**
   * Throws what `open` would throw for a value this ring cannot open by its key id (`ElicitationKeyError`) or
   * shape, without decrypting: checked before an irreversible step, such as read-once delivery.
   */
  assertKnownKey(sealed: string): void {
    this.keyFor(sealed);
  }

  private keyFor(sealed: string): { id: string; key: KeyObject } {
    const id = sealedKeyId(sealed);
    if (id === undefined) throw new Error('Cannot open this sealed value: unknown format');
    const entry = this.keys.find((k) => k.id === id) ?? this.keys.find((k) => k.legacyId === id);
    if (!entry) throw new ElicitationKeyError(id, this.keyIds);
    return entry;
  }
}
