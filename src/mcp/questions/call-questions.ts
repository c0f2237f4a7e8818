import type { CreatedElicitation, ElicitationService } from '../../lifecycle/elicitation.service.js';
import type { ElicitationRecords } from '../../lifecycle/elicitation-records.js';
import type { ElicitationData, ElicitationRecord, WaitOutcome } from '../../core/elicitation.types.js';
import { ElicitationIdentityError } from '../../errors/elicitation-identity.error.js';
import { ElicitationNotAnsweredError } from '../../errors/elicitation-not-answered.error.js';
import { fitFor, type FallbackRung, type ObservedLadder } from '../../options/client-ladder.js';
import type { MechanismTelemetry } from './form-telemetry.js';
import type { CallScope, LinkedQuestions } from './linked-questions.js';
import { supportsMode } from './question-rules.js';
import type { DeclaredElicitation, UrlElicitationAsk } from '../tool-elicitation.js';

/** What the rules both mechanisms share need: the module's parts, and one tool call's user, capability and scope. */
export interface CallQuestionsDeps {
  service: Pick<ElicitationService, 'createUrlElicitation'>;
  records: Pick<ElicitationRecords, 'keptAnswer'>;
  linked: Pick<LinkedQuestions, 'askKey' | 'earlier' | 'claim'>;
  telemetry: Pick<MechanismTelemetry, 'fallback'>;
  /** The verified user of the call, or `undefined`. */
  user: () => string | undefined;
  /** The elicitation capability to act on (declared, after the module's `clientPolicy`). */
  elicitation: DeclaredElicitation;
  /** The link and model rungs' view of the call. */
  scope: CallScope;
}

/**
 * The questions of one tool call, as both mechanisms (push, 2025-11-25, and input-required, 2026-07-28) ask
 * them: the call's user, which modes and rungs fit it, the counted ladder, the page an earlier call of the same
 * tool asked on, a new page keyed for the link rung, and the answer `requireAnswer` takes without asking.
 */
export class CallQuestions {
  constructor(private readonly deps: CallQuestionsDeps) {}

  /** The verified user of this call. Throws `ElicitationIdentityError` when there is none. */
  get userId(): string {
    const user = this.deps.user();
    if (!user) throw new ElicitationIdentityError();
    return user;
  }

  isSupported(mode: 'form' | 'url'): boolean {
    return supportsMode(this.deps.elicitation, mode);
  }

  /** A ladder whose fallbacks are counted (`elicitation.fallback`); `below`: it continues under a rung already tried. */
  ladder(rungs: readonly FallbackRung[], below?: boolean): ObservedLadder {
    const fellTo = (rung: FallbackRung) => this.deps.telemetry.fallback(rung);
    return { rungs, observer: below === undefined ? { fellTo } : { fellTo, below } };
  }

  /** Which rungs fit a question of this call. */
  fit(form: boolean, secret: boolean): (rung: FallbackRung) => boolean {
    return fitFor((mode) => this.isSupported(mode), this.deps.scope, form, secret);
  }

  /** The question an earlier call of this tool asked at this position, not claimed by another call (none without a user). */
  earlier(position: number, digest: string): Promise<ElicitationRecord | undefined> {
    const user = this.deps.user();
    return user ? this.deps.linked.earlier(this.deps.scope, { user, position, digest }) : Promise.resolve(undefined);
  }

  /** A page for this question, keyed for the link rung (`askKey`: the call's tool, arguments and the question's position). */
  createPage(ask: UrlElicitationAsk, position: number, digest: string, extra: { session?: string } = {}): Promise<CreatedElicitation> {
    const { fallback: _ladder, ...rest } = ask;
    const user = this.userId;
    const asking = this.deps.scope.asking;
    const askKey = asking && this.deps.linked.askKey(user, asking, position, digest);
    return this.deps.service.createUrlElicitation({ ...rest, userId: user, ...extra, askKey });
  }

  /**
   * The answer-reuse rule of `requireAnswer`, one for both eras: the user's latest answer of `ask.type` (for
   * `oauth`, a valid token of the vault) is taken without asking, on the first call as on a retry: a kept answer
   * is a credential, reused by design. The call counts a claim on it (`LinkedQuestions.claim`, whatever the count),
   * so the link rung never hands that outcome to a call of the tool as a finished question of its own.
   */
  async keptAnswer<T extends ElicitationData>(ask: UrlElicitationAsk): Promise<{ elicitationId: string; data: T } | undefined> {
    const found = await this.deps.records.keptAnswer<T>(this.userId, ask);
    if (found) await this.deps.linked.claim(found.elicitationId);
    return found;
  }
}

/** `requireAnswer`'s result: a completed page question's data; any other outcome throws `ElicitationNotAnsweredError`. */
export function answerOf<T extends ElicitationData>(outcome: WaitOutcome<T>): T {
  if (outcome.status === 'completed') return outcome.data;
  throw new ElicitationNotAnsweredError(outcome.status === 'timeout' ? 'expired' : outcome.status);
}
