import type { ElicitationService } from '../elicitation.service.js';
import type { ElicitationData, ElicitationOutcome, WaitOutcome } from '../elicitation.types.js';
import { ElicitationIdentityError } from '../errors/elicitation-identity.error.js';
import { ElicitationNotAnsweredError } from '../errors/elicitation-not-answered.error.js';
import { ElicitationValidationError } from '../errors/elicitation-validation.error.js';
import { FormSchemaError } from '../errors/form-schema.error.js';
import { buildForm, isFormDefinition, type FormDefinition } from '../forms/define-form.js';
import type { FormSchema } from '../forms/form-schema.js';
import { InputRequiredSignal, type InputRequest } from './input-required.js';
import { digestOf, RequestStateCodec, type AnsweredAsk, type PendingAsk, type RequestStatePayload } from './request-state.js';
import type { ElicitOptions, ElicitResult, ToolElicitation, UrlElicitationAsk } from './tool-elicitation.js';

/** The elicitation capability a 2026-07-28 request declared in its `_meta` (absent: none). */
export type DeclaredElicitation = { form?: object; url?: object } | undefined;

/** What a 2026-07-28 tool call brings: everything comes from this one request. */
export interface ModernCall {
  /** The verified user, or `undefined` when the request carries none. */
  user: string | undefined;
  /** `_meta["io.modelcontextprotocol/clientCapabilities"].elicitation` of this request. */
  elicitation: DeclaredElicitation;
  /** `params.inputResponses` (bare results keyed by the keys this server chose). */
  inputResponses: Record<string, unknown> | undefined;
  /** The verified state of this retry, if any. */
  state: RequestStatePayload | undefined;
  method: string;
  name: string;
  args: unknown;
  signal?: AbortSignal;
}

/** What the modern elicitation needs from the module. */
export interface ModernDeps {
  service: ElicitationService;
  codec: RequestStateCodec;
  requestStateTtlMs: number;
  pendingRetryWaitMs: number;
  maxFormAttempts: number;
}

type FormAnswer = NonNullable<AnsweredAsk['r']>;

/**
 * Elicitation inside one tool call under protocol 2026-07-28 (multi round-trip requests). There is no
 * server push: a question the client has not answered yet stops the tool with an `input_required`
 * result (an `InputRequiredSignal` the tool wrapper returns) carrying a sealed `requestState`; the
 * client asks the user and retries the same call, and the tool runs again from the top. Questions
 * answered in earlier rounds are answered from the state (in order, checked against what is asked),
 * so tool code reads as if it awaited each answer.
 */
export class ModernToolElicitation implements ToolElicitation {
  readonly era = '2026-07-28' as const;
  /** How many questions this run has asked so far. */
  private asked = 0;
  /** The answered questions to carry into the next state. */
  private readonly answered: AnsweredAsk[];

  constructor(
    private readonly deps: ModernDeps,
    private readonly call: ModernCall,
  ) {
    this.answered = [...(call.state?.d ?? [])];
  }

  get userId(): string {
    if (!this.call.user) throw new ElicitationIdentityError();
    return this.call.user;
  }

  isSupported(mode: 'form' | 'url'): boolean {
    const caps = this.call.elicitation;
    if (!caps) return false;
    return mode === 'url' ? caps.url !== undefined : caps.form !== undefined || caps.url === undefined;
  }

