import { hkdfSync } from 'node:crypto';

/** HKDF info of key ids: a key id is derived for this purpose alone, so it says nothing about any other use of the key. */
const KEY_ID_PURPOSE = 'nestjs-mcp-elicitation key id';
/** Bytes of a key id: 32 bits, 8 hex characters (the `<key id>` part of a sealed value). */
const KEY_ID_BYTES = 4;

/** The shape of a key id. */
export const KEY_ID_SHAPE = /^[0-9a-f]{8}$/;

/**
 * The id of one `encryptionKey`: 8 hex characters of HKDF-SHA256(key, info "nestjs-mcp-elicitation key id"). The
 * same on every instance holding the key and for every purpose the key serves (sealed answers, records and
 * `requestState`s name their key by it, CSRF tokens carry it, instances announce their ring with it), so an
 * operator can match an error to the instance that sealed the value. It is a fingerprint: it reveals nothing
 * about the key (a pseudo-random function of it, for this purpose only), and it is never used as key material.
 */
export function keyIdOf(key: Buffer): string {
  return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), KEY_ID_PURPOSE, KEY_ID_BYTES)).toString('hex');
}

/** How often one key id may be warned about again (`KeyIdWarnings`): 10 minutes. */
export const KEY_ID_WARNING_INTERVAL_MS = 10 * 60_000;
/** Most key ids `KeyIdWarnings` warns about in one interval: past it, the rest wait for an earlier one's turn. */
const MAX_WARNED_PER_INTERVAL = 64;

/**
 * Rate-limits the warnings about a key id this instance lacks: each key id at most once per `intervalMs`, and at
 * most `MAX_WARNED_PER_INTERVAL` key ids at once, so that a mismatch the operator has not fixed is said again now and
 * then, and nothing can flood the log. The rest are for the debug log.
 */
export class KeyIdWarnings {
  /** When each key id was last warned about, oldest first. */
  private readonly warnedAt = new Map<string, number>();

  constructor(
    private readonly intervalMs = KEY_ID_WARNING_INTERVAL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** True when `keyId` may be warned about now (then it is counted as warned). */
  take(keyId: string): boolean {
    const now = this.now();
    // Entries older than the interval are forgotten, oldest first (the map keeps the order they were warned in).
    for (const [id, at] of this.warnedAt) {
      if (now - at < this.intervalMs) break;
      this.warnedAt.delete(id);
    }
    if (this.warnedAt.has(keyId) || this.warnedAt.size >= MAX_WARNED_PER_INTERVAL) return false;
    this.warnedAt.set(keyId, now);
    return true;
  }
}
