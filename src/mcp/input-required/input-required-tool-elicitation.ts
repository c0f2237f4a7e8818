import type { ElicitationService } from '../../lifecycle/elicitation.service.js';
import type { ElicitationRecords } from '../../lifecycle/elicitation-records.js';
import type { ElicitationData, ElicitationOutcome, ElicitationRecord } from '../../core/elicitation.types.js';
import type { FormDefinition } from '../../forms/define-form.js';
import type { FormSchema } from '../../forms/form-schema.js';
import { descend, type FallbackRung, type PageFallbackRung } from '../../options/client-ladder.js';
import { answerOf, CallQuestions } from '../questions/call-questions.js';
import type { MechanismTelemetry } from '../questions/form-telemetry.js';
import { InputRequiredSignal, type InputRequest } from './input-required.js';
import { InputRequiredReplies } from './input-required-replies.js';
import { bridgeRequest, emptyFormRequest, formRequests, UNDECLARED_ID, urlRequest, type Page } from './input-required-requests.js';
import { InputRequiredRounds, type Slot } from './input-required-rounds.js';
import { mayStartTask, TaskStartSignal } from '../tasks/task-start.js';
import type { CallScope, LinkedQuestions } from '../questions/linked-questions.js';
import type { RequestState } from './request-state.codec.js';
import type { RequestStates } from './request-states.js';
import {
  assertModelAllowed,
  formQuestionDigest,
  formUnreachable,
  hostedFormAsk,
  hostedFormResult,
  pageQuestionDigest,
  toFormDefinition,
  type DeclaredElicitation,
  type ElicitationElicitOptions,
  type ElicitResult,
  type PageOutcome,
  type ToolElicitation,
  type UrlElicitationAsk,
} from '../tool-elicitation.js';
import { typeOfAsk } from '../../lifecycle/create-input.validation.js';

/** What a 2026-07-28 tool call brings: everything comes from this one request. */
export interface InputRequiredCall {
  /** The verified user, or `undefined` when the request carries none. */
  user: string | undefined;
  /** The elicitation capability to act on: the request's `_meta` declaration, after the module's `clientPolicy`. */
  elicitation: DeclaredElicitation;
  /** `params.inputResponses` (bare results keyed by the keys this server chose). */
  inputResponses: Record<string, unknown> | undefined;
  /** The verified state of this retry, if any. */
  state: RequestState | undefined;
  method: string;
  name: string;
  args: unknown;
  /** The call's signal: the client cancelled it, or hung up. */
  signal?: AbortSignal;
  /** The call is about to wait on a person: takes its place among the calls in flight (throws past the cap). */
  waiting?: () => void;
  /** The link and model rungs' view of the call. */
  scope: CallScope;
}

/** What an input-required elicitation needs from the module. */
export interface InputRequiredDeps {
  service: ElicitationService;
  records: ElicitationRecords;
  states: Pick<RequestStates, 'mint'>;
  linked: Pick<LinkedQuestions, 'round' | 'askKey' | 'earlier' | 'claim' | 'outcomeOf' | 'urlOf' | 'viaOf'>;
  pendingRetryWaitMs: number;
  /** Retries of an unanswered page question before the call leaves for the link rung. */
  pendingRetryRounds: number;
  maxFormAttempts: number;
  /** The module's ladders (`fallback`). */
  fallback: { page: readonly PageFallbackRung[]; form: readonly FallbackRung[] };
  /** A decline sooner than this (ms) after the question went out means "this client cannot ask"; 0: off. */
  instantDeclineMs: number;
  /** Form-mode questions and fallbacks, for the metrics. */
  telemetry: MechanismTelemetry;
}

/**
 * Elicitation inside one tool call by the input-required mechanism (protocol 2026-07-28, multi
 * round-trip requests). There is no server push: a question the client has not answered yet stops the
 * tool with an `input_required` result (an `InputRequiredSignal` the tool wrapper returns) carrying a
 * sealed `requestState`; the client asks the user and retries the same call, and the tool runs again from
 * the top. Questions answered in earlier rounds are answered from the state (in order, checked against
 * what is asked), so tool code reads as if it awaited each answer. Each question descends the fallback
 * ladder (see `client-ladder`); a question waiting on the client continues on the rung it was asked on.
 */
export class InputRequiredElicitation implements ToolElicitation {
  readonly era = '2026-07-28' as const;
  /** The rules this call's questions share with the other era's. */
  private readonly questions: CallQuestions;
  private readonly rounds: InputRequiredRounds;
  private readonly replies: InputRequiredReplies;

  constructor(
    private readonly deps: InputRequiredDeps,
    private readonly call: InputRequiredCall,
  ) {
    const { service, records, linked, telemetry, instantDeclineMs, maxFormAttempts, pendingRetryWaitMs, pendingRetryRounds } = deps;
    const { elicitation, scope, inputResponses, signal, waiting = () => undefined } = call;
    this.questions = new CallQuestions({ service, records, linked, telemetry, user: () => call.user, elicitation, scope });
    this.rounds = new InputRequiredRounds({ states: deps.states, call, state: call.state });
    this.replies = new InputRequiredReplies({
      service,
      rounds: this.rounds,
      telemetry,
      inputResponses,
      signal,
      waiting,
      linked,
      instantDeclineMs,
      maxFormAttempts,
      pendingRetryWaitMs,
      pendingRetryRounds,
    });
  }

