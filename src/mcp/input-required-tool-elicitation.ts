import type { ElicitationService } from '../elicitation.service.js';
import type { ElicitationData, ElicitationOutcome, ElicitationRecord, FinalStatus } from '../elicitation.types.js';
import { ElicitationIdentityError } from '../errors/elicitation-identity.error.js';
import { ElicitationNotAnsweredError } from '../errors/elicitation-not-answered.error.js';
import { ElicitationValidationError, type FieldIssue } from '../errors/elicitation-validation.error.js';
import type { FormDefinition } from '../forms/define-form.js';
import type { FormSchema } from '../forms/form-schema.js';
import {
  BRIDGE_SCHEMA,
  bridgeMessage,
  descend,
  fitFor,
  type FallbackRung,
  type LadderStep,
  type ObservedLadder,
  type PageFallbackRung,
} from './client-ladder.js';
import { statusOfAction, type MechanismTelemetry } from './form-telemetry.js';
import { InputRequiredSignal, type InputRequest } from './input-required.js';
import type { CallScope, LinkedQuestions } from './linked-questions.js';
import type { AnsweredQuestion, FormResponse, PendingQuestion, RequestState } from './request-state.codec.js';
import type { RequestStates } from './request-states.js';
import {
  assertModelAllowed,
  formQuestionDigest,
  formUnreachable,
  hostedFormAsk,
  hostedFormResult,
  pageQuestionDigest,
  reaskMessage,
  supportsMode,
  toFormDefinition,
  type DeclaredElicitation,
  type ElicitationElicitOptions,
  type ElicitResult,
  type PageOutcome,
  type ToolElicitation,
  type UrlElicitationAsk,
} from './tool-elicitation.js';
import { typeOfAsk } from '../service/create-input.validation.js';

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
  signal?: AbortSignal;
  /** The link and model rungs' view of the call. */
  scope: CallScope;
}

/** What an input-required elicitation needs from the module. */
export interface InputRequiredDeps {
  service: ElicitationService;
  states: Pick<RequestStates, 'mint'>;
  linked: Pick<LinkedQuestions, 'round' | 'askKey' | 'earlier' | 'outcomeOf' | 'urlOf' | 'viaOf'>;
  pendingRetryWaitMs: number;
  maxFormAttempts: number;
  /** The module's ladders (`fallback`). */
  fallback: { page: readonly PageFallbackRung[]; form: readonly FallbackRung[] };
  /** A decline sooner than this (ms) after the question went out means "this client cannot ask"; 0: off. */
  instantDeclineMs: number;
  /** Form-mode questions and fallbacks, for the metrics. */
  telemetry: MechanismTelemetry;
}

/** A question's place in this run: answered earlier, the one the client is answering now, or new. */
interface Slot {
  /** Its position in the call (0 for the first question). */
  index: number;
  key: string;
  question: string;
  answered?: AnsweredQuestion;
  pending?: PendingQuestion;
}

/** A page this call asks on. */
interface Page {
  id: string;
  url: string;
  message: string;
}

