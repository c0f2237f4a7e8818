import type { ElicitationService } from '../elicitation.service.js';
import type { ElicitationData, ElicitationOutcome, WaitOutcome } from '../elicitation.types.js';
import { ElicitationIdentityError } from '../errors/elicitation-identity.error.js';
import { ElicitationNotAnsweredError } from '../errors/elicitation-not-answered.error.js';
import { ElicitationValidationError, type FieldIssue } from '../errors/elicitation-validation.error.js';
import type { FormDefinition } from '../forms/define-form.js';
import type { FormSchema } from '../forms/form-schema.js';
import { InputRequiredSignal, type InputRequest } from './input-required.js';
import { digestOf, type AnsweredQuestion, type FormResponse, type PendingQuestion, type RequestState } from './request-state.codec.js';
import type { RequestStates } from './request-states.js';
import {
  formRoute,
  hostedFormResult,
  reaskMessage,
  supportsMode,
  toFormDefinition,
  type DeclaredElicitation,
  type ElicitationElicitOptions,
  type ElicitResult,
  type ToolElicitation,
  type UrlElicitationAsk,
} from './tool-elicitation.js';

/** What a 2026-07-28 tool call brings: everything comes from this one request. */
export interface InputRequiredCall {
  /** The verified user, or `undefined` when the request carries none. */
  user: string | undefined;
  /** `_meta["io.modelcontextprotocol/clientCapabilities"].elicitation` of this request. */
  elicitation: DeclaredElicitation;
  /** `params.inputResponses` (bare results keyed by the keys this server chose). */
  inputResponses: Record<string, unknown> | undefined;
  /** The verified state of this retry, if any. */
  state: RequestState | undefined;
  method: string;
  name: string;
  args: unknown;
  signal?: AbortSignal;
}

/** What an input-required elicitation needs from the module. */
export interface InputRequiredDeps {
  service: ElicitationService;
  states: Pick<RequestStates, 'mint'>;
  pendingRetryWaitMs: number;
  maxFormAttempts: number;
}

/** A question's place in this run: answered earlier, the one the client is answering now, or new. */
interface Slot {
  key: string;
  question: string;
  answered?: AnsweredQuestion;
  pending?: PendingQuestion;
}

/** A placeholder page URL for a request that is never sent (the client did not declare URL mode). */
const UNDECLARED_ID = '00000000-0000-4000-8000-000000000000';

