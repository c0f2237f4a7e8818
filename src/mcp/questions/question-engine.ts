import type { ElicitationData, ElicitationOutcome, ElicitationRecord, WaitOutcome } from '../../core/elicitation.types.js';
import { ElicitationUnsupportedError } from '../../errors/elicitation-unsupported.error.js';
import type { FormDefinition } from '../../forms/define-form.js';
import type { FormSchema } from '../../forms/form-schema.js';
import type { ElicitationRecords } from '../../lifecycle/elicitation-records.js';
import { typeOfAsk } from '../../lifecycle/create-input.validation.js';
import { ASKED_BY_METADATA } from '../../core/asked-by.js';
import { descend, type FallbackRung, type PageFallbackRung } from '../../options/client-ladder.js';
import type {
  ApprovalOutcome,
  ApprovalRequest,
  ElicitationElicitOptions,
  ElicitResult,
  PageOutcome,
  UrlElicitationAsk,
} from '../tool-elicitation.js';
import { actionHash } from '../../lifecycle/approval-plan.js';
import type { ApprovalAnswer } from '../../lifecycle/elicitation-approvals.js';
import { ElicitationNotAnsweredError } from '../../errors/elicitation-not-answered.error.js';
import { answerOf, type CallQuestions } from './call-questions.js';
import type { MechanismTelemetry } from './form-telemetry.js';
import { FormAsking } from './form-asking.js';
import { isPendingQuestionSignal, type CallScope, type LinkedQuestion, type LinkedQuestions } from './linked-questions.js';
import type { Slot } from './question-log.js';
import type { Page, PageStep, QuestionRoom } from './question-room.js';
import {
  assertModelAllowed,
  formQuestionDigest,
  formUnreachable,
  hostedFormAsk,
  hostedFormResult,
  pageQuestionDigest,
  toFormDefinition,
} from './question-rules.js';

/** What the engine needs from the module and the call, whatever the transport. */
export interface QuestionEngineDeps {
  /** The call's user, modes, ladder, earlier questions, pages and kept answers. */
  questions: CallQuestions;
  linked: Pick<LinkedQuestions, 'round' | 'claim' | 'handOver' | 'outcomeOf' | 'viaOf'>;
  records: Pick<ElicitationRecords, 'urlFor' | 'read' | 'approvalMessage'>;
  /** The link and model rungs' view of the call. */
  scope: CallScope;
  /** The module's ladders (`fallback`). */
  fallback: { page: readonly PageFallbackRung[]; form: readonly FallbackRung[] };
  /** Form answers one question takes in all (`limits.maxFormAttempts`). */
  maxFormAttempts: number;
  /** Form-mode questions, for the metrics. */
  telemetry: Pick<MechanismTelemetry, 'created' | 'finished'>;
  /** The call ends before the tool ran (a link, -32042): what it did in steps is kept for its continuation. */
  callEnds?: () => Promise<void>;
}

/** How a page question is to be asked. */
interface PageQuestionHow {
  /** `requestUrl`'s bound on the wait. */
  timeoutMs?: number;
  /** `requireAnswer`: the kept answer first, and on 2025-11-25 -32042 on the `url` rung. */
  kept?: boolean;
  /** What the caller's lookup of an earlier call's question found (not looked up again). */
  known?: { found: ElicitationRecord | undefined };
}

/**
 * The one owner of the rules of asking, for every era and for tasks. Given a question, the client's modes (after
 * `clientPolicy`), the call and the answers so far (the room's log, by position and digest), it decides: take the
 * recorded answer, take up a kept answer (with its claim) or an earlier call's question, ask in a mode (form, url,
 * form bridge) or end with the link (or the model), judge a form reply and count the attempts, claim a page's
 * outcome for this call. The room (`QuestionRoom`) only keeps the log and puts the question to the client.
 */
export class QuestionEngine {
  /** Earlier calls' finished questions this call claimed (handed on if it ends at a later question's link). */
  private readonly took: string[] = [];

  constructor(
    private readonly deps: QuestionEngineDeps,
    private readonly room: QuestionRoom,
  ) {}

