import { displayText } from '../../security/display-text.js';
import { DEFAULT_FORM_TIMEOUT_MS } from '../../options/elicitation.constants.js';
import type { ElicitationService } from '../../lifecycle/elicitation.service.js';
import type { ElicitationRecords } from '../../lifecycle/elicitation-records.js';
import type { ElicitationData, ElicitationRecord } from '../../core/elicitation.types.js';
import { ElicitationUnsupportedError } from '../../errors/elicitation-unsupported.error.js';
import type { FormDefinition } from '../../forms/define-form.js';
import type { FormSchema } from '../../forms/form-schema.js';
import { descend, type FallbackRung, type PageFallbackRung } from '../../options/client-ladder.js';
import { answerOf, CallQuestions } from '../questions/call-questions.js';
import type { CompletionNotifications } from '../completion-notifications.js';
import { countedFormQuestion, statusOfAction, statusOfStep, type MechanismTelemetry } from '../questions/form-telemetry.js';
import type { CallScope, LinkedQuestions } from '../questions/linked-questions.js';
import { PushChannel } from './push-channel.js';
import { PushPages } from './push-pages.js';
import { PushRungs } from './push-rungs.js';
import type { SdkRequestExtra, SdkServerLike, UrlRequiredErrorClass } from '../sdk/sdk.types.js';
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
  type FormElicitationResult,
  type PageOutcome,
  type PushToolElicitation,
  type UrlElicitationAsk,
  type UrlElicitationRequest,
} from '../tool-elicitation.js';
import { typeOfAsk } from '../../lifecycle/create-input.validation.js';

