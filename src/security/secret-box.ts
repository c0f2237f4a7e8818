import { createCipheriv, createDecipheriv, createHash, createSecretKey, type KeyObject } from 'node:crypto';
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

/**
 * AES-256-GCM with a key ring. `seal` encrypts with the first key and binds the ciphertext to `context`
 * (additional authenticated data, e.g. the elicitation id, so a sealed value cannot be moved to another
 * record); `open` finds the key by its id, so values sealed before a rotation stay readable.
 *
 * Format: `v1.<key id>.<iv>.<ciphertext>.<tag>` (base64url parts; the key id is 8 hex characters of the
 * key's SHA-256, never the key).
 */
export class SecretBox {
  private readonly keys: Array<{ id: string; key: KeyObject }>;

  constructor(keys: Buffer[]) {
    if (keys.length === 0) throw new Error('SecretBox needs at least one key');
    this.keys = keys.map((key) => {
      if (key.length !== 32) throw new Error('SecretBox keys are 32 bytes');
      // A KeyObject is imported once; a Buffer key would be imported again by every cipher.
      return { id: createHash('sha256').update(key).digest('hex').slice(0, 8), key: createSecretKey(key) };
    });
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

  /** Decrypts a sealed value; throws when it was tampered with, sealed for another context or by an unknown key. */
  open(sealed: string, context: string): string {
    const entry = isCanonicalSealed(sealed) ? this.keys.find((k) => sealed.startsWith(k.id, 3)) : undefined;
    if (!entry) throw new Error('Cannot open this sealed value: unknown format or key (was encryptionKey rotated out?)');
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
}
