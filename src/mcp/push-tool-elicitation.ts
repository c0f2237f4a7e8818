import { DEFAULT_FORM_TIMEOUT_MS } from '../elicitation.constants.js';
import type { ElicitationService } from '../elicitation.service.js';
import type { ElicitationData, ElicitationRecord, WaitOutcome } from '../elicitation.types.js';
import { ElicitationIdentityError } from '../errors/elicitation-identity.error.js';
import { ElicitationNotAnsweredError } from '../errors/elicitation-not-answered.error.js';
import { ElicitationShutdownError } from '../errors/elicitation-shutdown.error.js';
import { ElicitationUnsupportedError } from '../errors/elicitation-unsupported.error.js';
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
import type { CompletionNotifications } from './completion-notifications.js';
import { countedFormQuestion, statusOfAction, statusOfStep, type MechanismTelemetry } from './form-telemetry.js';
import type { CallScope, LinkedQuestions } from './linked-questions.js';
import type { SdkRequestExtra, SdkServerLike, UrlRequiredErrorClass } from './sdk.types.js';
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
  type FormElicitationResult,
  type PageOutcome,
  type PushToolElicitation,
  type UrlElicitationAsk,
  type UrlElicitationRequest,
} from './tool-elicitation.js';
import { typeOfAsk } from '../service/create-input.validation.js';

/** What a push-mechanism elicitation needs from the module. */
export interface PushDeps {
  service: ElicitationService;
  /** Pairs a created elicitation with this session, for the completion notification. */
  notifications: Pick<CompletionNotifications, 'track' | 'tracks'>;
  linked: Pick<LinkedQuestions, 'round' | 'askKey' | 'earlier' | 'outcomeOf' | 'urlOf' | 'viaOf'>;
  /** The -32042 error of the SDK line serving the call (McpServer recognises only its own class). */
  urlRequiredError: UrlRequiredErrorClass;
  /** Form answers one question takes in all (`limits.maxFormAttempts`): invalid ones are asked again. */
  maxFormAttempts: number;
  /** The module's ladders (`fallback`). */
  fallback: { page: readonly PageFallbackRung[]; form: readonly FallbackRung[] };
  /** A decline sooner than this (ms) means "this client cannot ask"; 0: off. */
  instantDeclineMs: number;
  /** Progress notifications while a person answers, every this many ms; 0: off. */
  keepAliveMs: number;
  /** How long an "I have finished" from the form bridge waits for the page's answer to land. */
  pendingRetryWaitMs: number;
  /** Form-mode questions and fallbacks, for the metrics. */
  telemetry: MechanismTelemetry;
}

/** One tool call on a 2025-11-25 connection: its session's server, its `extra`, and its verified user. */
export interface PushCall {
  server: SdkServerLike;
  extra: SdkRequestExtra;
  /** The verified user of the call, or `undefined`. */
  user: () => string | undefined;
  /** The elicitation capability to act on (declared, after the module's `clientPolicy`). */
  elicitation: DeclaredElicitation;
  /** The link and model rungs' view of the call (a fresh scope without the tool: those rungs do not fit). */
  scope: CallScope;
}

/** How a question that asks the client ended: answered, or the client cannot ask / passed it on. */
type Asked<R> = LadderStep<R>;

/**
 * Elicitation inside one tool call by the push mechanism (protocol 2025-11-25): questions are pushed to
 * the client (`elicitation/create` on the call's own stream) and awaited inside the call; `requireAnswer`
 * suspends the call with -32042 instead. Each question descends the fallback ladder (see `client-ladder`)
 * until a rung fits the client.
 */