  async elicit<T>(message: string, form: FormDefinition<T> | FormSchema, options: ElicitOptions = {}): Promise<ElicitResult<T>> {
    const definition = (isFormDefinition(form) ? form : buildForm<T>(form)) as FormDefinition<T>;
    const hosted = definition.secretFields.length > 0 || (!this.isSupported('form') && options.fallback === 'hosted');
    if (hosted) {
      if (definition.secretFields.length > 0 && !this.isSupported('url')) {
        throw new FormSchemaError(
          definition.secretFields[0],
          'is a secret, which may only be collected on the hosted form page (URL mode), and this client does not support URL mode',
        );
      }
      const outcome = await this.urlRound<Record<string, unknown>>({ kind: 'form', form: definition, message }, options.key);
      if (outcome.status === 'completed') return { action: 'accept', content: outcome.data as T };
      return outcome.status === 'declined' ? { action: 'decline' } : { action: 'cancel' };
    }

    const request: InputRequest = { method: 'elicitation/create', params: { mode: 'form', message, requestedSchema: definition.schema } };
    const slot = this.next(digestOf({ form: message, schema: definition.schema }), options.key);
    if (slot.answered?.r) return slot.answered.r as ElicitResult<T>;
    // Not declared: never embedded, nothing created. The SDK answers the embedded request with -32021.
    if (!this.isSupported('form')) throw new InputRequiredSignal({ resultType: 'input_required', inputRequests: { [slot.key]: request } });

    const pending = slot.pending ?? { k: slot.key, q: slot.q };
    // A first call that already carries an answer under this question's key (no state yet: the client
    // pre-filled it) counts too; it is validated like any other, and a form answer holds nothing the client
    // could not give when asked. With a state, only the answer to the question it records counts.
    if (slot.pending || (!this.call.state && this.call.inputResponses?.[slot.key] !== undefined)) {
      const response = this.call.inputResponses?.[slot.key];
      const answer = this.formAnswer(response, definition, pending);
      if (answer) {
        this.answered.push({ k: slot.key, q: slot.q, r: answer as FormAnswer });
        return answer;
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
    if (slot.answered?.id) return this.finalOutcome<T>(slot.answered.id);

    if (slot.pending?.id) {
      const id = slot.pending.id;
      const response = this.call.inputResponses?.[slot.key] as { action?: unknown } | undefined;
      if (response?.action === 'decline') await service.decline(id);
      else if (response?.action === 'cancel') await service.cancel(id);
      let outcome = await service.getResult<T>(id);
      if (outcome?.status === 'pending') {
        const waited = await service.waitForCompletion<T>(id, { timeoutMs: this.deps.pendingRetryWaitMs, signal: this.call.signal });
        if (waited.status === 'timeout') return this.suspend(undefined, slot.pending);
        outcome = waited;
      }
      this.answered.push({ k: slot.key, q: slot.q, id });
      return outcome ?? { status: 'expired' };
    }

    const found = await existing?.();
    if (found) {
      this.answered.push({ k: slot.key, q: slot.q, id: found });
      return this.finalOutcome<T>(found);
    }
    const user = this.userId;
    const request = (url: string): InputRequest => ({ method: 'elicitation/create', params: { mode: 'url', message: ask.message, url } });
    // Not declared: never embedded, nothing created. The SDK answers the embedded request with -32021.
    if (!this.isSupported('url')) {
      throw new InputRequiredSignal({
        resultType: 'input_required',
        inputRequests: { [slot.key]: request(service.urlFor('00000000-0000-4000-8000-000000000000', ask.kind)) },
      });
    }
    const created = await service.createUrlElicitation({ ...ask, userId: user });
    return this.suspend({ [slot.key]: request(created.url) }, { k: slot.key, q: slot.q, id: created.elicitationId });
  }

  /** How a finished URL question ended; the answer is read from the store, never from the state. */
  private async finalOutcome<T extends ElicitationData>(id: string): Promise<ElicitationOutcome<T>> {
    const outcome = await this.deps.service.getResult<T>(id);
    return !outcome || outcome.status === 'pending' ? { status: 'expired' } : outcome;
  }

  /** The validated answer of a pending form question, or `undefined` to ask again. */
  private formAnswer<T>(response: unknown, definition: FormDefinition<T>, pending: PendingAsk): ElicitResult<T> | undefined {
    if (!response || typeof response !== 'object' || Array.isArray(response)) return undefined;
    const { action, content } = response as { action?: unknown; content?: unknown };
    if (action === 'decline') return { action: 'decline' };
    if (action === 'cancel') return { action: 'cancel' };
    if (action !== 'accept') return undefined;
    const checked = definition.validate(content);
    if (checked.ok) return { action: 'accept', content: checked.value };
    pending.n = (pending.n ?? 0) + 1;
    if (pending.n >= this.deps.maxFormAttempts) throw new ElicitationValidationError(checked.issues);
    return undefined;
  }

  /** Finds this question's place: answered earlier, the one the client is answering now, or new. */
  private next(q: string, key: string | undefined): { key: string; q: string; answered?: AnsweredAsk; pending?: PendingAsk } {
    const index = this.asked++;
    const state = this.call.state;
    const earlier = state?.d[index];
    if (earlier) {
      if (earlier.q !== q) {
        throw new Error(
          'This tool asked a different question on a retry than before (protocol 2026-07-28 runs the tool again from the top: ' +
            'the questions and their order must not depend on anything that changes between retries).',
        );
      }
      return { key: earlier.k, q, answered: earlier };
    }
    if (state?.p && index === state.d.length && state.p.q === q) return { key: state.p.k, q, pending: { ...state.p } };
    return { key: key ?? `elicitation-${index + 1}`, q };
  }

  /** Stops the tool: `input_required` with these requests (none: "retry later") and a fresh sealed state. */
  private suspend(inputRequests: Record<string, InputRequest> | undefined, pending: PendingAsk): never {
    const now = Date.now();
    const requestState = this.deps.codec.seal({
      v: 1,
      j: RequestStateCodec.newId(),
      u: this.call.user ?? '',
      m: this.call.method,
      n: this.call.name,
      a: digestOf(this.call.args ?? {}),
      e: now + this.deps.requestStateTtlMs,
      d: this.answered,
      p: pending,
    });
    throw new InputRequiredSignal({ resultType: 'input_required', ...(inputRequests && { inputRequests }), requestState });
  }
}
