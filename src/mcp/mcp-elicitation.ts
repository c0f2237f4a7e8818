import {
  Inject,
  Injectable,
  Logger,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { ELICITATION_RESOLVED_OPTIONS } from '../elicitation.constants.js';
import type { ResolvedElicitationOptions } from '../elicitation-options.interface.js';
import {
  ElicitationService,
  type CreateUrlElicitationInput,
  type CreatedElicitation,
} from '../elicitation.service.js';
import type { ElicitationData, ElicitationEvent, WaitOutcome } from '../elicitation.types.js';
import { ElicitationIdentityError } from '../errors/elicitation-identity.error.js';
import { ElicitationUnsupportedError } from '../errors/elicitation-unsupported.error.js';
import { ElicitationValidationError } from '../errors/elicitation-validation.error.js';
import { FormSchemaError } from '../errors/form-schema.error.js';
import { ElicitationEvents } from '../events/elicitation-events.js';
import { buildForm, isFormDefinition, type FormDefinition } from '../forms/define-form.js';
import type { FormSchema } from '../forms/form-schema.js';

/** The part of the SDK 1.x low-level `Server` the binding uses. */
export interface SdkServerLike {
  getClientCapabilities(): { elicitation?: { form?: object; url?: object } } | undefined;
  elicitInput(params: Record<string, unknown>, options?: Record<string, unknown>): Promise<{ action: string; content?: Record<string, unknown> }>;
  createElicitationCompletionNotifier(elicitationId: string): () => Promise<void>;
  onclose?: () => void;
}

/** An SDK 1.x `McpServer` (its `.server`) or the low-level `Server` itself. */
export type SdkServerOrMcpServer = SdkServerLike | { server: SdkServerLike };

/** The part of the SDK handler `extra` the binding reads. */
export interface SdkRequestExtra {
  requestId: string | number;
  signal?: AbortSignal;
  sessionId?: string;
  authInfo?: unknown;
}

/** A URL elicitation as the -32042 error and `elicitation/create` carry it. */
export interface UrlElicitationRequest extends CreatedElicitation {
  message: string;
}

/** What a tool asks for through the URL pages. The user and session come from the request. */
export type UrlElicitationAsk = Omit<CreateUrlElicitationInput, 'userId' | 'session'>;

/** The answer of a form-mode elicitation (pass-through of the SDK result, see `elicitForm`). */
export interface FormElicitationResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
}

/** The answer of `elicit`: accepted content is validated and typed; decline and cancel carry nothing. */
export type ElicitResult<T> = { action: 'accept'; content: T } | { action: 'decline' } | { action: 'cancel' };

/** What `elicit` does when the client cannot show forms. */
export type FormFallback = 'error' | 'hosted';

/** Options of `elicit`. */
export interface ElicitOptions {
  /** How long the user has to answer, in milliseconds. @default 600000 (10 minutes) */
  timeoutMs?: number;
  /** Aborting cancels the question (the tool call's own signal is always honoured too). */
  signal?: AbortSignal;
  /**
   * For a client without form support: `'error'` fails the tool with a readable message (the default);
   * `'hosted'` asks through the hosted form page (URL mode) when the client supports URL mode.
   * Forms with `secretFields` always use the hosted page: the spec forbids secrets in form mode.
   * @default 'error'
   */
  fallback?: FormFallback;
}

const DEFAULT_FORM_TIMEOUT_MS = 10 * 60_000;

type SdkTypes = typeof import('@modelcontextprotocol/sdk/types.js');

/**
 * The MCP binding for `@modelcontextprotocol/sdk` 1.x (spec 2025-11-25). Inject it, then call
 * `forRequest(server, extra)` inside a tool handler.
 *
 * It also sends `notifications/elicitation/complete` to the session that created an elicitation when
 * it finishes (only that session), and forgets the session/elicitation pairing when the elicitation
 * ends or its session closes, so a closed session is never kept in memory.
 */
