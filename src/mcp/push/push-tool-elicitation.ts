import { displayText } from '../../security/display-text.js';
import { DEFAULT_FORM_TIMEOUT_MS } from '../../options/elicitation.constants.js';
import type { ElicitationService } from '../../lifecycle/elicitation.service.js';
import type { ElicitationRecords } from '../../lifecycle/elicitation-records.js';
import type { ElicitationData } from '../../core/elicitation.types.js';
import { ElicitationUnsupportedError } from '../../errors/elicitation-unsupported.error.js';
import type { FormDefinition } from '../../forms/define-form.js';
import type { FormSchema } from '../../forms/form-schema.js';
import type { FallbackRung, PageFallbackRung, UrlRequiredMode } from '../../options/client-ladder.js';
import { CallQuestions } from '../questions/call-questions.js';
import type { CompletionNotifications } from '../completion-notifications.js';
import { countedFormQuestion, statusOfAction, type MechanismTelemetry } from '../questions/form-telemetry.js';
import type { CallScope, LinkedQuestions } from '../questions/linked-questions.js';
import { QuestionEngine } from '../questions/question-engine.js';
import { RunSteps, type StepFn } from '../questions/run-steps.js';
import type { PushStepStates } from './push-step-states.js';
import { PushChannel } from './push-channel.js';
import { PushPages } from './push-pages.js';
import { PushRoom } from './push-room.js';
import { PushRungs } from './push-rungs.js';
import type { SdkRequestExtra, SdkServerLike, UrlRequiredErrorClass } from '../sdk/sdk.types.js';
import type {
  DeclaredElicitation,
  ElicitationElicitOptions,
  ApprovalOutcome,
  ApprovalRequest,
  ElicitResult,
  FormElicitationResult,
  PageOutcome,
  PushToolElicitation,
  UrlElicitationAsk,
  UrlElicitationRequest,
} from '../tool-elicitation.js';

/** What a push-mechanism elicitation needs from the module. */
export interface PushDeps {
  service: ElicitationService;
  records: ElicitationRecords;
  /** Pairs a created elicitation with this session, for the completion notification. */
  notifications: Pick<CompletionNotifications, 'track' | 'tracks'>;
  linked: LinkedQuestions;
  /** The -32042 error of the SDK line serving the call (McpServer recognises only its own class). */
  urlRequiredError: UrlRequiredErrorClass;
  /** Form answers one question takes in all (`limits.maxFormAttempts`): invalid ones are asked again. */
  maxFormAttempts: number;
  /** `limits.maxStepResultBytes`: the largest result of one step, as JSON. */
  maxStepResultBytes: number;
  /** The steps of a call across its continuation (the store's call states). */
  stepStates: PushStepStates;
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
  /** How `requireAnswer` asks on the `url` rung (`urlRequired`, the client profiles). @default 'error' */
  urlRequired?: UrlRequiredMode;
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
  /** The rules this call's questions share with the other era's. */
  private readonly questions: CallQuestions;
  private readonly channel: PushChannel;
  private readonly pages: PushPages;
  private readonly engine: QuestionEngine;
  private readonly steps: RunSteps;

  constructor(
    private readonly deps: PushDeps,
    call: PushCall,
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
    const rungs = new PushRungs({ service, records, channel: this.channel, maxFormAttempts, pendingRetryWaitMs });
    const { server, extra } = call;
    this.pages = new PushPages({ service, records, notifications: deps.notifications, linked, questions: this.questions, server, extra });
    const room = new PushRoom({
      channel: this.channel,
      rungs,
      pages: this.pages,
      questions: this.questions,
      throwRequired: (page: UrlElicitationRequest) => this.throwRequired([page]),
      urlRequired: call.urlRequired ?? 'error',
    });
    const stepLog = deps.stepStates.log(call.user, call.scope.asking);
    const engineDeps = {
      questions: this.questions,
      linked,
      records,
      scope: call.scope,
      fallback: deps.fallback,
      maxFormAttempts,
      telemetry,
      callEnds: () => stepLog.handOver(),
    };
    this.engine = new QuestionEngine(engineDeps, room);
    this.steps = new RunSteps(stepLog, deps.maxStepResultBytes);
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

  /**
   * Runs `fn` once for this call (which waits for its answers, so the body runs once) and its continuation: a call
   * that ends before its tool ran (-32042, a link) leaves its steps' results for the next call of the tool.
   */
  step<T>(name: string, fn: StepFn<T>): Promise<T> {
    return this.steps.run(name, fn);
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
  requireAnswer<T extends ElicitationData = ElicitationData>(ask: UrlElicitationAsk): Promise<T> {
    return this.engine.requireAnswer<T>(ask);
  }

  /**
   * Asks on a hosted page through the ladder and resolves how it ended. On the `url` and `form-bridge` rungs
   * the call waits until the user finishes on the page, the elicitation expires, or `timeoutMs` passes; a
   * client that declines or cancels ends the elicitation the same way.
   */
  requestApproval(request: ApprovalRequest): Promise<ApprovalOutcome> {
    return this.engine.requestApproval(request);
  }

  requestUrl<T extends ElicitationData = ElicitationData>(ask: UrlElicitationAsk & { timeoutMs?: number }): Promise<PageOutcome<T>> {
    return this.engine.requestUrl<T>(ask);
  }

  /**
   * Asks the user to fill a form and resolves the answer, validated and typed, through the ladder: form
   * mode on this tool call's own stream, else the hosted form page. An invalid answer is asked again naming
   * the fields; the `limits.maxFormAttempts`-th throws `ElicitationValidationError`: never a silent pass.
   */
  elicit<T>(message: string, form: FormDefinition<T> | FormSchema, options?: ElicitationElicitOptions): Promise<ElicitResult<T>> {
    return this.engine.elicit(message, form, options);
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
