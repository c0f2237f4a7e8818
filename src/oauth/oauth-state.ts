import { SecretBox } from '../security/secret-box.js';
import { randomPool } from '../security/random-pool.js';

/** Longest a `state` lives: the elicitation's own expiry, or this after Continue, whichever comes first. */
export const OAUTH_STATE_TTL_MS = 10 * 60_000;
/** Longest `state` value accepted back from a provider, in characters. */
const MAX_STATE_LENGTH = 2048;
/** The box's purpose (its keys are derived from the ring for this purpose alone) and the seal's context. */
const PURPOSE = 'nestjs-mcp-elicitation oauth-state v1';

/** What the `state` of one authorization request carries, sealed: never readable outside the module's instances. */
export interface OAuthState {
  /** Random id: the state is spent (a counter in the store) the first time a callback presents it. */
  id: string;
  /** The elicitation the grant completes. */
  elicitationId: string;
  /** The browser user who pressed Continue ('' when the pages are not identity-checked). */
  user: string;
  /** Minted at, epoch milliseconds. */
  issuedAt: number;
  /** Refused from then on, epoch milliseconds. */
  expiresAt: number;
  /** The PKCE code verifier (only its S256 challenge went to the provider). */
  verifier: string;
  /** The OpenID Connect nonce the ID token must carry (plain OAuth 2: none). */
  nonce?: string;
}

/** Why a presented `state` was refused. */
export type OAuthStateProblem = 'malformed' | 'expired';

/**
 * Seals and opens the `state` parameter of the OAuth flow (AES-256-GCM under a key derived from the
 * `encryptionKey` ring for this purpose, bound to its purpose), so that any instance sharing the keys can finish
 * a flow another started: the PKCE verifier and the nonce travel inside it, unreadable, and no instance keeps
 * anything in memory.
 */
export class OAuthStateCodec {
  private readonly box: SecretBox;

  constructor(encryptionKeys: readonly Buffer[]) {
    this.box = new SecretBox(encryptionKeys, PURPOSE);
  }

  /** A new random id for a state. */
  static newId(): string {
    return randomPool.take(16).toString('base64url');
  }

  seal(state: OAuthState): string {
    const { id, elicitationId, user, issuedAt, expiresAt, verifier, nonce } = state;
    return this.box.seal(JSON.stringify({ i: id, e: elicitationId, u: user, t: issuedAt, x: expiresAt, v: verifier, n: nonce }), PURPOSE);
  }

  /** The state, or the problem: tampered, sealed under another key, not ours at all (`malformed`), or past its expiry. */
  open(value: unknown, now: number): OAuthState | OAuthStateProblem {
    if (typeof value !== 'string' || value.length === 0 || value.length > MAX_STATE_LENGTH) return 'malformed';
    let raw: unknown;
    try {
      raw = JSON.parse(this.box.open(value, PURPOSE));
    } catch {
      return 'malformed';
    }
    if (typeof raw !== 'object' || raw === null) return 'malformed';
    const { i, e, u, t, x, v, n } = raw as Record<string, unknown>;
    if (
      typeof i !== 'string' ||
      typeof e !== 'string' ||
      typeof u !== 'string' ||
      typeof t !== 'number' ||
      typeof x !== 'number' ||
      typeof v !== 'string' ||
      (n !== undefined && typeof n !== 'string')
    ) {
      return 'malformed';
    }
    if (now >= x) return 'expired';
    return { id: i, elicitationId: e, user: u, issuedAt: t, expiresAt: x, verifier: v, nonce: n };
  }
}
