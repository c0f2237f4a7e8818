import { digestOf } from '../../core/json-digest.js';
import type { FormResponse } from '../questions/question-log.js';
import { ElicitationKeyError } from '../../errors/elicitation-key.error.js';
import { RequestStateError } from '../../errors/request-state.error.js';
import { randomPool } from '../../security/random-pool.js';
import { isCanonicalSealed, SecretBox } from '../../security/secret-box.js';

/** A form question's answer carried in a state: validated content, or the refusal. */
export type { FormResponse };

/** One question of a tool call that was answered in an earlier round (protocol 2026-07-28). */
export interface AnsweredQuestion {
  /** The `inputRequests` key it was asked under. */
  key: string;
  /** Digest of the question, so a tool that asks something else on a retry is not handed this answer. */
  question: string;
  /** Form mode: the validated answer. */
  response?: FormResponse;
  /** URL mode: the elicitation id (the answer itself stays in the store, never in the state). */
  elicitationId?: string;
}

/** The question a tool call is waiting on. */
export interface PendingQuestion {
  key: string;
  question: string;
  /** URL mode: the elicitation the hosted page answers. */
  elicitationId?: string;
  /** Form mode: answers refused so far (invalid content); the form bridge: "finished" answers the page did not confirm. */
  invalidAnswers?: number;
  /** The question is the form bridge (a form that points at the page of `elicitationId`). */
  bridge?: boolean;
  /** When the question was sent, epoch milliseconds (for `instantDeclineMs`). */
  askedAt?: number;
  /** Retries that found its page still unanswered (`pendingRetryRounds` leaves for the link rung). */
  retries?: number;
}

/** What a sealed `requestState` carries. Everything a client could use to change the outcome is inside the seal. */
export interface RequestState {
  /** Random id, redeemed once through the store (replay protection). */
  id: string;
  /** The verified user of the call that minted it; '' when the call had none. */
  user: string;
  /** The method of the originating request (`tools/call`, `prompts/get`, `resources/read`). */
  method: string;
  /** The tool (prompt, resource) name. */
  name: string;
  /** Digest of the originating request's arguments (`digestOf`). */
  argsDigest: string;
  /** Expiry, epoch milliseconds. */
  expiresAt: number;
  /**
   * When it was minted, epoch milliseconds: with `expiresAt`, the state's own lifetime, which sizes its
   * single-use counter the same on every instance whatever each one's `requestStateTtlMs`. Absent in states
   * minted before this field existed.
   */
  issuedAt?: number;
  /** Questions answered in earlier rounds, in the order the tool asked them. */
  answered: AnsweredQuestion[];
  /** The question this round asked. */
  pending?: PendingQuestion;
  /**
   * The call's own id, minted at its first round and kept across its retries: what its steps' idempotency keys are
   * made from. Absent in states minted before steps existed.
   */
  callId?: string;
  /** The results of the steps the call ran (`elicitation.step`), JSON by step name. */
  steps?: Record<string, string>;
}

/**
 * The wire format inside the seal: one-letter keys, since the state travels with every retry. Only this
 * file reads or writes it (`toWire` / `fromWire`); code reads `RequestState`'s named fields.
 */
interface RequestStateWire {
  v: 1;
  j: string;
  u: string;
  m: string;
  n: string;
  a: string;
  e: number;
  i?: number;
  d: Array<{ k: string; q: string; r?: FormResponse; id?: string }>;
  p?: { k: string; q: string; id?: string; n?: number; b?: 1; t?: number; r?: number };
  c?: string;
  s?: Record<string, string>;
}

/** The seal's additional data: a state sealed for this purpose opens for nothing else, and vice versa. */
const PURPOSE = 'nestjs-mcp-elicitation request-state v1';
/**
 * Longest state accepted before any decryption work (a real one is well under 4 KiB without steps); a state that
 * would pass it is refused when it is minted (`RequestStateCodec.seal`), naming what filled it.
 */
export const MAX_STATE_LENGTH = 64 * 1024;

/**
 * Seals and opens `requestState` values: AES-256-GCM (private and tamper-evident) under keys derived
 * from the module's `encryptionKey` ring, so every instance sharing the ring opens every instance's
 * states and a rotated-out key stops opening them.
 */
export class RequestStateCodec {
  private readonly box: SecretBox;

  constructor(encryptionKeys: Buffer[]) {
    this.box = new SecretBox(encryptionKeys, PURPOSE);
  }

