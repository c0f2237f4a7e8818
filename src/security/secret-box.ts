import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
import { randomPool } from './random-pool.js';

/** Sealed values start with this tag; anything else is refused by `open`. */
const VERSION = 'v1';
/** IVs are 12 random bytes, drawn from the shared random pool. */
const IV_BYTES = 12;

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
    const [version, id, iv, ciphertext, tag] = sealed.split('.');
    const entry = this.keys.find((k) => k.id === id);
    if (version !== VERSION || !entry || !iv || ciphertext === undefined || !tag) {
      throw new Error('Cannot open this sealed value: unknown format or key (was encryptionKey rotated out?)');
    }
    const decipher = createDecipheriv('aes-256-gcm', entry.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }
}