/** A placeholder page URL for a request that is never sent (the client did not declare URL mode). */
const UNDECLARED_ID = '00000000-0000-4000-8000-000000000000';

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
  /** How many questions this run has asked so far. */
  private asked = 0;
  /** The answered questions to carry into the next state. */
  private readonly answered: AnsweredQuestion[];

  constructor(
    private readonly deps: InputRequiredDeps,
    private readonly call: InputRequiredCall,
  ) {
    this.answered = [...(call.state?.answered ?? [])];
  }

  get userId(): string {
    if (!this.call.user) throw new ElicitationIdentityError();
    return this.call.user;
  }

  isSupported(mode: 'form' | 'url'): boolean {
    return supportsMode(this.call.elicitation, mode);
  }

  async elicit<T>(message: string, form: FormDefinition<T> | FormSchema, options: ElicitationElicitOptions = {}): Promise<ElicitResult<T>> {
    const definition = toFormDefinition(form);
    assertModelAllowed(definition, options.fallback);
    const slot = this.next(formQuestionDigest(message, definition), options.key);
    if (slot.answered?.response) return slot.answered.response as ElicitResult<T>;
    const list = options.fallback ?? this.deps.fallback.form;
    const hosted = (rest: readonly FallbackRung[]) => hostedFormAsk(message, definition, rest);
    // Asked on the hosted page (earlier, or now): the page question's ladder takes it from here.
    if (slot.answered?.elicitationId || slot.pending?.elicitationId) {
      return hostedFormResult<T>(definition, await this.pageQuestion(hosted(list), slot));
    }

    if (!slot.pending) {
      // An earlier call of this tool asked this on a page and the person has finished: that is the answer.
      const earlier = await this.earlier(slot);
      if (earlier && earlier.status !== 'pending')
        return {
          ...hostedFormResult<T>(definition, await this.taken<Record<string, unknown>>(slot, earlier)),
          via: this.deps.linked.viaOf(earlier),
        };
    }
    let canAsk = true;
    if (slot.pending || (!this.call.state && this.call.inputResponses?.[slot.key] !== undefined)) {
      const step = this.formAnswer(slot, definition, slot.pending ?? { key: slot.key, question: slot.question }, message);
      if (step === 'cannot-ask') canAsk = false;
      else if (step !== 'next') return step.done;
    }
    const fit = this.fit(true, definition.secretFields.length > 0);
    const from = canAsk ? list : list.slice(list.indexOf('form') + 1);
    const result = await descend<ElicitResult<T>>(
      this.ladder(from, !canAsk),
      fit,
      async (rung) => {
        // Asked as asked (again, when the retry carried no usable answer: the count of invalid answers kept).
        const asked = slot.pending ?? { key: slot.key, question: slot.question };
        if (rung === 'form') {
          // A new form-mode question (not the same one asked again): one created, finished by the answer.
          if (!slot.pending) this.deps.telemetry.created('form', 'form');
          return this.suspend(this.formRequests(slot.key, message, definition), asked);
        }
        if (rung === 'model') {
          const model = { requestedSchema: definition.schema as unknown as Record<string, unknown> };
          const linked = await this.deps.linked.round(this.call.scope, { ...this.linkQuestion(slot, hosted([])), model });
          this.answered.push({ key: slot.key, question: slot.question, elicitationId: linked.elicitationId });
          return { done: { ...hostedFormResult<T>(definition, linked.outcome), via: 'model' } };
        }
        const rest = from.slice(from.indexOf(rung));
        return { done: hostedFormResult<T>(definition, await this.pageQuestion(hosted(rest), slot, undefined, canAsk)) };
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
    const outcome = await this.pageQuestion<T>(withType, this.next(pageQuestionDigest(withType)), async () => {
      const found = await this.deps.service.keptAnswer<T>(this.userId, withType);
      return found?.elicitationId;
    });
    if (outcome.status === 'completed') return outcome.data;
    throw new ElicitationNotAnsweredError(outcome.status === 'timeout' ? 'expired' : outcome.status);
  }

  requestUrl<T extends ElicitationData = ElicitationData>(ask: UrlElicitationAsk & { timeoutMs?: number }): Promise<PageOutcome<T>> {
    const { timeoutMs: _ignored, ...rest } = ask;
    return this.pageQuestion<T>(rest, this.next(pageQuestionDigest(rest)));
  }

  /**
   * One question answered on a page: answered in an earlier round (read back from the store), waiting on
   * the client (it continues on the rung it was asked on: `url` or `form-bridge`), or new (down the ladder).
   */
  private async pageQuestion<T extends ElicitationData>(
    ask: UrlElicitationAsk,
    slot: Slot,
    existing?: () => Promise<string | undefined>,
    canAskFirst = true,
  ): Promise<PageOutcome<T>> {
    if (slot.answered?.elicitationId) return this.finalOutcome<T>(slot.answered.elicitationId);
    let list: readonly FallbackRung[] = ask.fallback ?? this.deps.fallback.page;
    let canAsk = canAskFirst;
    let below = false;
    let page: Page | undefined;
    const pending = slot.pending;
    if (pending?.elicitationId) {
      const rung: PageFallbackRung = pending.bridge ? 'form-bridge' : 'url';
      page = { id: pending.elicitationId, url: this.deps.service.urlFor(pending.elicitationId, ask.kind), message: ask.message };
      const step = await this.resume<T>(slot, pending, page, rung);
      if (step === 'cannot-ask') canAsk = false;
      else if (step !== 'next') return { ...step.done, via: rung };
      list = list.slice(list.indexOf(rung) + 1);
      below = true;
    } else {
      const found = await existing?.();
      if (found) {
        this.answered.push({ key: slot.key, question: slot.question, elicitationId: found });
        return this.finalOutcome<T>(found);
      }
      // An earlier call of this tool asked this on a page: its outcome when finished, else its page again.
      const earlier = await this.earlier(slot);
      if (earlier && earlier.status !== 'pending') return { ...(await this.taken<T>(slot, earlier)), via: 'link' };
      if (earlier) page = { id: earlier.id, url: this.deps.linked.urlOf(earlier), message: ask.message };
    }

    const outcome = await descend<PageOutcome<T>>(
      this.ladder(list, below),
      this.fit(false, false),
      async (rung) => {
        if (rung === 'link') {
          const asked = await this.deps.linked.round<T>(this.call.scope, this.linkQuestion(slot, ask));
          this.answered.push({ key: slot.key, question: slot.question, elicitationId: asked.elicitationId });
          return { done: { ...asked.outcome, via: 'link' } };
        }
        page ??= await this.createPage(ask, slot);
        const base = { key: slot.key, question: slot.question, elicitationId: page.id };
        if (rung === 'url') return this.suspend({ [slot.key]: urlRequest(page.message, page.url) }, base);
        return this.suspend({ [slot.key]: bridgeRequest(page, false) }, { ...base, bridge: true });
      },
      canAsk,
    );
    if (!outcome) this.unsupported(slot, 'url', ask.message, ask.kind);
    return outcome;
  }

  /**
   * The client's retry of a page question it was asked on `rung`. Decline or cancel ends the elicitation
   * (a decline sooner than `instantDeclineMs`: the client cannot ask). Otherwise the page's answer, waiting
   * a bounded time for it; still none → `url`: retry later; `form-bridge`: asked again, up to
   * `limits.maxFormAttempts` "finished" answers, then the next rung.
   */
  private async resume<T extends ElicitationData>(
    slot: Slot,
    pending: PendingQuestion,
    page: Page,
    rung: PageFallbackRung,
  ): Promise<LadderStep<ElicitationOutcome<T>>> {
    const service = this.deps.service;
    const response = this.call.inputResponses?.[slot.key] as { action?: unknown } | undefined;
    if (response?.action === 'decline' && this.instant(pending)) return 'cannot-ask';
    if (response?.action === 'decline') await service.decline(page.id);
    else if (response?.action === 'cancel') await service.cancel(page.id);
    let outcome = await service.getResult<T>(page.id);
    if (outcome?.status === 'pending') {
      const waited = await service.waitForCompletion<T>(page.id, { timeoutMs: this.deps.pendingRetryWaitMs, signal: this.call.signal });
      if (waited.status === 'timeout') {
        if (rung === 'url') return this.suspend(undefined, pending);
        if (response?.action !== 'accept') return this.suspend({ [slot.key]: bridgeRequest(page, false) }, pending);
        const unconfirmed = (pending.invalidAnswers ?? 0) + 1;
        if (unconfirmed >= this.deps.maxFormAttempts) return 'next';
        return this.suspend({ [slot.key]: bridgeRequest(page, true) }, { ...pending, invalidAnswers: unconfirmed });
      }
      outcome = waited;
    }
    this.answered.push({ key: slot.key, question: slot.question, elicitationId: page.id });
    this.call.scope.used.add(page.id);
    return { done: outcome ?? { status: 'expired' } };
  }

  /** The question an earlier call of this tool asked at this position, not yet used (none without a user). */
  private earlier(slot: Slot): Promise<ElicitationRecord | undefined> {
    const user = this.call.user;
    return user
      ? this.deps.linked.earlier(this.call.scope, { user, position: slot.index, digest: slot.question })
      : Promise.resolve(undefined);
  }

  /** An earlier call's finished question, taken as this slot's answer. */
  private taken<T extends ElicitationData>(slot: Slot, record: ElicitationRecord): Promise<ElicitationOutcome<T>> {
    this.answered.push({ key: slot.key, question: slot.question, elicitationId: record.id });
    return this.deps.linked.outcomeOf<T>(this.call.scope, record);
  }

  /** How a finished page question ended; the answer is read from the store, never from the state. */
  private async finalOutcome<T extends ElicitationData>(id: string): Promise<ElicitationOutcome<T>> {
    this.call.scope.used.add(id);
    const outcome = await this.deps.service.getResult<T>(id);
    return !outcome || outcome.status === 'pending' ? { status: 'expired' } : outcome;
  }

  /**
   * The client's answer to a form question: the validated result; `next` for no usable answer (ask again as
   * asked); invalid content asks again naming the fields (the `limits.maxFormAttempts`-th throws); a decline
   * sooner than `instantDeclineMs`: the client cannot ask.
   */
  private formAnswer<T>(slot: Slot, definition: FormDefinition<T>, pending: PendingQuestion, message: string): LadderStep<ElicitResult<T>> {
    const response = this.call.inputResponses?.[slot.key];
    if (!response || typeof response !== 'object' || Array.isArray(response)) return 'next';
    const { action, content } = response as { action?: unknown; content?: unknown };
    const done = (result: ElicitResult<T>): LadderStep<ElicitResult<T>> => {
      this.formEnded(pending, statusOfAction(result.action));
      this.answered.push({ key: slot.key, question: slot.question, response: result as FormResponse });
      return { done: result };
    };
    if (action === 'decline' && slot.pending && this.instant(pending)) {
      this.formEnded(pending, 'declined');
      return 'cannot-ask';
    }
    if (action === 'decline') return done({ action: 'decline', via: 'form' });
    if (action === 'cancel') return done({ action: 'cancel', via: 'form' });
    if (action !== 'accept') return 'next';
    const checked = definition.validate(content);
    if (checked.ok) return done({ action: 'accept', content: checked.value, via: 'form' });
    const invalidAnswers = (pending.invalidAnswers ?? 0) + 1;
    if (invalidAnswers >= this.deps.maxFormAttempts) {
      this.formEnded(pending, 'declined');
      throw new ElicitationValidationError(checked.issues);
    }
    // Invalid content: the same question again, naming the fields to correct.
    return this.suspend(this.formRequests(slot.key, message, definition, checked.issues), { ...pending, invalidAnswers });
  }

  private formRequests(
    key: string,
    message: string,
    definition: FormDefinition<unknown>,
    issues: FieldIssue[] = [],
  ): Record<string, InputRequest> {
    return {
      [key]: {
        method: 'elicitation/create',
        params: { mode: 'form', message: reaskMessage(message, issues), requestedSchema: definition.schema },
      },
    };
  }

  /** A page for this question, keyed for the link rung. */
  private async createPage(ask: UrlElicitationAsk, slot: Slot): Promise<Page> {
    const { fallback: _ladder, ...rest } = ask;
    const user = this.userId;
    const askKey = this.call.scope.asking && this.deps.linked.askKey(user, this.call.scope.asking, slot.index, slot.question);
    const created = await this.deps.service.createUrlElicitation({ ...rest, userId: user, askKey });
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
      mode === 'url'
        ? urlRequest(message, this.deps.service.urlFor(UNDECLARED_ID, kind))
        : { method: 'elicitation/create', params: { mode: 'form', message, requestedSchema: { type: 'object', properties: {} } } };
    throw new InputRequiredSignal({ resultType: 'input_required', inputRequests: { [slot.key]: request } });
  }

  /**
   * A form-mode question this server asked ended (`askedAt` in its state: the time it was last sent), counted as
   * one form-mode elicitation finished.
   */
  private formEnded(pending: PendingQuestion, status: FinalStatus): void {
    if (pending.askedAt !== undefined) this.deps.telemetry.finished('form', status, 'form', pending.askedAt, Date.now());
  }

  /** A ladder whose fallbacks are counted (`elicitation.fallback`); `below`: it continues under a rung already tried. */
  private ladder(rungs: readonly FallbackRung[], below = false): ObservedLadder {
    return { rungs, observer: { fellTo: (rung) => this.deps.telemetry.fallback(rung), below } };
  }

  /** Which rungs fit a question of this call. */
  private fit(form: boolean, secret: boolean): (rung: FallbackRung) => boolean {
    return fitFor((mode) => this.isSupported(mode), this.call.scope, form, secret);
  }

  private instant(pending: PendingQuestion): boolean {
    return this.deps.instantDeclineMs > 0 && pending.askedAt !== undefined && Date.now() - pending.askedAt < this.deps.instantDeclineMs;
  }

  /** Finds this question's place: answered earlier, the one the client is answering now, or new. */
  private next(question: string, key?: string): Slot {
    const index = this.asked++;
    const state = this.call.state;
    const earlier = state?.answered[index];
    if (earlier) {
      if (earlier.question !== question) {
        throw new Error(
          'This tool asked a different question on a retry than before (protocol 2026-07-28 runs the tool again from the top: ' +
            'the questions and their order must not depend on anything that changes between retries).',
        );
      }
      return { index, key: earlier.key, question, answered: earlier };
    }
    const pending = state?.pending;
    if (pending && index === state.answered.length && pending.question === question) {
      return { index, key: pending.key, question, pending: { ...pending } };
    }
    return { index, key: key ?? `elicitation-${index + 1}`, question };
  }

  /** Stops the tool: `input_required` with these requests (none: "retry later") and a fresh sealed state. */
  private suspend(inputRequests: Record<string, InputRequest> | undefined, pending: PendingQuestion): never {
    const asked = inputRequests ? { ...pending, askedAt: Date.now() } : pending;
    const requestState = this.deps.states.mint(this.call, this.answered, asked);
    throw new InputRequiredSignal({ resultType: 'input_required', ...(inputRequests && { inputRequests }), requestState });
  }
}

function urlRequest(message: string, url: string): InputRequest {
  return { method: 'elicitation/create', params: { mode: 'url', message, url } };
}

/** The form bridge as an embedded request: the page URL in the message, one "I have finished" box. */
function bridgeRequest(page: Page, stillOpen: boolean): InputRequest {
  return {
    method: 'elicitation/create',
    params: { mode: 'form', message: bridgeMessage(page.message, page.url, stillOpen), requestedSchema: BRIDGE_SCHEMA },
  };
}