@Injectable()
export class McpElicitation implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('McpElicitation');
  /** elicitationId → the session's server and its completion notifier. */
  private readonly notifiers = new Map<string, { server: SdkServerLike; notify: () => Promise<void> }>();
  /** server (one per MCP session) → the elicitation ids it waits on. */
  private readonly bySession = new Map<SdkServerLike, Set<string>>();
  private readonly hooked = new WeakSet<SdkServerLike>();
  private sdk: SdkTypes | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    readonly service: ElicitationService,
    private readonly events: ElicitationEvents,
    @Inject(ELICITATION_RESOLVED_OPTIONS) private readonly options: ResolvedElicitationOptions,
  ) {}

  async onModuleInit(): Promise<void> {
    this.unsubscribe = this.events.subscribe((event) => this.onEvent(event));
    try {
      // Loaded lazily: the SDK is an optional peer, and -32042 must be the SDK copy McpServer checks.
      this.sdk = await import('@modelcontextprotocol/sdk/types.js');
    } catch {
      this.sdk = undefined;
    }
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
    this.notifiers.clear();
    this.bySession.clear();
  }

  /** The elicitation helpers for one tool call. */
  forRequest(server: SdkServerOrMcpServer, extra: SdkRequestExtra): ToolElicitation {
    const low = 'server' in server ? server.server : server;
    return new ToolElicitation(this, low, extra, () => this.options.resolveMcpUser(extra) ?? undefined);
  }

  /** Forgets every pairing of this session (called automatically when the SDK server closes). */
  forgetSession(server: SdkServerOrMcpServer): void {
    const low = 'server' in server ? server.server : server;
    const ids = this.bySession.get(low);
    if (!ids) return;
    for (const id of ids) this.notifiers.delete(id);
    this.bySession.delete(low);
  }

  /** Number of sessions and elicitations currently paired (for leak checks). */
  get tracked(): { sessions: number; elicitations: number } {
    return { sessions: this.bySession.size, elicitations: this.notifiers.size };
  }

  /** @internal The SDK's error module, or a clear error when the SDK is not installed. */
  sdkTypes(): SdkTypes {
    if (!this.sdk) {
      throw new Error('nestjs-mcp-elicitation: install @modelcontextprotocol/sdk (1.23 or later) to use the MCP binding.');
    }
    return this.sdk;
  }

  /** @internal Pairs an elicitation with the session that will be notified when it finishes. */
  track(server: SdkServerLike, elicitationId: string): void {
    const notify = server.createElicitationCompletionNotifier(elicitationId);
    this.notifiers.set(elicitationId, { server, notify });
    let ids = this.bySession.get(server);
    if (!ids) this.bySession.set(server, (ids = new Set()));
    ids.add(elicitationId);
    if (!this.hooked.has(server)) {
      this.hooked.add(server);
      const previous = server.onclose;
      server.onclose = () => {
        this.forgetSession(server);
        previous?.call(server);
      };
    }
  }

  /** @internal Whether this elicitation is paired with this session. */
  tracks(elicitationId: string, server: SdkServerLike): boolean {
    return this.notifiers.get(elicitationId)?.server === server;
  }

  private onEvent(event: ElicitationEvent): void {
    if (event.type === 'created') return;
    const entry = this.notifiers.get(event.elicitationId);
    if (!entry) return;
    this.notifiers.delete(event.elicitationId);
    const ids = this.bySession.get(entry.server);
    ids?.delete(event.elicitationId);
    if (ids?.size === 0) this.bySession.delete(entry.server);
    // Never thrown into the request that finished the elicitation (a page submit): logged only.
    entry.notify().catch((error: unknown) => {
      this.logger.warn(
        `Could not send notifications/elicitation/complete for ${event.elicitationId}: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
  }
}

/**
 * Elicitation inside one tool call. The same tool code serves both protocol eras through
 * `requireAnswer` ("find the answer, or suspend the call until the user has given it"); the other
 * methods are the 2025-11-25 mechanics for tools that want them directly.
 */
export class ToolElicitation {
  constructor(
    private readonly binding: McpElicitation,
    private readonly server: SdkServerLike,
    private readonly extra: SdkRequestExtra,
    private readonly resolveUser: () => string | undefined,
  ) {}

  /** The verified user of this call. Throws `ElicitationIdentityError` when there is none. */
  get userId(): string {
    const user = this.resolveUser();
    if (!user) throw new ElicitationIdentityError();
    return user;
  }

  /** Whether the client declared this mode (`elicitation: {}` means form only; URL needs `url`). */
  isSupported(mode: 'form' | 'url'): boolean {
    const caps = this.server.getClientCapabilities()?.elicitation;
    if (!caps) return false;
    return mode === 'url' ? caps.url !== undefined : caps.form !== undefined || caps.url === undefined;
  }

  /**
   * Creates a URL elicitation for this call's user, paired with this session for the completion
   * notification. Requires URL-mode support.
   */
  async create(ask: UrlElicitationAsk): Promise<UrlElicitationRequest> {
    this.assertSupported('url');
    const created = await this.binding.service.createUrlElicitation({
      ...ask,
      userId: this.userId,
      session: this.extra.sessionId,
    });
    this.binding.track(this.server, created.elicitationId);
    return { ...created, message: ask.message };
  }

  /**
   * Fails the tool call with the URL-elicitation-required error (-32042) listing `elicitations`; the
   * client opens them and retries the call once notified.
   */
  throwRequired(elicitations: UrlElicitationRequest[], message = 'This request needs more information from you.'): never {
    this.assertSupported('url');
    const { UrlElicitationRequiredError } = this.binding.sdkTypes();
    throw new UrlElicitationRequiredError(
      elicitations.map((e) => ({ mode: 'url' as const, elicitationId: e.elicitationId, url: e.url, message: e.message })),
      message,
    );
  }

  /**
   * Era-independent ask: resolves the user's latest answer of `ask.type` when there is one; otherwise
   * asks for it (a URL elicitation) and suspends the call (-32042 under 2025-11-25). The tool runs
   * again from the top on the client's retry and then finds the answer, so work done before this call
   * must be safe to repeat.
   */
  async requireAnswer<T extends ElicitationData = ElicitationData>(ask: UrlElicitationAsk): Promise<T> {
    const type = ask.type ?? ask.kind;
    const found = await this.binding.service.findByUserAndType<T>(this.userId, type);
    if (found) return found.data;
    this.assertSupported('url');
    // A retry before the user answered shows the same page again rather than a new one.
    const pending = (await this.binding.service.list({ userId: this.userId, status: 'pending' }))
      .reverse()
      .find((p) => p.type === type && p.kind === ask.kind);
    const request = pending && this.binding.tracks(pending.elicitationId, this.server)
      ? { elicitationId: pending.elicitationId, url: this.binding.service.urlFor(pending.elicitationId, pending.kind), expiresAt: new Date(pending.expiresAt), message: ask.message }
      : await this.create({ ...ask, type });
    this.throwRequired([request]);
  }

  /**
   * Sends `elicitation/create` in URL mode on this call's own stream, then waits (inside the call)
   * until the user finishes on the page, the elicitation expires, or `timeoutMs` passes. A client that
   * declines or cancels the URL ends the elicitation the same way.
   */
  async requestUrl<T extends ElicitationData = ElicitationData>(
    ask: UrlElicitationAsk & { timeoutMs?: number },
  ): Promise<WaitOutcome<T>> {
    const { timeoutMs, ...rest } = ask;
    const request = await this.create(rest);
    const service = this.binding.service;
    try {
      const consent = await this.server.elicitInput(
        { mode: 'url', message: request.message, url: request.url, elicitationId: request.elicitationId },
        {
          relatedRequestId: this.extra.requestId,
          signal: this.extra.signal,
          timeout: Math.max(1, request.expiresAt.getTime() - Date.now()),
        },
      );
      if (consent.action === 'decline') {
        await service.decline(request.elicitationId);
        return { status: 'declined' };
      }
      if (consent.action !== 'accept') {
        await service.cancel(request.elicitationId);
        return { status: 'cancelled' };
      }
      const outcome = await service.waitForCompletion<T>(request.elicitationId, { timeoutMs, signal: this.extra.signal });
      if (outcome.status === 'timeout') await service.cancel(request.elicitationId);
      return outcome;
    } catch (error) {
      await service.cancel(request.elicitationId).catch(() => undefined);
      throw error;
    }
  }

  /**
   * Asks the user to fill a form and resolves the answer, validated and typed: `accept` with the content
   * (defaults applied), `decline` or `cancel`. Form mode rides this tool call's own stream; a client
   * without form support gets the `fallback`. An accepted answer that does not match the form (missing
   * required field, unknown key, wrong type, format, bound or option; also `accept` without content) throws
   * `ElicitationValidationError` listing the fields: never a silent pass.
   */
  async elicit<T>(message: string, form: FormDefinition<T> | FormSchema, options: ElicitOptions = {}): Promise<ElicitResult<T>> {
    const definition = (isFormDefinition(form) ? form : buildForm<T>(form)) as FormDefinition<T>;
    const { timeoutMs = DEFAULT_FORM_TIMEOUT_MS, fallback = 'error' } = options;
    const signal = anySignal(this.extra.signal, options.signal);
    const hosted = definition.secretFields.length > 0 || (!this.isSupported('form') && fallback === 'hosted');
    if (hosted) {
      if (!this.isSupported('url')) {
        if (definition.secretFields.length > 0) {
          throw new FormSchemaError(
            definition.secretFields[0],
            'is a secret, which may only be collected on the hosted form page (URL mode), and this client does not support URL mode',
          );
        }
        throw new ElicitationUnsupportedError('form');
      }
      const outcome = await this.requestUrl<Record<string, unknown>>({ kind: 'form', form: definition, message, timeoutMs });
      if (outcome.status === 'completed') return { action: 'accept', content: outcome.data as T };
      return outcome.status === 'declined' ? { action: 'decline' } : { action: 'cancel' };
    }
    this.assertSupported('form');
    const result = await this.server.elicitInput(
      { mode: 'form', message, requestedSchema: definition.schema },
      { relatedRequestId: this.extra.requestId, signal, timeout: timeoutMs },
    );
    if (result.action === 'decline') return { action: 'decline' };
    if (result.action !== 'accept') return { action: 'cancel' };
    const checked = definition.validate(result.content);
    if (!checked.ok) throw new ElicitationValidationError(checked.issues);
    return { action: 'accept', content: checked.value };
  }

  /**
   * Form mode, passed through to the SDK (no validation beyond the SDK's; prefer `elicit`): sends `elicitation/create` in form mode on this
   * call's own stream and resolves the client's answer. The default timeout is 10 minutes.
   */
  async elicitForm(
    message: string,
    requestedSchema: Record<string, unknown>,
    { timeoutMs = 10 * 60_000 }: { timeoutMs?: number } = {},
  ): Promise<FormElicitationResult> {
    this.assertSupported('form');
    const result = await this.server.elicitInput(
      { mode: 'form', message, requestedSchema },
      { relatedRequestId: this.extra.requestId, signal: this.extra.signal, timeout: timeoutMs },
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
