/**
 * The secure stack's store (bench/secure-stack): a `Map` of AES-256-GCM sealed records, what a Nest user who keeps
 * answers encrypted at rest writes in a few lines. Each record is sealed whole as JSON (a fresh 12-byte IV, the id as
 * additional data so that a sealed value cannot be moved to another id) and opened whole on every read.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** One question for one user, as the pages read it. */
export interface SecureRecord {
  id: string;
  userId: string;
  message: string;
  status: 'pending' | 'complete' | 'declined';
  /** Epoch ms. */
  createdAt: number;
  /** Epoch ms. */
  expiresAt: number;
  answer?: { apiKey: string };
}

export class SealedRecords {
  private readonly sealed = new Map<string, Buffer>();

  constructor(private readonly key: Buffer = randomBytes(32)) {}

  get(id: string): SecureRecord | undefined {
    const value = this.sealed.get(id);
    return value && (JSON.parse(this.open(id, value)) as SecureRecord);
  }

  set(record: SecureRecord): void {
    this.sealed.set(record.id, this.seal(record.id, JSON.stringify(record)));
  }

  clear(): number {
    const size = this.sealed.size;
    this.sealed.clear();
    return size;
  }

  /** IV (12 bytes) | tag (16 bytes) | ciphertext. */
  private seal(id: string, plain: string): Buffer {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(id));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]);
  }

  private open(id: string, value: Buffer): string {
    const decipher = createDecipheriv('aes-256-gcm', this.key, value.subarray(0, 12));
    decipher.setAAD(Buffer.from(id));
    decipher.setAuthTag(value.subarray(12, 28));
    return decipher.update(value.subarray(28), undefined, 'utf8') + decipher.final('utf8');
  }
}
