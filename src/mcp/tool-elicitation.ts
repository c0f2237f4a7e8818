import type { CreatedElicitation } from '../lifecycle/elicitation.service.js';
import type { CreateUrlElicitationInput } from '../lifecycle/create-input.validation.js';
import type { ApprovalInput } from '../lifecycle/approval-plan.js';
import type { FormDefinition } from '../forms/define-form.js';
import type { ElicitationData, WaitOutcome } from '../core/elicitation.types.js';
import type { DeclaredElicitation, FallbackRung, PageFallbackRung } from '../options/client-ladder.js';
import type { ZodFormSchema } from '../forms/zod-form.js';
import type { FormSchema } from '../forms/form-schema.js';
import type { StepFn } from './questions/run-steps.js';

/** What a tool asks for through the URL pages. The user (and session) come from the request. */
export type UrlElicitationAsk = Omit<CreateUrlElicitationInput, 'userId' | 'session' | 'askKey'> & {
  /**
   * The rungs this question may take, in order, for clients that cannot take the first (see "Clients" in
   * the README). @default the module's `fallback.page`, itself `['url', 'form-bridge', 'link']`
   */
  fallback?: PageFallbackRung[];
};

/**
 * The answer of `elicit`: accepted content is validated and typed; decline and cancel carry nothing. `via`
 * names the rung that carried the question (`form`, `url`, `form-bridge`, `link`, `model`).
 */
export type ElicitResult<T> = ({ action: 'accept'; content: T } | { action: 'decline' } | { action: 'cancel' }) & { via?: FallbackRung };

/** How a page question ended (`requestUrl`), and through which rung (`via`). */
export type PageOutcome<T extends ElicitationData = ElicitationData> = WaitOutcome<T> & { via?: PageFallbackRung };

/** Who may approve, for `requestApproval`: user ids, or a function of the call (the app's groups). */
export type ApproversOf =
  readonly string[] | ((call: { userId: string; tool?: string; args?: unknown }) => readonly string[] | Promise<readonly string[]>);

/** What `requestApproval` asks for. */
export interface ApprovalRequest {
  /** The users who may approve, each on a confirm page of their own (through the inbox and the notifiers). */
  approvers: ApproversOf;
  /** How many distinct approvers must approve. @default 1 */
  quorum?: number;
  /** What is asked, shown on every approver's page and to the requester. */
  message: string;
  /** More about the action for the approvers, plain text. */
  details?: string;
  /** The requester (the call's user) never counts toward the quorum unless this is `false`. @default true */
  excludeRequester?: boolean;
  /** How many rejections end it as rejected. @default 1 */
  rejectionsToDeny?: number;
  /**
   * `passkey`: each approver signs their approval with a passkey, bound to this call's tool and arguments; or per
   * approver (`{ bob: 'passkey' }`, the others click). @default `click`
   */
  presence?: ApprovalInput['presence'];
  /** How long the approvers have, in milliseconds. @default the module's `ttlMs` */
  ttlMs?: number;
  /** The rungs the requester's side takes (the page of where the approval stands). @default the module's `fallback.page` */
  fallback?: PageFallbackRung[];
}

/**
 * How an approval ended: `approved` once `quorum` approvers approved, `rejected` at `rejectionsToDeny` rejections,
 * `expired` when the approvers did not decide in time (silence never approves), `cancelled`; `timeout` where the call
 * stopped waiting. `hash` is the action's (tool and arguments), which the approvers saw.
 */
export interface ApprovalOutcome {
  status: 'approved' | 'rejected' | 'expired' | 'cancelled' | 'timeout';
  /** `approved`: who, in the order they decided. */
  approvedBy?: string[];
  hash?: string;
  via?: PageFallbackRung;
}

/** Options of `elicit`. */
export interface ElicitationElicitOptions {
  /** How long the user has to answer, in milliseconds (2025-11-25, where the call waits). @default 600000 (10 minutes) */
  timeoutMs?: number;
  /** Aborting cancels the question (the tool call's own signal is always honoured too). */
  signal?: AbortSignal;
  /**
   * The rungs this question may take, in order: `form` (form mode), `url` (the hosted form page in URL
   * mode), `form-bridge`, `link`, `model` (opt-in; refused for forms with secret fields), `error`. Forms
   * with `secretFields` never take `form`: the spec forbids secrets in form mode.
   * @default the module's `fallback.form`, itself `['form', 'url', 'link']`
   */
  fallback?: FallbackRung[];
  /**
   * 2026-07-28: the `inputRequests` key this question is sent under.
   * @default `elicitation-<n>`, n counting the tool's questions from 1
   */
  key?: string;
}

/**
 * Elicitation inside one tool call, the same for both protocol eras. Under 2025-11-25 the questions are
 * pushed to the client and awaited inside the call (`requireAnswer` suspends with -32042 instead).
 * Under 2026-07-28 an unanswered question ends the call with `input_required`; the client retries and
 * the tool runs again from the top, finding the answers of earlier rounds: **work done before a
 * question must be safe to repeat.**
 */