/** What a push-mechanism elicitation needs from the module. */
export interface PushDeps {
  service: ElicitationService;
  records: ElicitationRecords;
  /** Pairs a created elicitation with this session, for the completion notification. */
  notifications: Pick<CompletionNotifications, 'track' | 'tracks'>;
  linked: Pick<LinkedQuestions, 'round' | 'askKey' | 'earlier' | 'claim' | 'outcomeOf' | 'urlOf' | 'viaOf'>;
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
  /** How long a call without a progress token waits for a person; 0: no limit. */
  callWaitMs: number;
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
  /** Aborted when the call's response stream closed and nothing can resume it (the client hung up). */
  hangUp?: AbortSignal;
  /** The call is about to wait on a person: takes its place among the calls in flight (throws past the cap). */
  waiting?: () => void;
}

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
  /** The rules this call's questions share with the other era's. */
  private readonly questions: CallQuestions;
  private readonly channel: PushChannel;
  private readonly rungs: PushRungs;
  private readonly pages: PushPages;

  constructor(
    private readonly deps: PushDeps,
    private readonly call: PushCall,
  ) {
    const { service, records, linked, telemetry, maxFormAttempts, pendingRetryWaitMs, instantDeclineMs, keepAliveMs, callWaitMs } = deps;
    this.questions = new CallQuestions({
      service,
      records,
      linked,
      telemetry,
      user: call.user,
      elicitation: call.elicitation,
      scope: call.scope,
    });
    const { hangUp, waiting = () => undefined } = call;
    this.channel = new PushChannel({
      records,
      server: call.server,
      extra: call.extra,
      instantDeclineMs,
      keepAliveMs,
      callWaitMs,
      hangUp,
      waiting,
    });
    this.rungs = new PushRungs({ service, records, linked, channel: this.channel, maxFormAttempts, pendingRetryWaitMs });
    const { server, extra } = call;
    this.pages = new PushPages({ service, records, notifications: deps.notifications, linked, questions: this.questions, server, extra });
  }

  get userId(): string {
    return this.questions.userId;
  }

  isSupported(mode: 'form' | 'url'): boolean {
    return this.questions.isSupported(mode);
  }

  /** 2025-11-25 has no tasks: the call goes on. */
  continueAsTask(): Promise<void> {
    return Promise.resolve();
  }

  async create(ask: UrlElicitationAsk): Promise<UrlElicitationRequest> {
    this.assertSupported('url');
    return this.pages.create(ask);
  }

  throwRequired(elicitations: UrlElicitationRequest[], message = requiredMessage(elicitations)): never {
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
    // The answer-reuse rule (`CallQuestions.keptAnswer`, the same in both eras): a kept answer is marked used.
    const found = await this.questions.keptAnswer<T>(ask);
    if (found) return found.data;
    return answerOf(await this.pageQuestion<T>({ ...ask, type }, position, { suspend: true }));
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
    const earlier = await this.questions.earlier(position, digest);
    if (earlier && earlier.status !== 'pending') {
      return {
        ...hostedFormResult<T>(definition, await this.deps.linked.outcomeOf(earlier)),
        via: this.deps.linked.viaOf(earlier),
      };
    }
    const fit = this.questions.fit(true, definition.secretFields.length > 0);
    // The lookup above stands for the first rung tried only: the form rung waits, and the person may answer meanwhile.
    let fresh = true;
    const result = await descend<ElicitResult<T>>(this.questions.ladder(list), fit, async (rung) => {
      const first = fresh;
      fresh = false;
      if (rung === 'form')
        return countedFormQuestion(this.deps.telemetry, () => this.rungs.form(message, definition, options), statusOfStep);
      if (rung === 'model') {
        const model = { requestedSchema: definition.schema as unknown as Record<string, unknown> };
        const ask = hostedFormAsk(message, definition, []);
        const known = first ? { found: earlier } : undefined;
        const { outcome } = await this.deps.linked.round(this.call.scope, { user: this.userId, position, digest, ask, model }, known);
        return { done: { ...hostedFormResult<T>(definition, outcome), via: 'model' } };
      }
      // Every other rung asks on the hosted form page: the rest of the ladder from here is a page question's.
      const rest = list.slice(list.indexOf(rung));
      const ask = hostedFormAsk(message, definition, rest);
      return {
        done: hostedFormResult<T>(
          definition,
          await this.pageQuestion(ask, position, { timeoutMs: options.timeoutMs, digest, earlier, fresh: first }),
        ),
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
    const ask = () => this.channel.elicitInput({ mode: 'form', message, requestedSchema }, this.channel.signal, timeoutMs);
    const result = await countedFormQuestion(this.deps.telemetry, ask, (answer) => statusOfAction(answer.action));
    return result as FormElicitationResult;
  }

  /**
   * A question answered on a page, down the ladder. `suspend`: the `url` rung ends the call with -32042
   * (`requireAnswer`); otherwise it waits inside the call. A page an earlier call of this tool asked on is
   * taken up first (finished: its outcome; pending: its page, on whichever rung fits now), and a page created
   * by one rung is reused by the next (the bridge and the link show the same URL). `how.earlier`: the caller's
   * lookup, `fresh` when no rung ran since (then the link rung, tried first, does not look it up again).
   */
  private async pageQuestion<T extends ElicitationData>(
    ask: UrlElicitationAsk,
    position: number,
    how: { suspend?: boolean; timeoutMs?: number; digest?: string; earlier?: ElicitationRecord; fresh?: boolean },
  ): Promise<PageOutcome<T>> {
    const list = ask.fallback ?? this.deps.fallback.page;
    const digest = how.digest ?? pageQuestionDigest(ask);
    const earlier = 'earlier' in how ? how.earlier : await this.questions.earlier(position, digest);
    // The lookup stands for the first rung tried only: the url and bridge rungs wait, and may create a page.
    let known = !('earlier' in how) || how.fresh ? { found: earlier } : undefined;
    if (earlier && earlier.status !== 'pending') return { ...(await this.deps.linked.outcomeOf<T>(earlier)), via: 'link' };
    let page: UrlElicitationRequest | undefined = earlier && this.pages.ofEarlier(earlier, ask.message);
    // A page shown in URL mode is paired with this session for the completion notification.
    if (page && this.isSupported('url')) this.pages.track(page.elicitationId);
    const outcome = await descend<PageOutcome<T>>(this.questions.ladder(list), this.questions.fit(false, false), async (rung) => {
      if (rung === 'link') {
        const { outcome } = await this.deps.linked.round<T>(this.call.scope, { user: this.userId, position, digest, ask }, known);
        return { done: { ...outcome, via: 'link' } };
      }
      known = undefined;
      if (rung === 'url' && how.suspend)
        this.suspend(ask, page ?? (await this.pages.reopen(ask)) ?? (await this.pages.createKeyed(ask, position, digest, true)));
      // From here the call waits on a person: its place among the calls in flight first, before any page is made.
      this.channel.waiting();
      // A call without a progress token stops waiting at its deadline (`callWaitMs`) and ends with the link instead.
      const leave = list.includes('link') && this.call.scope.asking !== undefined;
      const onPage = (shown: UrlElicitationRequest) =>
        rung === 'url' ? this.rungs.url<T>(shown, how.timeoutMs, leave) : this.rungs.bridge<T>(shown, how.timeoutMs, leave);
      page ??= await this.pages.createKeyed(ask, position, digest, rung === 'url');
      let step = await onPage(page);
      // Another call claimed the page's answer (one answer runs a tool once): this call asks anew, on a page of its own.
      while (step === 'spent') {
        page = await this.pages.createKeyed(ask, position, digest, rung === 'url');
        step = await onPage(page);
      }
      if (step === 'deadline') {
        const found = { found: await this.deps.records.read(page.elicitationId) };
        const { outcome } = await this.deps.linked.round<T>(this.call.scope, { user: this.userId, position, digest, ask }, found);
        return { done: { ...outcome, via: 'link' } };
      }
      return step === 'next' || step === 'cannot-ask' ? step : { done: { ...step.done, via: rung as 'url' | 'form-bridge' } };
    });
    if (!outcome) throw new ElicitationUnsupportedError('url');
    return outcome;
  }

  /** -32042 for this page. */
  private suspend(ask: UrlElicitationAsk, page: UrlElicitationRequest): never {
    this.throwRequired([{ ...page, message: ask.message }]);
  }

  private assertSupported(mode: 'form' | 'url'): void {
    if (!this.isSupported(mode)) throw new ElicitationUnsupportedError(mode);
  }
}

/**
 * The -32042 message when the tool gives none: the pages and what each is for, readable as it is, since clients that do
 * not handle -32042 show the message and never `error.data` (where the pages are too, as the protocol says).
 */
export function requiredMessage(elicitations: ReadonlyArray<Pick<UrlElicitationRequest, 'url' | 'message'>>): string {
  const line = (e: Pick<UrlElicitationRequest, 'url' | 'message'>) =>
    `${e.url}${e.message ? ` (${displayText(e.message, 'line', 300)})` : ''}`;
  if (elicitations.length === 1) return `Open this page to continue: ${line(elicitations[0])}`;
  return `Open these pages to continue: ${elicitations.map(line).join('; ')}`;
}
