import { DEFAULT_FORM_TIMEOUT_MS } from '../elicitation.constants.js';
import type { ElicitationService } from '../elicitation.service.js';
import type { ElicitationData, WaitOutcome } from '../elicitation.types.js';
import { ElicitationIdentityError } from '../errors/elicitation-identity.error.js';
import { ElicitationUnsupportedError } from '../errors/elicitation-unsupported.error.js';
import { ElicitationValidationError, type FieldIssue } from '../errors/elicitation-validation.error.js';
import type { FormDefinition } from '../forms/define-form.js';
import type { FormSchema } from '../forms/form-schema.js';
import type { CompletionNotifications } from './completion-notifications.js';
import type { SdkRequestExtra, SdkServerLike, UrlRequiredErrorClass } from './sdk.types.js';
import {
  formRoute,
  hostedFormResult,
  reaskMessage,
  supportsMode,
  toFormDefinition,
  type ElicitationElicitOptions,
  type ElicitResult,
  type FormElicitationResult,
  type PushToolElicitation,
  type UrlElicitationAsk,
  type UrlElicitationRequest,
} from './tool-elicitation.js';

/** What a push-mechanism elicitation needs from the module. */
export interface PushDeps {
  service: ElicitationService;
  /** Pairs a created elicitation with this session, for the completion notification. */
  notifications: Pick<CompletionNotifications, 'track' | 'tracks'>;
  /** The -32042 error of the SDK line serving the call (McpServer recognises only its own class). */
  urlRequiredError: UrlRequiredErrorClass;
  /** Form answers one question takes in all (`limits.maxFormAttempts`): invalid ones are asked again. */
  maxFormAttempts: number;
}

/** One tool call on a 2025-11-25 connection: its session's server, its `extra`, and its verified user. */
export interface PushCall {
  server: SdkServerLike;
  extra: SdkRequestExtra;
  /** The verified user of the call, or `undefined`. */
  user: () => string | undefined;
}

/**
 * Elicitation inside one tool call by the push mechanism (protocol 2025-11-25): questions are pushed to
 * the client (`elicitation/create` on the call's own stream) and awaited inside the call; `requireAnswer`
 * suspends the call with -32042 instead.
 */
export class PushElicitation implements PushToolElicitation {
  readonly era = '2025-11-25' as const;

  constructor(
    private readonly deps: PushDeps,
    private readonly call: PushCall,
  ) {}

  get userId(): string {
    const user = this.call.user();
    if (!user) throw new ElicitationIdentityError();
    return user;
  }

  isSupported(mode: 'form' | 'url'): boolean {
    return supportsMode(this.call.server.getClientCapabilities()?.elicitation, mode);
  }

  async create(ask: UrlElicitationAsk): Promise<UrlElicitationRequest> {
    this.assertSupported('url');
    const created = await this.deps.service.createUrlElicitation({ ...ask, userId: this.userId, session: this.call.extra.sessionId });
    this.deps.notifications.track(this.call.server, created.elicitationId);
    return { ...created, message: ask.message };
  }

  throwRequired(elicitations: UrlElicitationRequest[], message = 'This request needs more information from you.'): never {
    this.assertSupported('url');
    throw new this.deps.urlRequiredError(
      elicitations.map((e) => ({ mode: 'url' as const, elicitationId: e.elicitationId, url: e.url, message: e.message })),
      message,
    );
  }

  /**
   * Resolves the user's latest answer of `ask.type` when there is one; otherwise asks for it (a URL
   * elicitation) and suspends the call (-32042). The tool runs again from the top on the client's retry
   * and then finds the answer, so work done before this call must be safe to repeat.
   */
  async requireAnswer<T extends ElicitationData = ElicitationData>(ask: UrlElicitationAsk): Promise<T> {
    const service = this.deps.service;
    const type = ask.type ?? ask.kind;
    const found = await service.findByUserAndType<T>(this.userId, type);
    if (found) return found.data;
    this.assertSupported('url');
    // A retry before the user answered shows the same page again rather than a new one.
    const pending = (await service.list({ userId: this.userId, status: 'pending' }))
      .reverse()
      .find((p) => p.type === type && p.kind === ask.kind);
    const request =
      pending && this.deps.notifications.tracks(pending.elicitationId, this.call.server)
        ? {
            elicitationId: pending.elicitationId,
            url: service.urlFor(pending.elicitationId, pending.kind),
            expiresAt: new Date(pending.expiresAt),
            message: ask.message,
          }
        : await this.create({ ...ask, type });
    this.throwRequired([request]);
  }

