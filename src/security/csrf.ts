import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { randomPool } from './random-pool.js';

/**
 * Per-render CSRF tokens for the pages: the page sets a random nonce in an HttpOnly, SameSite=Strict cookie
 * scoped to the elicitation's own path, and puts HMAC(key, "<elicitation id>.<nonce>") in the form. A POST
 * is accepted only when the form's token matches the cookie's nonce for that very elicitation. The key is
 * derived from the first encryption key, so every instance sharing the key ring accepts the same tokens.
 */
export class CsrfTokens {
  private readonly key: Buffer;

  constructor(encryptionKey: Buffer) {
    this.key = Buffer.from(hkdfSync('sha256', encryptionKey, Buffer.alloc(0), 'nestjs-mcp-elicitation csrf', 32));
  }

  /** A fresh nonce (for the cookie) and its token (for the form). */
  issue(elicitationId: string): { nonce: string; token: string } {
    const nonce = randomPool.take(16).toString('base64url');
    return { nonce, token: this.sign(elicitationId, nonce) };
  }

  /** True when `token` was issued for this elicitation and this cookie nonce. Constant-time. */
  verify(elicitationId: string, nonce: unknown, token: unknown): boolean {
    if (typeof nonce !== 'string' || typeof token !== 'string' || !/^[A-Za-z0-9_-]{22}$/.test(nonce)) return false;
    const expected = Buffer.from(this.sign(elicitationId, nonce));
    const given = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private sign(elicitationId: string, nonce: string): string {
    return createHmac('sha256', this.key).update(`${elicitationId}.${nonce}`).digest('base64url');
  }
}