export interface ToolElicitation {
  /** The protocol revision this call is served under. */
  readonly era: '2025-11-25' | '2026-07-28';
  /** The verified user of this call. Throws `ElicitationIdentityError` when there is none. */
  readonly userId: string;
  /**
   * Whether the client declared this mode (`elicitation: {}` means form only; URL needs `url`), after the
   * module's `clientPolicy`.
   */
  isSupported(mode: 'form' | 'url'): boolean;
  /**
   * Asks the user to fill a form (a declared form, a Zod object, or a raw schema); resolves the answer
   * validated and typed (`accept` with the content, defaults applied; a Zod object's answer is its
   * `z.infer` type, checked by its refinements too), or `decline` / `cancel`. A client without form mode gets
   * the next rung of `options.fallback`.
   */
  elicit<T>(
    message: string,
    form: FormDefinition<T> | ZodFormSchema<T> | FormSchema,
    options?: ElicitationElicitOptions,
  ): Promise<ElicitResult<T>>;
  /**
   * Resolves the user's latest answer of `ask.type` (default: the kind) when there is one; otherwise asks
   * for it on a hosted page (through the ladder: URL mode, the form bridge, a link) and resumes once the
   * user has submitted it. Throws `ElicitationNotAnsweredError` when the user declined or it expired.
   */
  requireAnswer<T extends ElicitationData = ElicitationData>(ask: UrlElicitationAsk): Promise<T>;
  /**
   * Asks through a hosted page (through the ladder) and resolves how it ended (`completed` with the data,
   * `declined`, ...) and the rung that carried it (`via`).
   */
  requestUrl<T extends ElicitationData = ElicitationData>(ask: UrlElicitationAsk & { timeoutMs?: number }): Promise<PageOutcome<T>>;
  /**
   * Asks `quorum` distinct `approvers` to approve this call (the tool and its exact arguments, hashed): each gets a
   * confirm page of their own; the requester waits as on a page question (the page shows where the approval stands)
   * and the tool goes on once the approval is decided: `approved`, or `rejected` at the first rejection (or
   * `rejectionsToDeny`), or `expired`: silence never approves. The requester never approves their own call unless
   * `excludeRequester: false`. One approval runs the tool once, as every answer does.
   */
  requestApproval(request: ApprovalRequest): Promise<ApprovalOutcome>;
  /**
   * From here the call continues as a task (a tool registered with `execution.taskSupport` and `taskStart:
   * 'continueAsTask'`, on a 2026-07-28 request that declared the Tasks extension): the call answers with the new task
   * at once, and the task runs the body again from the top with the answers gathered so far. Questions before it
   * are asked in `input_required` rounds. Anywhere else (a plain call, 2025-11-25, inside a task) it resolves at once.
   */
  continueAsTask(): Promise<void>;
  /**
   * Runs `fn` once for this task (or call), however often the body runs again from the top: the first time `name` is
   * reached, `fn({ idempotencyKey })` runs and its JSON result is recorded (a task writes it to the store, fenced by
   * its lease, before the body goes on; a 2026-07-28 call carries it, sealed, in its `requestState`); every later run
   * resolves the recorded result without calling `fn`. Put each outside effect the tool makes before a question
   * (create the ticket, then ask for approval) in a step. `idempotencyKey` is stable for this step of this task (or
   * call): pass it to the API the step calls, so a step whose effect went out but was never recorded (the instance
   * died in between) is not done twice. Names are unique in a run; results are at most `limits.maxStepResultBytes`
   * of JSON. On 2025-11-25 the call waits for its answers, so the body runs once; a call that ends before its tool ran
   * (-32042, a link) leaves its steps' results in the store for its continuation, which gets them back.
   */
  step<T>(name: string, fn: StepFn<T>): Promise<T>;
}

/** A URL elicitation as the -32042 error and `elicitation/create` carry it. */
export interface UrlElicitationRequest extends CreatedElicitation {
  message: string;
}

/** The answer of a form-mode elicitation (pass-through of the SDK result, see `elicitForm`). */
export interface FormElicitationResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
}

/**
 * The push mechanism (protocol 2025-11-25) also offers the raw steps, for tools that want them directly:
 * what `McpElicitation.forRequest` returns.
 */
export interface PushToolElicitation extends ToolElicitation {
  readonly era: '2025-11-25';
  /** Creates a URL elicitation for this call's user, paired with this session for the completion notification. */
  create(ask: UrlElicitationAsk): Promise<UrlElicitationRequest>;
  /** Fails the tool call with the URL-elicitation-required error (-32042) listing `elicitations`. */
  throwRequired(elicitations: UrlElicitationRequest[], message?: string): never;
  /** Form mode passed through to the SDK (no validation beyond the SDK's; prefer `elicit`). */
  elicitForm(message: string, requestedSchema: Record<string, unknown>, options?: { timeoutMs?: number }): Promise<FormElicitationResult>;
}

export type { DeclaredElicitation };
export type { StepContext, StepFn } from './questions/run-steps.js';