  get userId(): string {
    return this.questions.userId;
  }

  isSupported(mode: 'form' | 'url'): boolean {
    return this.questions.isSupported(mode);
  }

  /** In a call that may become a task: the answers of the rounds so far go to the new task. Otherwise the call goes on. */
  continueAsTask(): Promise<void> {
    return mayStartTask() ? Promise.reject(new TaskStartSignal(this.rounds.answers())) : Promise.resolve();
  }

  async elicit<T>(message: string, form: FormDefinition<T> | FormSchema, options: ElicitationElicitOptions = {}): Promise<ElicitResult<T>> {
    const definition = toFormDefinition(form);
    assertModelAllowed(definition, options.fallback);
    const slot = this.rounds.next(formQuestionDigest(message, definition), options.key);
    if (slot.answered?.response) return slot.answered.response as ElicitResult<T>;
    const list = options.fallback ?? this.deps.fallback.form;
    const hosted = (rest: readonly FallbackRung[]) => hostedFormAsk(message, definition, rest);
    // Asked on the hosted page (earlier, or now): the page question's ladder takes it from here.
    if (slot.answered?.elicitationId || slot.pending?.elicitationId) {
      return hostedFormResult<T>(definition, await this.pageQuestion(hosted(list), slot));
    }

    // What an earlier call of this tool asked here, looked up once for the rungs below (they all end the call).
    let known: { found: ElicitationRecord | undefined } | undefined;
    if (!slot.pending) {
      // An earlier call of this tool asked this on a page and the person has finished: that is the answer.
      const earlier = await this.questions.earlier(slot.index, slot.question);
      if (earlier && earlier.status !== 'pending')
        return {
          ...hostedFormResult<T>(definition, await this.taken<Record<string, unknown>>(slot, earlier)),
          via: this.deps.linked.viaOf(earlier),
        };
      known = { found: earlier };
    }
    let canAsk = true;
    if (slot.pending || (!this.call.state && this.call.inputResponses?.[slot.key] !== undefined)) {
      const step = this.replies.formAnswer(slot, definition, slot.pending ?? { key: slot.key, question: slot.question }, message);
      if (step === 'cannot-ask') canAsk = false;
      else if (step !== 'next') return step.done;
    }
    const fit = this.questions.fit(true, definition.secretFields.length > 0);
    const from = canAsk ? list : list.slice(list.indexOf('form') + 1);
    const result = await descend<ElicitResult<T>>(
      this.questions.ladder(from, !canAsk),
      fit,
      async (rung) => {
        // Asked as asked (again, when the retry carried no usable answer: the count of invalid answers kept).
        const asked = slot.pending ?? { key: slot.key, question: slot.question };
        if (rung === 'form') {
          // A new form-mode question (not the same one asked again): one created, finished by the answer.
          if (!slot.pending) this.deps.telemetry.created('form', 'form');
          return this.rounds.suspend(formRequests(slot.key, message, definition), asked);
        }
        if (rung === 'model') {
          const model = { requestedSchema: definition.schema as unknown as Record<string, unknown> };
          const linked = await this.deps.linked.round(this.call.scope, { ...this.linkQuestion(slot, hosted([])), model }, known);
          this.rounds.answer(slot, { elicitationId: linked.elicitationId });
          return { done: { ...hostedFormResult<T>(definition, linked.outcome), via: 'model' } };
        }
        const rest = from.slice(from.indexOf(rung));
        return { done: hostedFormResult<T>(definition, await this.pageQuestion(hosted(rest), slot, undefined, canAsk, known)) };
      },
      canAsk,
    );
    if (!result && definition.secretFields.length > 0) throw formUnreachable(definition);
    if (!result) this.unsupported(slot, 'form', message);
    return result;
  }

  async requireAnswer<T extends ElicitationData = ElicitationData>(ask: UrlElicitationAsk): Promise<T> {
    const type = typeOfAsk(ask);
    const withType = { ...ask, type };
    // The answer-reuse rule (`CallQuestions.keptAnswer`, the same in both eras): a kept answer is marked used.
    const outcome = await this.pageQuestion<T>(withType, this.rounds.next(pageQuestionDigest(withType)), async () => {
      const found = await this.questions.keptAnswer<T>(withType);
      return found?.elicitationId;
    });
    return answerOf(outcome);
  }

  requestUrl<T extends ElicitationData = ElicitationData>(ask: UrlElicitationAsk & { timeoutMs?: number }): Promise<PageOutcome<T>> {
    const { timeoutMs: _ignored, ...rest } = ask;
    return this.pageQuestion<T>(rest, this.rounds.next(pageQuestionDigest(rest)));
  }