  /** A fresh state id (128 random bits). */
  static newId(): string {
    return randomPool.take(16).toString('base64url');
  }

  seal(state: RequestState): string {
    const sealed = this.box.seal(JSON.stringify(toWire(state)), PURPOSE);
    if (sealed.length > MAX_STATE_LENGTH) {
      const steps = Object.values(state.steps ?? {}).reduce((total, json) => total + json.length, 0);
      throw new Error(
        `This call's requestState would be ${sealed.length} characters, over the ${MAX_STATE_LENGTH} a retry may send back ` +
          `(its step results take ${steps} of them): keep step results small (an id, not a document), or run the tool as a task.`,
      );
    }
    return sealed;
  }

  /**
   * Opens a state and checks what the seal alone cannot: expiry, the user and the method. The tool
   * name and arguments are checked by the caller that knows them (`checkCall`).
   */
  open(sealed: unknown, expected: { user: string; method: string; now: number }): RequestState {
    if (typeof sealed !== 'string' || sealed.length === 0 || sealed.length > MAX_STATE_LENGTH || !isCanonicalSealed(sealed)) {
      throw new RequestStateError('malformed');
    }
    let json: string;
    try {
      json = this.box.open(sealed, PURPOSE);
    } catch (error) {
      if (error instanceof ElicitationKeyError) throw new RequestStateError('key', { cause: error });
      throw new RequestStateError('tampered');
    }
    let wire: Partial<RequestStateWire> | null;
    try {
      wire = JSON.parse(json) as Partial<RequestStateWire> | null;
    } catch {
      throw new RequestStateError('malformed');
    }
    const state = fromWire(wire);
    if (!(expected.now < state.expiresAt)) throw new RequestStateError('expired');
    if (state.user !== expected.user) throw new RequestStateError('user');
    if (state.method !== expected.method) throw new RequestStateError('method');
    return state;
  }

  /** Throws unless the state was minted for this tool and these arguments. */
  static checkCall(state: RequestState, name: string, args: unknown): void {
    if (state.name !== name) throw new RequestStateError('tool');
    if (state.argsDigest !== digestOf(args ?? {})) throw new RequestStateError('arguments');
  }
}

function toWire(s: RequestState): RequestStateWire {
  const wire: RequestStateWire = {
    v: 1,
    j: s.id,
    u: s.user,
    m: s.method,
    n: s.name,
    a: s.argsDigest,
    e: s.expiresAt,
    i: s.issuedAt,
    d: s.answered.map((q) => ({ k: q.key, q: q.question, r: q.response, id: q.elicitationId })),
  };
  if (s.pending) {
    const { key, question, elicitationId, invalidAnswers, bridge, askedAt, retries } = s.pending;
    wire.p = { k: key, q: question, id: elicitationId, n: invalidAnswers, b: bridge ? 1 : undefined, t: askedAt, r: retries };
  }
  if (s.callId !== undefined) wire.c = s.callId;
  if (s.steps && Object.keys(s.steps).length > 0) wire.s = s.steps;
  return wire;
}

function fromWire(w: Partial<RequestStateWire> | null): RequestState {
  if (w?.v !== 1 || typeof w.j !== 'string' || !Array.isArray(w.d)) throw new RequestStateError('malformed');
  const state: RequestState = {
    id: w.j,
    user: w.u as string,
    method: w.m as string,
    name: w.n as string,
    argsDigest: w.a as string,
    expiresAt: w.e as number,
    ...(typeof w.i === 'number' && { issuedAt: w.i }),
    answered: w.d.map((q) => ({ key: q.k, question: q.q, response: q.r, elicitationId: q.id })),
  };
  if (w.p) {
    state.pending = { key: w.p.k, question: w.p.q, elicitationId: w.p.id, invalidAnswers: w.p.n, askedAt: w.p.t, retries: w.p.r };
    if (w.p.b === 1) state.pending.bridge = true;
  }
  if (typeof w.c === 'string') state.callId = w.c;
  if (w.s !== undefined) state.steps = stepsOf(w.s);
  return state;
}

/** The steps a state carries: JSON text by name, nothing else (the seal vouches for them; the shape is still checked). */
function stepsOf(raw: unknown): Record<string, string> {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new RequestStateError('malformed');
  const steps: Record<string, string> = {};
  for (const [name, json] of Object.entries(raw)) {
    if (typeof json !== 'string') throw new RequestStateError('malformed');
    steps[name] = json;
  }
  return steps;
}
