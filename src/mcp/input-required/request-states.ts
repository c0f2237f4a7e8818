import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectMcpOptions, type ElicitationMcpOptions } from '../../options/mcp-options.js';
import { ElicitationKeyError } from '../../errors/elicitation-key.error.js';
import { KeyIdWarnings } from '../../security/key-ids.js';
import { ElicitationAudit } from '../../observability/elicitation-audit.js';
import { ELICITATION_OBSERVED_STORE } from '../../observability/observed-store.js';
import type { ElicitationCounterStore } from '../../stores/elicitation-store.js';
import { RequestStateError } from '../../errors/request-state.error.js';
import { digestOf } from '../../core/json-digest.js';
import { RequestStateCodec, type AnsweredQuestion, type PendingQuestion, type RequestState } from './request-state.codec.js';

/** The call a state is minted for. */
export interface StateCall {
  /** The verified user; '' or undefined when the call has none. */
  user: string | undefined;
  method: string;
  name: string;
  args: unknown;
}

/** What a state carries on from round to round besides the questions: the call's id and its steps' results. */
export type StateCarried = Pick<RequestState, 'callId' | 'steps'>;

/** What the request alone tells about a presented state. */
export interface StateCheck {
  user: string | undefined;
  method: string;
  /** The validated `Mcp-Name` header, when the request came over HTTP. */
  toolHeader?: string | null;
}

/**
 * The life of a 2026-07-28 `requestState`: minted sealed for one call, verified when presented (seal,
 * expiry, user, method, tool header, not used before), and redeemed once it also matches the call's tool
 * and arguments. Single use across instances on a shared store: one counter per state id.
 */
@Injectable()
export class RequestStates {
  private readonly logger = new Logger('McpElicitation');
  /** Warnings about a key id this instance lacks, rate-limited: a client can make up key ids. */
  private readonly keyIdWarnings = new KeyIdWarnings();
  /** States this binding opened and checked (so a value another `requestState` hook resolved is not taken for one). */
  private readonly verified = new WeakSet<RequestState>();

  constructor(
    @InjectMcpOptions() private readonly options: ElicitationMcpOptions,
    @Inject(ELICITATION_OBSERVED_STORE) private readonly store: ElicitationCounterStore,
    private readonly audit: ElicitationAudit,
    private readonly codec: RequestStateCodec,
  ) {}

  /** A sealed state for `call`, carrying the questions answered so far and the one now asked. */
  mint(call: StateCall, answered: AnsweredQuestion[] = [], pending?: PendingQuestion, carried: StateCarried = {}): string {
    const now = Date.now();
    return this.codec.seal({
      id: RequestStateCodec.newId(),
      user: call.user ?? '',
      method: call.method,
      name: call.name,
      argsDigest: digestOf(call.args ?? {}),
      issuedAt: now,
      expiresAt: now + this.options.requestStateTtlMs,
      answered,
      pending,
      ...carried,
    });
  }

  /**
   * Opens a state and checks everything the request alone tells, without using it up. Throws
   * `RequestStateError` (the reason is for logs; clients get one generic error).
   */
  async verify(sealed: unknown, check: StateCheck): Promise<RequestState> {
    try {
      const state = this.codec.open(sealed, { user: check.user ?? '', method: check.method, now: Date.now() });
      // Over HTTP the SDK has already matched the Mcp-Name header against params.name, so the tool can be
      // checked here too (a JSON-RPC error); the arguments are checked on redemption, which sees them.
      const header = check.toolHeader;
      if (typeof header === 'string' && header !== state.name && decodeHeaderValue(header) !== state.name) {
        throw new RequestStateError('tool');
      }
      const used = await this.store.peekHits?.(this.redemptionKey(state), this.lifetime(state), state.expiresAt);
      if (used) throw new RequestStateError('replayed');
      this.verified.add(state);
      return state;
    } catch (error) {
      this.logRefusal(error, check.method);
      this.auditRefusal(error, check.user);
      throw error;
    }
  }

  /**
   * Uses up a state `verify` opened, once it matches the call: the tool `name` and a digest of its `args`.
   * A state that does not match is refused and left as it was. The counter's window is pinned to the
   * state's own expiry (passed as the counter's clock, with a window as long as a state's whole life), so
   * every redemption of one state lands in the same window whenever it comes, and the counter outlives the
   * state. Of two retries racing with one state, the second is refused here.
   */
  async redeem(state: RequestState, name: string, args: unknown): Promise<void> {
    try {
      if (!this.verified.has(state)) throw new RequestStateError('malformed');
      RequestStateCodec.checkCall(state, name, args);
      const redeemed = await this.store.hit(this.redemptionKey(state), this.lifetime(state), state.expiresAt);
      if (redeemed.count > 1) throw new RequestStateError('replayed');
    } catch (error) {
      this.logRefusal(error, `${state.method} ${name}`);
      this.auditRefusal(error, state.user, state.pending?.elicitationId);
      throw error;
    }
  }

  /**
   * The window of a state's single-use counter: its own lifetime, carried in the state, so every instance counts
   * its redemptions under the same key whatever its `requestStateTtlMs` (a state from before `issuedAt` existed
   * falls back to this instance's setting).
   */
  private lifetime(state: RequestState): number {
    return state.issuedAt !== undefined && state.issuedAt < state.expiresAt
      ? state.expiresAt - state.issuedAt
      : this.options.requestStateTtlMs;
  }

  private redemptionKey(state: RequestState): string {
    return `request-state:${state.id}`;
  }

  /** The audit record of a refused state: the call's user, the elicitation its question waits on, the reason. */
  private auditRefusal(error: unknown, user: string | undefined, elicitationId?: string): void {
    if (!(error instanceof RequestStateError)) return;
    this.audit.record({ event: 'request-state.refused', reason: error.reason, ...(user && { userId: user }), elicitationId });
  }

  private logRefusal(error: unknown, what: string): void {
    if (!(error instanceof RequestStateError)) return;
    // A state sealed under a key this instance lacks is the operator's to fix (the cause names the key ids); a
    // client can make up key ids, so the warnings are rate-limited (each key id now and then, a bounded number).
    const cause = error.cause;
    if (cause instanceof ElicitationKeyError && this.keyIdWarnings.take(cause.keyId))
      this.logger.warn(`requestState refused on ${what}: ${cause.message}`);
    else this.logger.debug(`requestState refused on ${what}: ${error.reason}`);
  }
}

/** A header value as MCP encodes names that are not header-safe: `=?base64?...?=`. */
function decodeHeaderValue(value: string): string | undefined {
  const match = /^=\?base64\?(.*)\?=$/i.exec(value);
  return match ? Buffer.from(match[1], 'base64').toString('utf8') : undefined;
}