  /**
   * Sends `elicitation/create` in URL mode on this call's own stream, then waits (inside the call) until
   * the user finishes on the page, the elicitation expires, or `timeoutMs` passes. A client that declines
   * or cancels the URL ends the elicitation the same way.
   */
  async requestUrl<T extends ElicitationData = ElicitationData>(ask: UrlElicitationAsk & { timeoutMs?: number }): Promise<WaitOutcome<T>> {
    const { timeoutMs, ...rest } = ask;
    const request = await this.create(rest);
    const service = this.deps.service;
    const { requestId, signal } = this.call.extra;
    try {
      const consent = await this.call.server.elicitInput(
        { mode: 'url', message: request.message, url: request.url, elicitationId: request.elicitationId },
        { relatedRequestId: requestId, signal, timeout: Math.max(1, request.expiresAt.getTime() - Date.now()) },
      );
      if (consent.action === 'decline') {
        await service.decline(request.elicitationId);
        return { status: 'declined' };
      }
      if (consent.action !== 'accept') {
        await service.cancel(request.elicitationId);
        return { status: 'cancelled' };
      }
      const outcome = await service.waitForCompletion<T>(request.elicitationId, { timeoutMs, signal });
      if (outcome.status === 'timeout') await service.cancel(request.elicitationId);
      return outcome;
    } catch (error) {
      await service.cancel(request.elicitationId).catch(() => undefined);
      throw error;
    }
  }

  /**
   * Asks the user to fill a form and resolves the answer, validated and typed. Form mode rides this tool
   * call's own stream; a client without form support gets the `fallback`. An accepted answer that does not
   * match the form throws `ElicitationValidationError` listing the fields: never a silent pass.
   */
  async elicit<T>(message: string, form: FormDefinition<T> | FormSchema, options: ElicitationElicitOptions = {}): Promise<ElicitResult<T>> {
    const definition = toFormDefinition(form);
    const { timeoutMs = DEFAULT_FORM_TIMEOUT_MS, fallback = 'error' } = options;
    if (formRoute(definition, (mode) => this.isSupported(mode), fallback) === 'hosted') {
      if (!this.isSupported('url')) throw new ElicitationUnsupportedError('form');
      return hostedFormResult<T>(await this.requestUrl<Record<string, unknown>>({ kind: 'form', form: definition, message, timeoutMs }));
    }
    this.assertSupported('form');
    const signal = anySignal(this.call.extra.signal, options.signal);
    // An invalid answer is asked again, naming the fields to correct, up to limits.maxFormAttempts answers.
    for (let attempt = 1, issues: FieldIssue[] = []; ; attempt++) {
      const result = await this.call.server.elicitInput(
        { mode: 'form', message: reaskMessage(message, issues), requestedSchema: definition.schema },
        { relatedRequestId: this.call.extra.requestId, signal, timeout: timeoutMs },
      );
      if (result.action === 'decline') return { action: 'decline' };
      if (result.action !== 'accept') return { action: 'cancel' };
      const checked = definition.validate(result.content);
      if (checked.ok) return { action: 'accept', content: checked.value };
      if (attempt >= this.deps.maxFormAttempts) throw new ElicitationValidationError(checked.issues);
      issues = checked.issues;
    }
  }

  async elicitForm(
    message: string,
    requestedSchema: Record<string, unknown>,
    { timeoutMs = DEFAULT_FORM_TIMEOUT_MS }: { timeoutMs?: number } = {},
  ): Promise<FormElicitationResult> {
    this.assertSupported('form');
    const result = await this.call.server.elicitInput(
      { mode: 'form', message, requestedSchema },
      { relatedRequestId: this.call.extra.requestId, signal: this.call.extra.signal, timeout: timeoutMs },
    );
    return result as FormElicitationResult;
  }

  private assertSupported(mode: 'form' | 'url'): void {
    if (!this.isSupported(mode)) throw new ElicitationUnsupportedError(mode);
  }
}

/** One signal aborted when any of the given ones is. */
function anySignal(...signals: Array<AbortSignal | undefined>): AbortSignal | undefined {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  if (present.length <= 1) return present[0];
  const controller = new AbortController();
  for (const s of present) {
    if (s.aborted) {
      controller.abort(s.reason);
      break;
    }
    s.addEventListener('abort', () => controller.abort(s.reason), { once: true });
  }
  return controller.signal;
}