  /** `elicit`: a form question, validated and typed. */
  async elicit<T>(message: string, form: FormDefinition<T> | FormSchema, options: ElicitationElicitOptions = {}): Promise<ElicitResult<T>> {
    const { questions, linked } = this.deps;
    const definition = toFormDefinition(form);
    assertModelAllowed(definition, options.fallback);
    const slot = this.room.place(formQuestionDigest(message, definition), options.key);
    if (slot.answered?.response) return slot.answered.response as ElicitResult<T>;
    const list = options.fallback ?? this.deps.fallback.form;
    const hosted = (rest: readonly FallbackRung[]) => hostedFormAsk(message, definition, rest);
    // Asked on the hosted page (in an earlier round, or open now): the page question takes it from here.
    if (slot.answered?.elicitationId || slot.open?.elicitationId) {
      return hostedFormResult<T>(definition, await this.pageQuestion(hosted(list), slot, {}));
    }
    let known: { found: ElicitationRecord | undefined } | undefined;
    if (!slot.open) {
      // An earlier call of this tool asked this on a page and the person has finished: that is the answer.
      const earlier = await questions.earlier(slot.index, slot.question);
      if (earlier && earlier.status !== 'pending') {
        const outcome = await this.taken<Record<string, unknown>>(slot, earlier);
        return { ...hostedFormResult<T>(definition, outcome), via: linked.viaOf(earlier) };
      }
      known = { found: earlier };
    }
    const asking = new FormAsking<T>(this.deps, this.room, slot, message, definition, options, this.stamped(hosted([])));
    const canAsk = asking.replied();
    if (typeof canAsk === 'object') return canAsk.done;
    const from = canAsk ? list : list.slice(list.indexOf('form') + 1);
    const linkFits = questions.fit(true, false)('link');
    // The lookup above stands for the first rung tried only: a rung that waits gives the person time to answer.
    let lookup = known;
    const result = await descend<ElicitResult<T>>(
      questions.ladder(from, !canAsk),
      questions.fit(true, definition.secretFields.length > 0),
      async (rung) => {
        const found = lookup;
        lookup = undefined;
        if (rung === 'form') {
          const step = await asking.ask(linkFits && list.includes('link'));
          if (step !== 'leave') return step;
          // The call may wait no longer (`callWaitMs`): the question goes to the hosted form page, and the call ends with its link.
          return { done: { ...hostedFormResult<T>(definition, await this.link(slot, hosted([]))), via: 'link' } };
        }
        if (rung === 'model') {
          const model = { requestedSchema: definition.schema as unknown as Record<string, unknown> };
          return { done: { ...hostedFormResult<T>(definition, await this.link(slot, hosted([]), found, model)), via: 'model' } };
        }
        // Every other rung asks on the hosted form page: the rest of the ladder from here is a page question's.
        const rest = from.slice(from.indexOf(rung));
        const outcome = await this.pageQuestion<Record<string, unknown>>(hosted(rest), slot, {
          timeoutMs: options.timeoutMs,
          known: found,
        });
        return { done: hostedFormResult<T>(definition, outcome) };
      },
      canAsk,
    );
    if (result) return result;
    if (definition.secretFields.length === 0) this.room.unsupported(slot, 'form', message, 'form');
    throw formUnreachable(definition);
  }

  /** `requireAnswer`: the kept answer when there is one, else asked on a page; anything but an answer throws. */
  async requireAnswer<T extends ElicitationData = ElicitationData>(ask: UrlElicitationAsk): Promise<T> {
    const withType = { ...ask, type: typeOfAsk(ask) };
    return answerOf(await this.pageQuestion<T>(withType, this.room.place(pageQuestionDigest(withType)), { kept: true }));
  }

  /** `requestUrl`: asked on a page; resolves how it ended and through which rung. */
  requestUrl<T extends ElicitationData = ElicitationData>(ask: UrlElicitationAsk & { timeoutMs?: number }): Promise<PageOutcome<T>> {
    const { timeoutMs, ...rest } = ask;
    return this.pageQuestion<T>(rest, this.room.place(pageQuestionDigest(rest)), { timeoutMs });
  }

