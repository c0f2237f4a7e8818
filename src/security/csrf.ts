import { createHmac, createSecretKey, hkdfSync, type KeyObject, timingSafeEqual } from 'node:crypto';
import { ElicitationKeyError } from '../errors/elicitation-key.error.js';
import type { AnnouncedKeyIds } from './announced-key-ids.js';
import { keyIdOf } from './key-ids.js';
import { randomPool } from './random-pool.js';

/** A nonce as `CsrfTokens` mints it: 16 random bytes in base64url. */
const NONCE_SHAPE = /^[A-Za-z0-9_-]{22}$/;

/** A token as `CsrfTokens` issues it: `<key id>.<HMAC-SHA256 in base64url>`. */
const TOKEN_SHAPE = /^([0-9a-f]{8})\.[A-Za-z0-9_-]{43}$/;

/**
 * Cookie nonces a post may pair its token with: at most this many of the request's values are tried. A browser
 * sends one per path it holds the cookie for (ours, and perhaps one a sibling subdomain planted); the cap bounds
 * the HMACs a request with a stuffed `Cookie` header can cost.
 */
const MAX_NONCES_TRIED = 4;

/**
 * CSRF tokens for the pages, in the signed double-submit pattern: the browser holds a random nonce in an
 * HttpOnly, SameSite=Strict cookie scoped to the elicitation's own path, and the form carries
 * HMAC(key, "<elicitation id>.<nonce>"). A POST is accepted only when the form's token is the HMAC of one of the
 * cookie's nonces for that very elicitation: a token is worth nothing without its cookie, a cookie nothing
 * without the key, and neither for another elicitation.
 *
 * The nonce belongs to the browser, not to a render: a render reuses the nonce the browser already holds for the
 * page, so every tab opened on the page (and a form shown again after a refused post) carries a valid token
 * until the elicitation ends.
 *
 * The token is `<key id>.<HMAC>`: the HMAC key is derived from the first key of the `encryptionKey` ring, whose id
 * (`keyIdOf`, a fingerprint) the token names, so every instance holding that key accepts it, during a rotation too
 * (an instance whose first key is another one of the ring). A token under a key id this instance does not hold is
 * a forged post, like any other bad token, unless another live instance on the shared store announced that key id
 * (`AnnouncedKeyIds`): then it is an `ElicitationKeyError` (the instances disagree on `encryptionKey`, the operator's
 * to fix). A browser can make key ids up; only an instance can announce one.
 */
export class CsrfTokens {
  /**
   * One HMAC key per key of the ring, by key id; the first key's signs. Kept as key objects: an HMAC made from one
   * skips importing raw key bytes, a fifth of its cost (the page and post rows of bench/http.bench.ts).
   */
  private readonly keys: Map<string, KeyObject>;
  private readonly signer: { id: string; key: KeyObject };

  /**
   * @param encryptionKeys the `encryptionKey` ring (or its one key), the sealing key first.
   * @param announced the key ids of the other live instances on a shared store (none: every key id this ring lacks
   *   is a forged post's).
   */
  constructor(
    encryptionKeys: Buffer | readonly Buffer[],
    private readonly announced?: Pick<AnnouncedKeyIds, 'has' | 'lookUp'>,
  ) {
    const ring = Buffer.isBuffer(encryptionKeys) ? [encryptionKeys] : encryptionKeys;
    if (ring.length === 0) throw new Error('CsrfTokens needs at least one key');
    this.keys = new Map(
      ring.map((key) => [
        keyIdOf(key),
        createSecretKey(Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'nestjs-mcp-elicitation csrf', 32))),
      ]),
    );
    const [id, key] = this.keys.entries().next().value!;
    this.signer = { id, key };
  }

  /**
   * The nonce for the cookie and its token for the form: `held`, the browser's own nonces from its cookie, when
   * one of them has the shape of a nonce (reused, so that the forms of earlier renders stay valid), otherwise a
   * fresh one. A nonce chosen by someone else than this server gains its chooser nothing: the token for it is
   * only ever written into the page this render answers.
   */
  issue(elicitationId: string, held: readonly string[] = []): { nonce: string; token: string } {
    const nonce = held.find((value) => NONCE_SHAPE.test(value)) ?? randomPool.take(16).toString('base64url');
    return { nonce, token: `${this.signer.id}.${sign(this.signer.key, elicitationId, nonce)}` };
  }

  /**
   * True when `token` was issued for this elicitation and one of the cookie's `nonces` (the first few, see
   * `MAX_NONCES_TRIED`), under any key of the ring. Constant-time for each nonce tried. A well-formed token under a
   * key id the ring lacks is false, unless another live instance announced that key id: then it throws
   * `ElicitationKeyError` (call `lookUpKeyOf` first, so that an instance started since the rings were read counts).
   */
  verify(elicitationId: string, nonces: readonly string[] | string | undefined, token: unknown): boolean {
    if (typeof token !== 'string') return false;
    const keyId = TOKEN_SHAPE.exec(token)?.[1];
    if (keyId === undefined) return false;
    const key = this.keys.get(keyId);
    if (!key) {
      if (this.announced?.has(keyId)) throw new ElicitationKeyError(keyId, [...this.keys.keys()], 'a CSRF token signed');
      return false;
    }
    const given = Buffer.from(token.slice(9));
    const candidates = (typeof nonces === 'string' ? [nonces] : (nonces ?? [])).slice(0, MAX_NONCES_TRIED);
    let valid = false;
    for (const nonce of candidates) {
      if (!NONCE_SHAPE.test(nonce)) continue;
      const expected = Buffer.from(sign(key, elicitationId, nonce));
      // Every candidate is compared (no early exit), so the time taken does not say which one matched.
      if (given.length === expected.length && timingSafeEqual(given, expected)) valid = true;
    }
    return valid;
  }

  /**
   * Before `verify`: when `token` is well-formed under a key id this ring lacks and no live instance is known to
   * hold, reads the live rings again (rate-limited, `AnnouncedKeyIds.lookUp`). Resolves at once for any other token.
   */
  async lookUpKeyOf(token: unknown): Promise<void> {
    const keyId = typeof token === 'string' ? TOKEN_SHAPE.exec(token)?.[1] : undefined;
    if (keyId !== undefined && !this.keys.has(keyId) && this.announced) await this.announced.lookUp(keyId);
  }
}

function sign(key: KeyObject, elicitationId: string, nonce: string): string {
  return createHmac('sha256', key).update(`${elicitationId}.${nonce}`).digest('base64url');
}