/**
 * Elicitation inside one tool call by the input-required mechanism (protocol 2026-07-28, multi
 * round-trip requests). There is no server push: a question the client has not answered yet stops the
 * tool with an `input_required` result (an `InputRequiredSignal` the tool wrapper returns) carrying a
 * sealed `requestState`; the client asks the user and retries the same call, and the tool runs again from
 * the top. Questions answered in earlier rounds are answered from the state (in order, checked against
 * what is asked), so tool code reads as if it awaited each answer.
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
    if (formRoute(definition, (mode) => this.isSupported(mode), options.fallback) === 'hosted') {
      return hostedFormResult<T>(await this.urlRound<Record<string, unknown>>({ kind: 'form', form: definition, message }, options.key));
    }

    const request: InputRequest = { method: 'elicitation/create', params: { mode: 'form', message, requestedSchema: definition.schema } };
    const slot = this.next(digestOf({ form: message, schema: definition.schema }), options.key);
    if (slot.answered?.response) return slot.answered.response as ElicitResult<T>;
    // Not declared: never embedded, nothing created. The SDK answers the embedded request with -32021.
    if (!this.isSupported('form')) throw new InputRequiredSignal({ resultType: 'input_required', inputRequests: { [slot.key]: request } });

    const pending = slot.pending ?? { key: slot.key, question: slot.question };
    // A first call that already carries an answer under this question's key (no state yet: the client
    // pre-filled it) counts too; it is validated like any other, and a form answer holds nothing the client
    // could not give when asked. With a state, only the answer to the question it records counts.
    if (slot.pending || (!this.call.state && this.call.inputResponses?.[slot.key] !== undefined)) {
      const answer = this.formAnswer(this.call.inputResponses?.[slot.key], definition, pending);
      if ('issues' in answer) {
        // Invalid content: the same question again, naming the fields to correct.
        const reask: InputRequest = { ...request, params: { ...request.params, message: reaskMessage(message, answer.issues) } };
        return this.suspend({ [slot.key]: reask }, pending);
      }
      if (answer.result) {
        this.answered.push({ key: slot.key, question: slot.question, response: answer.result as FormResponse });
        return answer.result;
      }
    }
    return this.suspend({ [slot.key]: request }, pending);
  }

  async requireAnswer<T extends ElicitationData = ElicitationData>(ask: UrlElicitationAsk): Promise<T> {
    const type = ask.type ?? ask.kind;
    const outcome = await this.urlRound<T>({ ...ask, type }, undefined, async () => {
      const found = await this.deps.service.findByUserAndType<T>(this.userId, type);
      return found?.elicitationId;
    });
    if (outcome.status === 'completed') return outcome.data;
    throw new ElicitationNotAnsweredError(outcome.status);
  }

  requestUrl<T extends ElicitationData = ElicitationData>(ask: UrlElicitationAsk & { timeoutMs?: number }): Promise<WaitOutcome<T>> {
    const { timeoutMs: _ignored, ...rest } = ask;
    return this.urlRound<T>(rest);
  }

  /**
   * One URL-mode question: answered in an earlier round (read back from the store), pending (decline or
   * cancel from the client ends it; otherwise wait a bounded time for the page, then ask the client to
   * retry), or new (create the elicitation and ask the client to open its page).
   */
  private async urlRound<T extends ElicitationData>(
    ask: UrlElicitationAsk,
    key?: string,
    existing?: () => Promise<string | undefined>,
  ): Promise<ElicitationOutcome<T>> {
    const slot = this.next(digestOf({ url: ask.kind, type: ask.type ?? ask.kind, message: ask.message }), key);
    const service = this.deps.service;
    if (slot.answered?.elicitationId) return this.finalOutcome<T>(slot.answered.elicitationId);

    if (slot.pending?.elicitationId) {
      const id = slot.pending.elicitationId;
      const response = this.call.inputResponses?.[slot.key] as { action?: unknown } | undefined;
      if (response?.action === 'decline') await service.decline(id);
      else if (response?.action === 'cancel') await service.cancel(id);
      let outcome = await service.getResult<T>(id);
      if (outcome?.status === 'pending') {
        const waited = await service.waitForCompletion<T>(id, { timeoutMs: this.deps.pendingRetryWaitMs, signal: this.call.signal });
        if (waited.status === 'timeout') return this.suspend(undefined, slot.pending);
        outcome = waited;
      }
      this.answered.push({ key: slot.key, question: slot.question, elicitationId: id });
      return outcome ?? { status: 'expired' };
    }

    const found = await existing?.();
    if (found) {
      this.answered.push({ key: slot.key, question: slot.question, elicitationId: found });
      return this.finalOutcome<T>(found);
    }
    const user = this.userId;
    const request = (url: string): InputRequest => ({ method: 'elicitation/create', params: { mode: 'url', message: ask.message, url } });
    // Not declared: never embedded, nothing created. The SDK answers the embedded request with -32021.
    if (!this.isSupported('url')) {
      throw new InputRequiredSignal({
        resultType: 'input_required',
        inputRequests: { [slot.key]: request(service.urlFor(UNDECLARED_ID, ask.kind)) },
      });
    }
    const created = await service.createUrlElicitation({ ...ask, userId: user });
    return this.suspend(
      { [slot.key]: request(created.url) },
      { key: slot.key, question: slot.question, elicitationId: created.elicitationId },
    );
  }

  /** How a finished URL question ended; the answer is read from the store, never from the state. */
  private async finalOutcome<T extends ElicitationData>(id: string): Promise<ElicitationOutcome<T>> {
    const outcome = await this.deps.service.getResult<T>(id);
    return !outcome || outcome.status === 'pending' ? { status: 'expired' } : outcome;
  }

  /**
   * A pending form question's answer: the validated result, `{}` for no usable answer (ask again as
   * asked), or the issues of invalid content (ask again naming them; the `limits.maxFormAttempts`-th throws).
   */
  private formAnswer<T>(
    response: unknown,
    definition: FormDefinition<T>,
    pending: PendingQuestion,
  ): { result?: ElicitResult<T> } | { issues: FieldIssue[] } {
    if (!response || typeof response !== 'object' || Array.isArray(response)) return {};
    const { action, content } = response as { action?: unknown; content?: unknown };
    if (action === 'decline') return { result: { action: 'decline' } };
    if (action === 'cancel') return { result: { action: 'cancel' } };
    if (action !== 'accept') return {};
    const checked = definition.validate(content);
    if (checked.ok) return { result: { action: 'accept', content: checked.value } };
    pending.invalidAnswers = (pending.invalidAnswers ?? 0) + 1;
    if (pending.invalidAnswers >= this.deps.maxFormAttempts) throw new ElicitationValidationError(checked.issues);
    return { issues: checked.issues };
  }

  /** Finds this question's place: answered earlier, the one the client is answering now, or new. */
  private next(question: string, key: string | undefined): Slot {
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
      return { key: earlier.key, question, answered: earlier };
    }
    const pending = state?.pending;
    if (pending && index === state.answered.length && pending.question === question) {
      return { key: pending.key, question, pending: { ...pending } };
    }
    return { key: key ?? `elicitation-${index + 1}`, question };
  }

  /** Stops the tool: `input_required` with these requests (none: "retry later") and a fresh sealed state. */
  private suspend(inputRequests: Record<string, InputRequest> | undefined, pending: PendingQuestion): never {
    const requestState = this.deps.states.mint(this.call, this.answered, pending);
    throw new InputRequiredSignal({ resultType: 'input_required', ...(inputRequests && { inputRequests }), requestState });
  }
}