  /**
   * One question answered on a page: answered in an earlier round (read back from the store), waiting on
   * the client (it continues on the rung it was asked on: `url` or `form-bridge`), or new (down the ladder).
   * `known`: what the caller's lookup of an earlier call's question found (not looked up again).
   */
  private async pageQuestion<T extends ElicitationData>(
    ask: UrlElicitationAsk,
    slot: Slot,
    existing?: () => Promise<string | undefined>,
    canAskFirst = true,
    known?: { found: ElicitationRecord | undefined },
  ): Promise<PageOutcome<T>> {
    // Answered in an earlier round: the answer is read from the store, never from the state.
    if (slot.answered?.elicitationId) return this.deps.linked.outcomeOf<T>({ id: slot.answered.elicitationId });
    let list: readonly FallbackRung[] = ask.fallback ?? this.deps.fallback.page;
    let canAsk = canAskFirst;
    let below = false;
    let page: Page | undefined;
    let lookedUp: { found: ElicitationRecord | undefined } | undefined;
    const pending = slot.pending;
    if (pending?.elicitationId) {
      const rung: PageFallbackRung = pending.bridge ? 'form-bridge' : 'url';
      page = { id: pending.elicitationId, url: this.deps.records.urlFor(pending.elicitationId, ask.kind), message: ask.message };
      const step = await this.replies.resume<T>(slot, pending, page, rung, list.includes('link'));
      if (step === 'exhausted') {
        // Retried as often as a client's round budget allows: the call ends with the link, the question stays open.
        list = ['link'];
        lookedUp = { found: await this.questions.earlier(slot.index, slot.question) };
        page = undefined;
      }
      if (step === 'cannot-ask') canAsk = false;
      else if (step !== 'next' && step !== 'spent' && step !== 'exhausted') return { ...step.done, via: rung };
      // Spent: another call claimed the page's answer, so this one asks anew on the same rung, on a page of its own.
      if (step === 'spent') page = undefined;
      if (step !== 'exhausted') list = list.slice(list.indexOf(rung) + (step === 'spent' ? 0 : 1));
      below = true;
    } else {
      const found = await existing?.();
      if (found) return this.taken<T>(slot, { id: found });
      // An earlier call of this tool asked this on a page: its outcome when finished, else its page again.
      const earlier = known ? known.found : await this.questions.earlier(slot.index, slot.question);
      if (earlier && earlier.status !== 'pending') return { ...(await this.taken<T>(slot, earlier)), via: 'link' };
      if (earlier) page = { id: earlier.id, url: this.deps.linked.urlOf(earlier), message: ask.message };
      // Every other rung ends the call, so the link rung, when it is reached, takes this lookup as it is.
      lookedUp = { found: earlier };
    }

    const outcome = await descend<PageOutcome<T>>(
      this.questions.ladder(list, below),
      this.questions.fit(false, false),
      async (rung) => {
        if (rung === 'link') {
          const asked = await this.deps.linked.round<T>(this.call.scope, this.linkQuestion(slot, ask), lookedUp);
          this.rounds.answer(slot, { elicitationId: asked.elicitationId });
          return { done: { ...asked.outcome, via: 'link' } };
        }
        page ??= await this.createPage(ask, slot);
        const base = { key: slot.key, question: slot.question, elicitationId: page.id };
        if (rung === 'url') return this.rounds.suspend({ [slot.key]: urlRequest(page.message, page.url) }, base);
        return this.rounds.suspend({ [slot.key]: bridgeRequest(page, false) }, { ...base, bridge: true });
      },
      canAsk,
    );
    if (!outcome) this.unsupported(slot, 'url', ask.message, ask.kind);
    return outcome;
  }

  /** A finished question (an earlier call's, or a kept answer), taken as this slot's answer: used by this call. */
  private taken<T extends ElicitationData>(slot: Slot, record: Pick<ElicitationRecord, 'id'>): Promise<ElicitationOutcome<T>> {
    this.rounds.answer(slot, { elicitationId: record.id });
    return this.deps.linked.outcomeOf<T>(record);
  }

  /** A page for this question, keyed for the link rung. */
  private async createPage(ask: UrlElicitationAsk, slot: Slot): Promise<Page> {
    const created = await this.questions.createPage(ask, slot.index, slot.question);
    return { id: created.elicitationId, url: created.url, message: ask.message };
  }

  private linkQuestion(slot: Slot, ask: UrlElicitationAsk) {
    return { user: this.userId, position: slot.index, digest: slot.question, ask };
  }

  /**
   * The `error` rung: the mode the question needed, embedded without a state, so the SDK answers -32021
   * (missing client capability) naming it. Nothing is created.
   */
  private unsupported(slot: Slot, mode: 'form' | 'url', message: string, kind: UrlElicitationAsk['kind'] = 'form'): never {
    const request: InputRequest =
      mode === 'url' ? urlRequest(message, this.deps.records.urlFor(UNDECLARED_ID, kind)) : emptyFormRequest(message);
    throw new InputRequiredSignal({ resultType: 'input_required', inputRequests: { [slot.key]: request } });
  }
}