  /** `requestApproval`: an approval of this call (its tool and arguments) asked as a page question of the requester. */
  async requestApproval(request: ApprovalRequest): Promise<ApprovalOutcome> {
    const { asking } = this.deps.scope;
    const userId = this.deps.questions.userId;
    const { approvers, quorum, rejectionsToDeny, excludeRequester, details, presence, message, ttlMs, fallback } = request;
    const list = typeof approvers === 'function' ? await approvers({ userId, tool: asking?.name, args: asking?.args }) : approvers;
    const action = asking && { tool: asking.name, args: asking.args };
    const ask: UrlElicitationAsk = {
      kind: 'approval',
      message,
      approval: { approvers: list, quorum, rejectionsToDeny, excludeRequester, details, presence, ...(action && { action }) },
      ...(ttlMs !== undefined && { ttlMs }),
      ...(fallback && { fallback }),
    };
    const outcome = await this.pageQuestion<ApprovalAnswer & Record<string, unknown>>(ask, this.room.place(pageQuestionDigest(ask)), {});
    const hash = action && actionHash(action);
    const via = outcome.via && { via: outcome.via };
    if (outcome.status !== 'completed') {
      const status = outcome.status === 'declined' ? 'rejected' : outcome.status;
      return { status, ...(hash && { hash }), ...via };
    }
    // Taken up from an earlier call (the link rung): only an approval of this very action counts.
    if (outcome.data.hash !== hash) throw new ElicitationNotAnsweredError('declined');
    return { status: 'approved', approvedBy: outcome.data.approvedBy, ...(hash && { hash }), ...via };
  }

  /**
   * One question answered on a page: answered in the log, open (it continues on the rung it was asked on), a kept
   * answer (`requireAnswer`), an earlier call's question (finished: its outcome; pending: its page), or new (down the
   * ladder). A page made by one rung is reused by the next (the bridge and the link show the same URL).
   */
  private async pageQuestion<T extends ElicitationData>(
    asked: UrlElicitationAsk,
    slot: Slot,
    how: PageQuestionHow,
  ): Promise<PageOutcome<T>> {
    const { questions, records } = this.deps;
    const ask = this.stamped(asked);
    const answeredBy = slot.answered?.elicitationId;
    if (answeredBy)
      return (this.room.loggedOutcome?.(slot) as WaitOutcome<T> | undefined) ?? this.deps.linked.outcomeOf<T>({ id: answeredBy });
    let list: readonly FallbackRung[] = ask.fallback ?? this.deps.fallback.page;
    const linkFits = questions.fit(false, false)('link');
    const canLeave = (rungs: readonly FallbackRung[]) => linkFits && rungs.includes('link');
    let canAsk = true;
    let below = false;
    let page: Page | undefined;
    let lookedUp: { found: ElicitationRecord | undefined } | undefined;
    const openId = slot.open?.elicitationId;
    if (openId) {
      const rung = slot.open?.bridge ? 'form-bridge' : 'url';
      page = await this.progressOf(
        { elicitationId: openId, url: records.urlFor(openId, ask.kind), expiresAt: new Date(0), message: ask.message },
        ask,
      );
      const step = await this.claimed<T>(page, await this.room.resume<T>(slot, page, rung, canLeave(list)));
      if (typeof step === 'object') return this.answered(slot, page, step.done, rung);
      if (step === 'cannot-ask') canAsk = false;
      // Spent: another call claimed the page's answer, so this one asks anew on the same rung, on a page of its own.
      page = step === 'next' || step === 'cannot-ask' ? page : undefined;
      if (step === 'leave') {
        // Retried as often as the client allows: the call ends with the link, the question stays open.
        list = ['link'];
        lookedUp = { found: await questions.earlier(slot.index, slot.question) };
      } else list = list.slice(list.indexOf(rung) + (step === 'spent' ? 0 : 1));
      below = true;
    } else {
      const kept = how.kept ? await questions.keptAnswer<T>(ask) : undefined;
      if (kept) {
        this.room.record(slot, { elicitationId: kept.elicitationId }, { status: 'completed', data: kept.data });
        return { status: 'completed', data: kept.data };
      }
      const earlier = how.known ? how.known.found : await questions.earlier(slot.index, slot.question);
      if (earlier && earlier.status !== 'pending') return { ...(await this.taken<T>(slot, earlier)), via: 'link' };
      if (earlier) page = this.room.reuse(earlier, ask);
      lookedUp = { found: earlier };
    }
    const outcome = await descend<PageOutcome<T>>(
      questions.ladder(list, below),
      questions.fit(false, false),
      async (rung) => {
        const found = lookedUp;
        lookedUp = undefined;
        if (rung === 'link') return { done: { ...(await this.link<T>(slot, ask, found)), via: 'link' } };
        const pageRung = rung as 'url' | 'form-bridge';
        const asking = { timeoutMs: how.timeoutMs, suspend: how.kept, canLeave: canLeave(list) };
        page ??= await this.progressOf(await this.room.page(ask, slot, pageRung, how.kept), ask);
        const shown = page;
        let step = await this.claimed<T>(page, await this.ending(() => this.room.askOnPage<T>(slot, pageRung, shown, asking)));
        // Another call claimed the page's answer (one answer runs a tool once): this call asks anew, on a page of its own.
        while (step === 'spent') {
          page = await this.room.page(ask, slot, pageRung);
          step = await this.claimed<T>(page, await this.room.askOnPage<T>(slot, pageRung, page, asking));
        }
        if (step === 'leave') {
          return { done: { ...(await this.link<T>(slot, ask, { found: await records.read(page.elicitationId) })), via: 'link' } };
        }
        if (typeof step === 'object') return { done: this.answered(slot, page, step.done, pageRung) };
        return step;
      },
      canAsk,
    );
    if (outcome) return outcome;
    this.room.unsupported(slot, 'url', ask.message, ask.kind);
    throw new ElicitationUnsupportedError('url');
  }

