import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
import { randomPool } from './random-pool.js';

/** Sealed values start with this tag; anything else is refused by `open`. */
const VERSION = 'v1';
/** IVs are 12 random bytes, drawn from the shared random pool. */
const IV_BYTES = 12;
/** GCM tags are 16 bytes; GCM itself would accept one cut to 4 bytes, so the length is enforced. */
const TAG_BYTES = 16;

/**
 * Whether a value has exactly the shape `seal` writes (`v1.<key id>.<12-byte iv>.<ciphertext>.<16-byte tag>`)
 * with every part in canonical base64url. Node's decoder ignores extra parts, padding, whitespace, stray
 * characters and the unused low bits of the last character, so without this many strings would open as
 * the same value.
 */
export function isCanonicalSealed(sealed: string): boolean {
  const parts = sealed.split('.');
  if (parts.length !== 5 || parts[0] !== VERSION || !/^[0-9a-f]{8}$/.test(parts[1])) return false;
  const [iv, ciphertext, tag] = parts.slice(2).map((p) => Buffer.from(p, 'base64url'));
  return (
    iv.length === IV_BYTES &&
    tag.length === TAG_BYTES &&
    iv.toString('base64url') === parts[2] &&
    ciphertext.toString('base64url') === parts[3] &&
    tag.toString('base64url') === parts[4]
  );
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
  private readonly keys: Array<{ id: string; key: Buffer }>;

  constructor(keys: Buffer[]) {
    if (keys.length === 0) throw new Error('SecretBox needs at least one key');
    this.keys = keys.map((key) => {
      if (key.length !== 32) throw new Error('SecretBox keys are 32 bytes');
      return { id: createHash('sha256').update(key).digest('hex').slice(0, 8), key };
    });
  }

  seal(plaintext: string, context: string): string {
    const { id, key } = this.keys[0];
    const iv = randomPool.take(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, id, iv.toString('base64url'), ciphertext.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  /** Decrypts a sealed value; throws when it was tampered with, sealed for another context or by an unknown key. */
  open(sealed: string, context: string): string {
    const [, id, iv, ciphertext, tag] = sealed.split('.');
    const entry = this.keys.find((k) => k.id === id);
    if (!entry || !isCanonicalSealed(sealed)) {
      throw new Error('Cannot open this sealed value: unknown format or key (was encryptionKey rotated out?)');
    }
    const decipher = createDecipheriv('aes-256-gcm', entry.key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }
}
