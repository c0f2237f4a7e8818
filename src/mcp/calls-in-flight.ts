import { ElicitationCallsInFlightError } from '../errors/elicitation-calls-in-flight.error.js';
import { refuse } from './call-refusals.js';
import { hangUpOf } from './response-streams.js';
import { extraOf, isSdkV2Context, type SdkRequestExtra } from './sdk/sdk.types.js';

/** The caps of {@link CallsInFlight} (`limits.maxCallsInFlightPerSession`, `limits.maxCallsInFlightPerUser`). */
export interface CallsInFlightLimits {
  readonly maxCallsInFlightPerSession: number;
  readonly maxCallsInFlightPerUser: number;
}

/** One tool call's place among the calls waiting for answers. */
export interface CallSlot {
  /**
   * Takes the place, at the call's first wait on a person (later calls are no-ops). Throws
   * `ElicitationCallsInFlightError` (through `refuse`: the client gets it as a JSON-RPC error) when the call's session
   * or user already has as many calls waiting as allowed.
   */
  take(this: void): void;
  /** Gives the place back when the call ends (idempotent). */
  release(this: void): void;
}

/** How a call's waits on a person end early (the client hung up) and what they take (a place among the calls in flight). */
export interface CallWaits {
  hangUp?: AbortSignal;
  waiting?: () => void;
}

/**
 * The tool calls of this process that wait for a person (through the binding's wrapper, `runCall`), counted per MCP
 * session and per user, so that one client cannot hold unbounded waits by repeating a call: identical calls share
 * one pending question, so the creation quotas never see them. Per process: on a shared store each instance counts
 * its own calls.
 */
export class CallsInFlight {
  private readonly bySession = new Map<unknown, number>();
  private readonly byUser = new Map<string, number>();

  constructor(private readonly limits: CallsInFlightLimits) {}

  /** The calls waiting now, all sessions together (for leak checks in tests). */
  get size(): number {
    let total = 0;
    for (const count of this.bySession.values()) total += count;
    return total;
  }

  /**
   * The waits of one tool call: its place (by its MCP session, else its `server`), taken at its first wait, and the
   * signal that its client hung up (`hangUpOf`). `release` gives the place back when the call ends.
   */
  forCall(context: unknown, server: object, user: () => string | undefined): CallWaits & { release(this: void): void } {
    const extra = isSdkV2Context(context) ? extraOf(context) : (context as SdkRequestExtra | undefined);
    const slot = this.slot(extra?.sessionId ?? server, user);
    return { hangUp: hangUpOf(context), waiting: slot.take, release: slot.release };
  }

  /**
   * The place of one call: `session` is its MCP session id, or its server where there is none (the count is kept
   * only while a call waits); `user` its verified user, read when it takes the place (none: no per-user count).
   */
  slot(session: unknown, user: () => string | undefined): CallSlot {
    let held: { user: string | undefined } | undefined;
    return {
      take: () => {
        if (held) return;
        const who = user();
        const { maxCallsInFlightPerSession: perSession, maxCallsInFlightPerUser: perUser } = this.limits;
        if ((this.bySession.get(session) ?? 0) >= perSession) {
          refuse(new ElicitationCallsInFlightError('limits.maxCallsInFlightPerSession', perSession));
        }
        if (who !== undefined && (this.byUser.get(who) ?? 0) >= perUser) {
          refuse(new ElicitationCallsInFlightError('limits.maxCallsInFlightPerUser', perUser));
        }
        held = { user: who };
        add(this.bySession, session, 1);
        if (who !== undefined) add(this.byUser, who, 1);
      },
      release: () => {
        if (!held) return;
        add(this.bySession, session, -1);
        if (held.user !== undefined) add(this.byUser, held.user, -1);
        held = undefined;
      },
    };
  }
}

/** Moves a count by `by`, forgetting it at 0. */
function add<K>(counts: Map<K, number>, key: K, by: number): void {
  const count = (counts.get(key) ?? 0) + by;
  if (count > 0) counts.set(key, count);
  else counts.delete(key);
}