  /**
   * A page's final outcome, claimed for this call: every call that waited on the page counts a claim (so a later
   * call passes it over), and an answer goes to the one call that claimed it first; the others get `spent`.
   */
  private async claimed<T extends ElicitationData>(page: Page, step: PageStep<T>): Promise<PageStep<T>> {
    if (typeof step !== 'object') return step;
    const mine = await this.deps.linked.claim(page.elicitationId);
    return step.done.status === 'completed' && !mine ? 'spent' : step;
  }

  /** A page question answered on `rung`: logged, and its outcome with the rung. */
  private answered<T extends ElicitationData>(slot: Slot, page: Page, outcome: WaitOutcome<T>, rung: PageFallbackRung): PageOutcome<T> {
    this.room.record(slot, { elicitationId: page.elicitationId }, outcome);
    return { ...outcome, via: rung };
  }

  /** A finished question (an earlier call's), taken as this slot's answer. */
  private async taken<T extends ElicitationData>(slot: Slot, record: ElicitationRecord): Promise<ElicitationOutcome<T>> {
    this.took.push(record.id);
    const outcome = await this.deps.linked.outcomeOf<T>(record);
    this.room.record(slot, { elicitationId: record.id }, outcome);
    return outcome;
  }

  /**
   * The link (or model) rung: an earlier call's finished answer to this question, else the call ends with the page's
   * link (`PendingQuestionSignal`). `found`: a lookup made with no rung run since.
   */
  private async link<T extends ElicitationData>(
    slot: Slot,
    ask: UrlElicitationAsk,
    found?: { found: ElicitationRecord | undefined },
    model?: LinkedQuestion['model'],
  ): Promise<ElicitationOutcome<T>> {
    const question = { user: this.deps.questions.userId, position: slot.index, digest: slot.question, ask: this.stamped(ask), model };
    const asked = await this.ending(() => this.deps.linked.round<T>(this.deps.scope, question, found));
    this.took.push(asked.elicitationId);
    this.room.record(slot, { elicitationId: asked.elicitationId }, asked.outcome);
    return asked.outcome;
  }

  /** An approval's page as the requester is shown it: its message, and where it stands ("1 of 2 approvals: ..."). */
  private async progressOf(page: Page, ask: UrlElicitationAsk): Promise<Page> {
    if (ask.kind !== 'approval') return page;
    const progress = () => this.deps.records.approvalMessage(page.elicitationId, ask.message);
    return { ...page, message: await progress(), progress };
  }

  /** `ask` with what asked in its metadata (`askedBy`: the tool, and the client where known), for the inbox and the notifications; an app's own kept. */
  private stamped(ask: UrlElicitationAsk): UrlElicitationAsk {
    const { asking, client } = this.deps.scope;
    if (!asking || (ask.metadata && ASKED_BY_METADATA in ask.metadata)) return ask;
    // A passkey binds the call's tool and arguments unless the tool named another action.
    const action = ask.presence === 'passkey' && ask.action === undefined && { action: { tool: asking.name, args: asking.args } };
    return { ...ask, ...action, metadata: { ...ask.metadata, [ASKED_BY_METADATA]: { tool: asking.name, ...(client && { client }) } } };
  }

  /**
   * Runs a step that may end the call before the tool ran (the link, -32042): the answers this call took from
   * earlier calls are handed on to the tool's next call, which continues where this one stopped.
   */
  private async ending<R>(step: () => Promise<R>): Promise<R> {
    try {
      return await step();
    } catch (error) {
      if (isPendingQuestionSignal(error) || this.room.endsCall(error)) {
        if (this.took.length > 0) await this.deps.linked.handOver(this.took);
        await this.deps.callEnds?.();
      }
      throw error;
    }
  }
}
