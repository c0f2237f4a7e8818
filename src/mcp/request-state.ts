import { createHash, hkdfSync } from 'node:crypto';
import { randomPool } from '../security/random-pool.js';
import { isCanonicalSealed, SecretBox } from '../security/secret-box.js';

/** One question of a tool call that was answered in an earlier round (protocol 2026-07-28). */
export interface AnsweredAsk {
  /** The `inputRequests` key it was asked under. */
  k: string;
  /** Digest of the question, so a tool that asks something else on a retry is not handed this answer. */
  q: string;
  /** Form mode: the validated answer. */
  r?: { action: 'accept'; content: Record<string, unknown> } | { action: 'decline' } | { action: 'cancel' };
  /** URL mode: the elicitation id (the answer itself stays in the store, never in the state). */
  id?: string;
}

/** The question a tool call is waiting on. */
export interface PendingAsk {
  k: string;
  q: string;
  /** URL mode: the elicitation the hosted page answers. */
  id?: string;
  /** Form mode: answers refused so far (invalid content). */
  n?: number;
}

/**
 * What a sealed `requestState` carries. Short keys: the state travels with every retry.
 * Everything a client could use to change the outcome is inside the AEAD seal.
 */
export interface RequestStatePayload {
  /** Format version. */
  v: 1;
  /** Random id, redeemed once through the store (replay protection). */
  j: string;
  /** The verified user of the call that minted it; '' when the call had none. */
  u: string;
  /** The method of the originating request (`tools/call`, `prompts/get`, `resources/read`). */
  m: string;
  /** The tool (prompt, resource) name. */
  n: string;
  /** Digest of the originating request's arguments. */
  a: string;
  /** Expiry, epoch milliseconds. */
  e: number;
  /** Questions answered in earlier rounds, in the order the tool asked them. */
  d: AnsweredAsk[];
  /** The question this round asked. */
  p?: PendingAsk;
}

/** Why a `requestState` was refused (only for logs: the client always gets the same error). */
export type RequestStateRejection = 'malformed' | 'tampered' | 'expired' | 'user' | 'method' | 'tool' | 'arguments' | 'replayed';

/**
 * A `requestState` that must not be honoured. The message is the same for every reason (it may reach the
 * client); `reason` is for server logs only.
 */
export class RequestStateError extends Error {
  override readonly name = 'RequestStateError';

  constructor(readonly reason: RequestStateRejection) {
    super('Invalid or expired requestState');
  }
}

/** The seal's additional data: a state sealed for this purpose opens for nothing else, and vice versa. */
const PURPOSE = 'nestjs-mcp-elicitation request-state v1';
/** Longest state accepted before any decryption work (a real one is well under 4 KiB). */
const MAX_STATE_LENGTH = 64 * 1024;

/**
 * Seals and opens `requestState` values: AES-256-GCM (private and tamper-evident) under keys derived
 * from the module's `encryptionKey` ring, so every instance sharing the ring opens every instance's
 * states and a rotated-out key stops opening them.
 */
export class RequestStateCodec {
  private readonly box: SecretBox;

  constructor(encryptionKeys: Buffer[]) {
    this.box = new SecretBox(encryptionKeys.map((key) => Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), PURPOSE, 32))));
  }

  /** A fresh payload id (128 random bits). */
  static newId(): string {
    return randomPool.take(16).toString('base64url');
  }

  seal(payload: RequestStatePayload): string {
    return this.box.seal(JSON.stringify(payload), PURPOSE);
  }

  /**
   * Opens a state and checks what the seal alone cannot: expiry, the user and the method. The tool
   * name and arguments are checked by the caller that knows them (`checkCall`).
   */
  open(state: unknown, expected: { user: string; method: string; now: number }): RequestStatePayload {
    if (typeof state !== 'string' || state.length === 0 || state.length > MAX_STATE_LENGTH || !isCanonicalSealed(state)) {
      throw new RequestStateError('malformed');
    }
    let json: string;
    try {
      json = this.box.open(state, PURPOSE);
    } catch {
      throw new RequestStateError('tampered');
    }
    let payload: RequestStatePayload;
    try {
      payload = JSON.parse(json) as RequestStatePayload;
    } catch {
      throw new RequestStateError('malformed');
    }
    if (payload?.v !== 1 || typeof payload.j !== 'string' || !Array.isArray(payload.d)) throw new RequestStateError('malformed');
    if (!(expected.now < payload.e)) throw new RequestStateError('expired');
    if (payload.u !== expected.user) throw new RequestStateError('user');
    if (payload.m !== expected.method) throw new RequestStateError('method');
    return payload;
  }

  /** Throws unless the state was minted for this tool and these arguments. */
  static checkCall(payload: RequestStatePayload, name: string, args: unknown): void {
    if (payload.n !== name) throw new RequestStateError('tool');
    if (payload.a !== digestOf(args ?? {})) throw new RequestStateError('arguments');
  }
}

/** A short, stable digest of a JSON value (object keys sorted, so key order does not matter). */
export function digestOf(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('base64url').slice(0, 32);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