export class PushElicitation implements PushToolElicitation {
  readonly era = '2025-11-25' as const;
  /** How many questions this call has asked so far (a question's position keys the link rung). */
  private asked = 0;

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
    return supportsMode(this.call.elicitation, mode);
  }

  async create(ask: UrlElicitationAsk): Promise<UrlElicitationRequest> {
    this.assertSupported('url');
    const { fallback: _ladder, ...rest } = ask;
    const created = await this.deps.service.createUrlElicitation({ ...rest, userId: this.userId, session: this.call.extra.sessionId });
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
   * Resolves the user's latest answer of `ask.type` when there is one; otherwise asks for it through the
   * ladder. On the `url` rung the call is suspended (-32042): the tool runs again from the top on the
   * client's retry and then finds the answer, so work done before this call must be safe to repeat.
   */
  async requireAnswer<T extends ElicitationData = ElicitationData>(ask: UrlElicitationAsk): Promise<T> {
    const position = this.asked++;
    const type = typeOfAsk(ask);
    const found = await this.deps.service.keptAnswer<T>(this.userId, ask);
    if (found) return found.data;
    const outcome = await this.pageQuestion<T>({ ...ask, type }, position, { suspend: true });
    if (outcome.status === 'completed') return outcome.data;
    throw new ElicitationNotAnsweredError(outcome.status === 'timeout' ? 'expired' : outcome.status);
  }

  /**
   * Asks on a hosted page through the ladder and resolves how it ended. On the `url` and `form-bridge` rungs
   * the call waits until the user finishes on the page, the elicitation expires, or `timeoutMs` passes; a
   * client that declines or cancels ends the elicitation the same way.
   */
  requestUrl<T extends ElicitationData = ElicitationData>(ask: UrlElicitationAsk & { timeoutMs?: number }): Promise<PageOutcome<T>> {
    const { timeoutMs, ...rest } = ask;
    return this.pageQuestion<T>(rest, this.asked++, { timeoutMs });
  }

  /**
   * Asks the user to fill a form and resolves the answer, validated and typed, through the ladder: form
   * mode on this tool call's own stream, else the hosted form page. An invalid answer is asked again naming
   * the fields; the `limits.maxFormAttempts`-th throws `ElicitationValidationError`: never a silent pass.
   */
  async elicit<T>(message: string, form: FormDefinition<T> | FormSchema, options: ElicitationElicitOptions = {}): Promise<ElicitResult<T>> {
    const definition = toFormDefinition(form);
    assertModelAllowed(definition, options.fallback);
    const list = options.fallback ?? this.deps.fallback.form;
    const position = this.asked++;
    const digest = formQuestionDigest(message, definition);
    // An earlier call of this tool asked this on a page: its answer, or its page again.
    const earlier = await this.earlier(position, digest);
    if (earlier && earlier.status !== 'pending') {
      return {
        ...hostedFormResult<T>(definition, await this.deps.linked.outcomeOf(this.call.scope, earlier)),
        via: this.deps.linked.viaOf(earlier),
      };
    }
    const fit = this.fit(true, definition.secretFields.length > 0);
    const result = await descend<ElicitResult<T>>(this.ladder(list), fit, async (rung) => {
      if (rung === 'form') return countedFormQuestion(this.deps.telemetry, () => this.formRung(message, definition, options), statusOfStep);
      if (rung === 'model') {
        const model = { requestedSchema: definition.schema as unknown as Record<string, unknown> };
        const ask = hostedFormAsk(message, definition, []);
        const { outcome } = await this.deps.linked.round(this.call.scope, { user: this.userId, position, digest, ask, model });
        return { done: { ...hostedFormResult<T>(definition, outcome), via: 'model' } };
      }
      // Every other rung asks on the hosted form page: the rest of the ladder from here is a page question's.
      const rest = list.slice(list.indexOf(rung));
      const ask = hostedFormAsk(message, definition, rest);
      return {
        done: hostedFormResult<T>(definition, await this.pageQuestion(ask, position, { timeoutMs: options.timeoutMs, digest, earlier })),
      };
    });
    if (!result) throw formUnreachable(definition);
    return result;
  }

  async elicitForm(
    message: string,
    requestedSchema: Record<string, unknown>,
    { timeoutMs = DEFAULT_FORM_TIMEOUT_MS }: { timeoutMs?: number } = {},
  ): Promise<FormElicitationResult> {
    this.assertSupported('form');
    const ask = () => this.elicitInput({ mode: 'form', message, requestedSchema }, this.call.extra.signal, timeoutMs);
    const result = await countedFormQuestion(this.deps.telemetry, ask, (answer) => statusOfAction(answer.action));
    return result as FormElicitationResult;
  }

  /**
   * A question answered on a page, down the ladder. `suspend`: the `url` rung ends the call with -32042
   * (`requireAnswer`); otherwise it waits inside the call. A page an earlier call of this tool asked on is
   * taken up first (finished: its outcome; pending: its page, on whichever rung fits now), and a page created
   * by one rung is reused by the next (the bridge and the link show the same URL).
   */
  private async pageQuestion<T extends ElicitationData>(
    ask: UrlElicitationAsk,
    position: number,
    how: { suspend?: boolean; timeoutMs?: number; digest?: string; earlier?: ElicitationRecord },
  ): Promise<PageOutcome<T>> {
    const list = ask.fallback ?? this.deps.fallback.page;
    const digest = how.digest ?? pageQuestionDigest(ask);
    const earlier = 'earlier' in how ? how.earlier : await this.earlier(position, digest);
    if (earlier && earlier.status !== 'pending') return { ...(await this.deps.linked.outcomeOf<T>(this.call.scope, earlier)), via: 'link' };
    let page: UrlElicitationRequest | undefined = earlier && {
      elicitationId: earlier.id,
      url: this.deps.linked.urlOf(earlier),
      expiresAt: new Date(earlier.expiresAt),
      message: ask.message,
    };
    // A page shown in URL mode is paired with this session for the completion notification.
    if (page && this.isSupported('url')) this.deps.notifications.track(this.call.server, page.elicitationId);
    const outcome = await descend<PageOutcome<T>>(this.ladder(list), this.fit(false, false), async (rung) => {
      if (rung === 'link') {
        const { outcome } = await this.deps.linked.round<T>(this.call.scope, { user: this.userId, position, digest, ask });
        return { done: { ...outcome, via: 'link' } };
      }
      if (rung === 'url' && how.suspend)
        this.suspend(ask, page ?? (await this.openPage(ask)) ?? (await this.createPage(ask, position, digest, true)));
      page ??= await this.createPage(ask, position, digest, rung === 'url');
      const step = rung === 'url' ? await this.urlRung<T>(page, how.timeoutMs) : await this.bridgeRung<T>(page, how.timeoutMs);
      return step === 'next' || step === 'cannot-ask' ? step : { done: { ...step.done, via: rung as 'url' | 'form-bridge' } };
    });
    if (!outcome) throw new ElicitationUnsupportedError('url');
    return outcome;
  }

  /** The question an earlier call of this tool asked at this position, not yet used (none without a user). */
  private async earlier(position: number, digest: string): Promise<ElicitationRecord | undefined> {
    const user = this.call.user();
    return user ? this.deps.linked.earlier(this.call.scope, { user, position, digest }) : undefined;
  }

  /** -32042 for this page. */
  private suspend(ask: UrlElicitationAsk, page: UrlElicitationRequest): never {
    this.throwRequired([{ ...page, message: ask.message }]);
  }

  /** A retry before the user answered shows the same page again rather than a new one (this session's, same type). */
  private async openPage(ask: UrlElicitationAsk): Promise<UrlElicitationRequest | undefined> {
    const service = this.deps.service;
    const type = typeOfAsk(ask);
    const pending = (await service.list({ userId: this.userId, status: 'pending' }))
      .reverse()
      .find((p) => p.type === type && p.kind === ask.kind && this.deps.notifications.tracks(p.elicitationId, this.call.server));
    return (
      pending && {
        elicitationId: pending.elicitationId,
        url: service.urlFor(pending.elicitationId, pending.kind),
        expiresAt: new Date(pending.expiresAt),
        message: ask.message,
      }
    );
  }

  /**
   * `elicitation/create` in URL mode, then the wait for the page. A decline sooner than `instantDeclineMs`
   * passes the question on (the page stays open for the next rung).
   */
  private async urlRung<T extends ElicitationData>(page: UrlElicitationRequest, timeoutMs?: number): Promise<Asked<WaitOutcome<T>>> {
    return this.ending(page, async () => {
      const sentAt = Date.now();
      const dialogMs = await this.timeLeft(page);
      const consent = await this.keepingAlive(page.message, () =>
        this.elicitInput(
          { mode: 'url', message: page.message, url: page.url, elicitationId: page.elicitationId },
          this.call.extra.signal,
          dialogMs,
        ),
      );
      if (consent.action === 'decline' && this.instant(sentAt)) return 'cannot-ask';
      if (consent.action !== 'accept') return { done: await this.endByClient<T>(page, consent.action) };
      const outcome = await this.keepingAlive(page.message, () =>
        this.deps.service.waitForCompletion<T>(page.elicitationId, { timeoutMs, signal: this.call.extra.signal }),
      );
      return { done: await this.settled(page, outcome) };
    });
  }

  /**
   * The form bridge: a form-mode question that carries the page URL and one "I have finished" box. Whichever
   * comes first wins: the page's answer (the form is then withdrawn) or the client's reply. Accept → the
   * page's answer (waiting `pendingRetryWaitMs` for it to land); still none → asked again, up to
   * `limits.maxFormAttempts`, then the next rung. Decline or cancel ends the elicitation that way.
   */
  private async bridgeRung<T extends ElicitationData>(page: UrlElicitationRequest, timeoutMs?: number): Promise<Asked<WaitOutcome<T>>> {
    const service = this.deps.service;
    const waitUntil = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
    return this.ending(page, async () => {
      for (let attempt = 1; attempt <= this.deps.maxFormAttempts; attempt++) {
        const sentAt = Date.now();
        const stop = new AbortController();
        const signal = anySignal(this.call.extra.signal, stop.signal);
        const left = waitUntil === undefined ? undefined : Math.max(1, waitUntil - Date.now());
        const pageDone = service
          .waitForCompletion<T>(page.elicitationId, { timeoutMs: left, signal: stop.signal })
          .then((outcome) => ({ outcome }))
          // Aborted once the client's reply won; a shutdown ends the call.
          .catch((error: unknown) =>
            error instanceof ElicitationShutdownError ? Promise.reject(error) : new Promise<never>(() => undefined),
          );
        const reply = this.elicitInput(
          { mode: 'form', message: bridgeMessage(page.message, page.url, attempt > 1), requestedSchema: BRIDGE_SCHEMA },
          signal,
          await this.timeLeft(page),
        ).then((answer) => ({ answer }));
        reply.catch(() => undefined);
        const first = await this.keepingAlive(page.message, () => Promise.race([pageDone, reply]));
        stop.abort();
        if ('outcome' in first) return { done: await this.settled(page, first.outcome) };
        const { action } = first.answer;
        if (action === 'decline' && this.instant(sentAt)) return 'cannot-ask';
        if (action !== 'accept') return { done: await this.endByClient<T>(page, action) };
        const outcome = await service.waitForCompletion<T>(page.elicitationId, {
          timeoutMs: this.deps.pendingRetryWaitMs,
          signal: this.call.extra.signal,
        });
        if (outcome.status !== 'timeout') return { done: await this.settled(page, outcome) };
      }
      return 'next';
    });
  }

  /** Form mode with the re-ask loop. A decline sooner than `instantDeclineMs` passes the question on. */
  private async formRung<T>(
    message: string,
    definition: FormDefinition<T>,
    options: ElicitationElicitOptions,
  ): Promise<Asked<ElicitResult<T>>> {
    const signal = anySignal(this.call.extra.signal, options.signal);
    const timeout = options.timeoutMs ?? DEFAULT_FORM_TIMEOUT_MS;
    for (let attempt = 1, issues: FieldIssue[] = []; ; attempt++) {
      const sentAt = Date.now();
      const result = await this.keepingAlive(message, () =>
        this.elicitInput({ mode: 'form', message: reaskMessage(message, issues), requestedSchema: definition.schema }, signal, timeout),
      );
      if (result.action === 'decline' && attempt === 1 && this.instant(sentAt)) return 'cannot-ask';
      if (result.action === 'decline') return { done: { action: 'decline', via: 'form' } };
      if (result.action !== 'accept') return { done: { action: 'cancel', via: 'form' } };
      const checked = definition.validate(result.content);
      if (checked.ok) return { done: { action: 'accept', content: checked.value, via: 'form' } };
      if (attempt >= this.deps.maxFormAttempts) throw new ElicitationValidationError(checked.issues);
      issues = checked.issues;
    }
  }

  /**
   * `elicitInput` on the call's stream, ended by `signal` or by the module's shutdown, which rejects it with
   * `ElicitationShutdownError` (the SDK would wait for the client's answer, or its timeout, while the app closes).
   */
  private async elicitInput(params: Record<string, unknown>, signal: AbortSignal | undefined, timeout: number) {
    const shutdown = this.deps.service.shutdownSignal;
    try {
      return await this.call.server.elicitInput(params, {
        relatedRequestId: this.call.extra.requestId,
        signal: anySignal(signal, shutdown),
        timeout,
      });
    } catch (error) {
      // The SDK rejects an aborted request with its own error naming the reason: the reason is the error.
      throw shutdown.aborted ? (shutdown.reason as Error) : error;
    }
  }

  /** A page for this question: keyed for the link rung, and paired with the session when URL mode shows it. */
  private async createPage(ask: UrlElicitationAsk, position: number, digest: string, track: boolean): Promise<UrlElicitationRequest> {
    const { fallback: _ladder, ...rest } = ask;
    const user = this.userId;
    const asking = this.call.scope.asking;
    const askKey = asking && this.deps.linked.askKey(user, asking, position, digest);
    const created = await this.deps.service.createUrlElicitation({ ...rest, userId: user, session: this.call.extra.sessionId, askKey });
    if (track) this.deps.notifications.track(this.call.server, created.elicitationId);
    return { ...created, message: ask.message };
  }

  /**
   * Runs a rung that waits on a page: an error (the client cancelled the call, a timeout) cancels the
   * elicitation, so its page says so and the completion notification goes out. A shutdown leaves it pending:
   * another instance may still take the answer, and the tool's next call takes the page up again.
   */
  private async ending<R>(page: UrlElicitationRequest, run: () => Promise<R>): Promise<R> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof ElicitationShutdownError) throw error;
      await this.endByBinding(page, 'cancel').catch(() => undefined);
      throw error;
    }
  }

  /** The client declined or cancelled: the elicitation ends that way. */
  private async endByClient<T extends ElicitationData>(page: UrlElicitationRequest, action: string): Promise<WaitOutcome<T>> {
    return this.endByBinding(page, action === 'decline' ? 'decline' : 'cancel');
  }

  /** Ends the elicitation from this side; its outcome is this call's (spent, so a later call asks anew). */
  private async endByBinding<T extends ElicitationData>(page: UrlElicitationRequest, how: 'decline' | 'cancel'): Promise<WaitOutcome<T>> {
    const service = this.deps.service;
    const ended = how === 'decline' ? await service.decline(page.elicitationId) : await service.cancel(page.elicitationId);
    const outcome = ended.ok || ended.reason === 'not-found' ? undefined : await service.getResult<T>(page.elicitationId);
    this.use(page);
    if (outcome && outcome.status !== 'pending') return outcome;
    return { status: how === 'decline' ? 'declined' : 'cancelled' };
  }

  /** A wait's outcome: a timeout withdraws the question; any final outcome is this call's. */
  private async settled<T extends ElicitationData>(page: UrlElicitationRequest, outcome: WaitOutcome<T>): Promise<WaitOutcome<T>> {
    if (outcome.status === 'timeout') await this.deps.service.cancel(page.elicitationId);
    this.use(page);
    return outcome;
  }

  private use(page: UrlElicitationRequest): void {
    this.call.scope.used.add(page.elicitationId);
  }

  /** A ladder whose fallbacks are counted (`elicitation.fallback`). */
  private ladder(rungs: readonly FallbackRung[]): ObservedLadder {
    return { rungs, observer: { fellTo: (rung) => this.deps.telemetry.fallback(rung) } };
  }

  /** Which rungs fit a question of this call. */
  private fit(form: boolean, secret: boolean): (rung: FallbackRung) => boolean {
    return fitFor((mode) => this.isSupported(mode), this.call.scope, form, secret);
  }

  private instant(sentAt: number): boolean {
    return this.deps.instantDeclineMs > 0 && Date.now() - sentAt < this.deps.instantDeclineMs;
  }

  /**
   * How long the client's dialog for `page` may stay open: until the latest the elicitation can expire ("Need more
   * time?" may move its expiry on while the dialog is open; the wait on the page itself follows the real expiry).
   */
  private async timeLeft(page: UrlElicitationRequest): Promise<number> {
    const record = await this.deps.service.getRecord(page.elicitationId);
    const latest = record ? (this.deps.service.extensionOf(record) ?? record.expiresAt) : page.expiresAt.getTime();
    return Math.max(1, latest - Date.now());
  }

  /**
   * Runs `wait` while sending `notifications/progress` for the call's `progressToken` (when the client sent
   * one) every `keepAliveMs`, so clients that reset their request timeout on progress keep waiting.
   */
  private async keepingAlive<R>(what: string, wait: () => Promise<R>): Promise<R> {
    const token = this.call.extra._meta?.progressToken;
    const send = this.call.extra.sendNotification;
    if (token === undefined || !send || this.deps.keepAliveMs <= 0) return wait();
    let progress = 0;
    const message = `Waiting for the user to answer: ${what.length > 200 ? `${what.slice(0, 199)}…` : what}`;
    const timer = setInterval(() => {
      progress++;
      send({ method: 'notifications/progress', params: { progressToken: token, progress, message } }).catch(() => undefined);
    }, this.deps.keepAliveMs);
    timer.unref();
    try {
      return await wait();
    } finally {
      clearInterval(timer);
    }
  }

  private assertSupported(mode: 'form' | 'url'): void {
    if (!this.isSupported(mode)) throw new ElicitationUnsupportedError(mode);
  }
}

/** One signal aborted when any of the given ones is. */
function anySignal(...signals: Array<AbortSignal | undefined>): AbortSignal | undefined {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  if (present.length <= 1) return present[0];
  return AbortSignal.any(present);
}
