import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { ELICITATION_RESOLVED_OPTIONS } from '../elicitation.constants.js';
import type { ResolvedElicitationOptions } from '../elicitation-options.interface.js';
import { ElicitationService, type CreatedElicitation } from '../elicitation.service.js';
import type { ElicitationData, ElicitationEvent, WaitOutcome } from '../elicitation.types.js';
import { ElicitationIdentityError } from '../errors/elicitation-identity.error.js';
import { ElicitationUnsupportedError } from '../errors/elicitation-unsupported.error.js';
import { ElicitationValidationError } from '../errors/elicitation-validation.error.js';
import { FormSchemaError } from '../errors/form-schema.error.js';
import { ElicitationEvents } from '../events/elicitation-events.js';
import { buildForm, isFormDefinition, type FormDefinition } from '../forms/define-form.js';
import type { FormSchema } from '../forms/form-schema.js';
import { ElicitationStore } from '../stores/elicitation-store.js';
import { InputRequiredSignal, type InputRequiredResult } from './input-required.js';
import { ModernToolElicitation, type DeclaredElicitation, type ModernDeps } from './modern-tool-elicitation.js';
import { digestOf, RequestStateCodec, RequestStateError, type RequestStatePayload } from './request-state.js';
import type { ElicitOptions, ElicitResult, ToolElicitation, UrlElicitationAsk } from './tool-elicitation.js';

export type { ElicitOptions, ElicitResult, FormFallback, ToolElicitation, UrlElicitationAsk } from './tool-elicitation.js';

/** The part of the SDK low-level `Server` (1.x, or 2.x on a 2025-11-25 connection) the binding uses. */
export interface SdkServerLike {
  getClientCapabilities(): { elicitation?: { form?: object; url?: object } } | undefined;
  elicitInput(
    params: Record<string, unknown>,
    options?: Record<string, unknown>,
  ): Promise<{ action: string; content?: Record<string, unknown> }>;
  createElicitationCompletionNotifier(elicitationId: string): () => Promise<void>;
  onclose?: () => void;
}

/** An SDK `McpServer` (its `.server`) or the low-level `Server` itself. */
export type SdkServerOrMcpServer = SdkServerLike | { server: SdkServerLike };

/** The part of the SDK 1.x handler `extra` the binding reads. */
export interface SdkRequestExtra {
  requestId: string | number;
  signal?: AbortSignal;
  sessionId?: string;
  authInfo?: unknown;
}

/** The part of the SDK 2.x handler context (`ctx`) the binding reads. */
export interface SdkV2Context {
  sessionId?: string;
  mcpReq: {
    id: string | number;
    method: string;
    signal?: AbortSignal;
    envelope?: Record<string, unknown>;
    inputResponses?: Record<string, unknown>;
    requestState(): unknown;
  };
  http?: { authInfo?: unknown; req?: { headers?: { get(name: string): string | null } } };
}

/** The constructor of an SDK's `UrlElicitationRequiredError` (-32042). */
export type UrlRequiredErrorClass = new (
  elicitations: Array<{ mode: 'url'; elicitationId: string; url: string; message: string }>,
  message?: string,
) => Error;

/** A tool body written once for both protocol eras: the arguments, the elicitation, the SDK's own context. */
export type ElicitingToolHandler<A, R> = (args: A, elicitation: ToolElicitation, context: unknown) => R | Promise<R>;

/** A URL elicitation as the -32042 error and `elicitation/create` carry it. */
export interface UrlElicitationRequest extends CreatedElicitation {
  message: string;
}

/** The answer of a form-mode elicitation (pass-through of the SDK result, see `elicitForm`). */
export interface FormElicitationResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
}

const DEFAULT_FORM_TIMEOUT_MS = 10 * 60_000;
const CLIENT_CAPABILITIES_META_KEY = 'io.modelcontextprotocol/clientCapabilities';

type SdkV1Types = typeof import('@modelcontextprotocol/sdk/types.js');
type SdkV2Server = typeof import('@modelcontextprotocol/server');

/**
 * The MCP binding, for both SDK lines and both protocol eras:
 *
 * - `tool(server, name, handler)` wraps a tool body written once: on a 2025-11-25 connection (SDK 1.x,
 *   or SDK 2.x serving a legacy session) questions are pushed and awaited; on a 2026-07-28 request
 *   (SDK 2.x) an unanswered question ends the call with `input_required` and a sealed `requestState`,
 *   and the retry resumes it. `serverOptions()` goes into SDK 2.x `new McpServer(info, options)` so a
 *   bad state is refused with a JSON-RPC error before the tool runs.
 * - `forRequest(server, extra)` gives the 2025-11-25 mechanics directly (SDK 1.x).
 *
 * It also sends `notifications/elicitation/complete` to the session that created an elicitation when
 * it finishes (only that session; 2025-11-25), and forgets the session/elicitation pairing when the
 * elicitation ends or its session closes, so a closed session is never kept in memory.
 */
@Injectable()
export class McpElicitation implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('McpElicitation');
  /** elicitationId → the session's server and its completion notifier. */
  private readonly notifiers = new Map<string, { server: SdkServerLike; notify: () => Promise<void> }>();
  /** server (one per MCP session) → the elicitation ids it waits on. */
  private readonly bySession = new Map<SdkServerLike, Set<string>>();
  private readonly hooked = new WeakSet<SdkServerLike>();
  /** States this binding opened and checked (so a value another `requestState` hook resolved is not taken for one). */
  private readonly verified = new WeakSet<RequestStatePayload>();
  private readonly codec: RequestStateCodec;
  private readonly modern: ModernDeps;
  private sdkV1: SdkV1Types | undefined;
  private sdkV2: SdkV2Server | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    readonly service: ElicitationService,
    private readonly events: ElicitationEvents,
    private readonly store: ElicitationStore,
    @Inject(ELICITATION_RESOLVED_OPTIONS) private readonly options: ResolvedElicitationOptions,
  ) {
    this.codec = new RequestStateCodec(options.encryptionKeys);
    this.modern = {
      service,
      codec: this.codec,
      requestStateTtlMs: options.requestStateTtlMs,
      pendingRetryWaitMs: options.pendingRetryWaitMs,
      maxFormAttempts: options.limits.maxFormAttempts,
    };
  }

  async onModuleInit(): Promise<void> {
    this.unsubscribe = this.events.subscribe((event) => this.onEvent(event));
    // Loaded lazily: both SDK lines are optional peers, and -32042 must be the copy McpServer checks.
    this.sdkV1 = await import('@modelcontextprotocol/sdk/types.js').catch(() => undefined);
    this.sdkV2 = await import('@modelcontextprotocol/server').catch(() => undefined);
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
    this.notifiers.clear();
    this.bySession.clear();
  }

  /**
   * Wraps a tool body written once for both eras into an SDK tool callback (1.x or 2.x, with or without
   * an input schema). `name` must be the tool's registered name: a 2026-07-28 `requestState` is bound to
   * it and to the arguments.
   */
  tool<A = unknown, R = unknown>(
    server: SdkServerOrMcpServer,
    name: string,
    handler: ElicitingToolHandler<A, R>,
  ): (...params: unknown[]) => Promise<R | InputRequiredResult> {
    return async (...params: unknown[]) => {
      // SDK callbacks are (args, ctx), or (ctx) for tools without an input schema.
      const [args, context] = params.length >= 2 && params[1] !== undefined ? [params[0] as A, params[1]] : [undefined as A, params[0]];
      if (!isV2Context(context)) return handler(args, this.forRequest(server, context as SdkRequestExtra), context);
      if (!context.mcpReq.envelope) return handler(args, this.legacyV2(server, context), context);
      const elicitation = await this.modernElicitation(context, name, args);
      try {
        return await handler(args, elicitation, context);
      } catch (error) {
        if (error instanceof InputRequiredSignal) return error.result;
        throw error;
      }
    };
  }

  /**
   * Registers a tool written once for both eras on an SDK `McpServer` (1.x or 2.x): `config` is what
   * the SDK's `registerTool` takes (give `inputSchema` as a zod object, which both lines accept).
   */
  registerTool<A = unknown, R = unknown>(
    server: { registerTool(name: string, config: never, callback: never): unknown },
    name: string,
    config: Record<string, unknown>,
    handler: ElicitingToolHandler<A, R>,
  ): void {
    const register = server.registerTool as (name: string, config: unknown, callback: unknown) => unknown;
    register.call(server, name, config, this.tool(server as unknown as SdkServerOrMcpServer, name, handler));
  }

  /**
   * Options for SDK 2.x `new McpServer(info, { ...elicitation.serverOptions() })`: the `requestState`
   * hook that opens the sealed state before the tool runs, so a tampered, expired, already used or
   * other user's state gets a JSON-RPC error (-32602) and the tool never runs.
   */
  serverOptions(): { requestState: { verify: (state: string, ctx: unknown) => Promise<RequestStatePayload> } } {
    return { requestState: { verify: (state, ctx) => this.verifyRequestState(state, ctx as SdkV2Context) } };
  }

  /**
   * Opens a `requestState` and checks everything the request alone tells: AEAD seal, expiry, the same
   * verified user and method, the tool (from the validated `Mcp-Name` header, over HTTP), and that it was
   * not used before (across instances on a shared store). It does not use the state up: the tool wrapper
   * redeems it once it has also matched the arguments, so a refused call leaves it as it was. Throws
   * `RequestStateError` (the reason is for logs; clients get one generic error).
   */
  async verifyRequestState(state: unknown, ctx: SdkV2Context): Promise<RequestStatePayload> {
    try {
      const payload = this.codec.open(state, { user: this.mcpUser(ctx) ?? '', method: ctx.mcpReq.method, now: Date.now() });
      // Over HTTP the SDK has already matched the Mcp-Name header against params.name, so the tool can be
      // checked here too (a JSON-RPC error); the arguments are checked by the tool wrapper, which sees them.
      const name = ctx.http?.req?.headers?.get('mcp-name');
      if (typeof name === 'string' && name !== payload.n && decodeHeaderValue(name) !== payload.n) throw new RequestStateError('tool');
      const used = await this.store.peekHits?.(this.redemptionKey(payload), this.options.requestStateTtlMs, payload.e);
      if (used) throw new RequestStateError('replayed');
      this.verified.add(payload);
      return payload;
    } catch (error) {
      if (error instanceof RequestStateError) this.logger.debug(`requestState refused on ${ctx.mcpReq.method}: ${error.reason}`);
      throw error;
    }
  }

  /**
   * Uses up a state `verifyRequestState` opened, once it matches the call: the tool `name` and a digest of
   * its `args`. A state that does not match is refused and left as it was. Single use: one counter per
   * state id; its window is pinned to the state's own expiry (passed as the counter's clock, with a window
   * as long as a state's whole life), so every redemption of one state lands in the same window whenever
   * it comes, and the counter outlives the state. Of two retries racing with one state, the second is
   * refused here. The tool wrapper (`tool`) calls it for you.
   */
  async redeemRequestState(payload: RequestStatePayload, name: string, args: unknown): Promise<void> {
    if (!this.verified.has(payload)) throw new RequestStateError('malformed');
    RequestStateCodec.checkCall(payload, name, args);
    const redeemed = await this.store.hit(this.redemptionKey(payload), this.options.requestStateTtlMs, payload.e);
    if (redeemed.count > 1) throw new RequestStateError('replayed');
  }

  private redemptionKey(payload: RequestStatePayload): string {
    return `request-state:${payload.j}`;
  }

  /**
   * A sealed `requestState` for your own 2026-07-28 input requests (sampling, roots, several at once):
   * bound to this call's user, method, `name` and `args`, single use, expiring after `requestStateTtlMs`.
   * Return it in your `input_required` result; on the retry the wrapper (`tool`) and `serverOptions()`
   * verify it like the library's own, and the state carries no data of yours.
   */
  sealRequestState(ctx: SdkV2Context, name: string, args: unknown): string {
    const now = Date.now();
    return this.codec.seal({
      v: 1,
      j: RequestStateCodec.newId(),
      u: this.mcpUser(ctx) ?? '',
      m: ctx.mcpReq.method,
      n: name,
      a: digestOf(args ?? {}),
      e: now + this.options.requestStateTtlMs,
      d: [],
    });
  }

  /** The elicitation helpers for one tool call on a 2025-11-25 connection (SDK 1.x). */
  forRequest(server: SdkServerOrMcpServer, extra: SdkRequestExtra): LegacyToolElicitation {
    const low = 'server' in server ? server.server : server;
    return new LegacyToolElicitation(this, low, extra, () => this.options.resolveMcpUser(extra) ?? undefined, this.urlRequiredError('v1'));
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

  /** SDK 2.x serving a 2025-11-25 session: the push mechanics, with the 2.x context read as a 1.x extra. */
  private legacyV2(server: SdkServerOrMcpServer, ctx: SdkV2Context): LegacyToolElicitation {
    const low = 'server' in server ? server.server : server;
    const extra: SdkRequestExtra = {
      requestId: ctx.mcpReq.id,
      signal: ctx.mcpReq.signal,
      sessionId: ctx.sessionId,
      authInfo: ctx.http?.authInfo,
    };
    return new LegacyToolElicitation(this, low, extra, () => this.options.resolveMcpUser(extra) ?? undefined, this.urlRequiredError('v2'));
  }

  /** A 2026-07-28 call: everything from this request's `_meta`, `inputResponses` and verified state. */
  private async modernElicitation(ctx: SdkV2Context, name: string, args: unknown): Promise<ModernToolElicitation> {
    const raw = ctx.mcpReq.requestState();
    // With serverOptions() the SDK already verified the state; without it, it is verified here. Any other
    // value (another hook's result) is not ours to trust.
    const state = typeof raw === 'string' ? await this.verifyRequestState(raw, ctx) : (raw as RequestStatePayload | undefined);
    if (state !== undefined) {
      try {
        await this.redeemRequestState(state, name, args);
      } catch (error) {
        // The SDK turns errors thrown here into a tool error result (isError); the text stays generic.
        if (error instanceof RequestStateError) this.logger.debug(`requestState refused on ${ctx.mcpReq.method} ${name}: ${error.reason}`);
        throw error;
      }
    }
    const capabilities = ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY] as { elicitation?: DeclaredElicitation } | undefined;
    return new ModernToolElicitation(this.modern, {
      user: this.mcpUser(ctx),
      elicitation: capabilities?.elicitation,
      inputResponses: ctx.mcpReq.inputResponses,
      state,
      method: ctx.mcpReq.method,
      name,
      args,
      signal: ctx.mcpReq.signal,
    });
  }

  private mcpUser(ctx: SdkV2Context): string | undefined {
    return this.options.resolveMcpUser({ requestId: ctx.mcpReq.id, sessionId: ctx.sessionId, authInfo: ctx.http?.authInfo }) ?? undefined;
  }

  /** The -32042 error class of an SDK line, or a clear error when that line is not installed. */
  private urlRequiredError(line: 'v1' | 'v2'): UrlRequiredErrorClass {
    const sdk = line === 'v1' ? this.sdkV1 : this.sdkV2;
    if (sdk) return sdk.UrlElicitationRequiredError as unknown as UrlRequiredErrorClass;
    return class MissingSdk extends Error {
      constructor() {
        super(
          line === 'v1'
            ? 'nestjs-mcp-elicitation: install @modelcontextprotocol/sdk (1.23 or later) to use the MCP binding with SDK 1.x.'
            : 'nestjs-mcp-elicitation: install @modelcontextprotocol/server (2.x) to use the MCP binding with SDK 2.x.',
        );
      }
    };
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
 * Elicitation inside one tool call on a 2025-11-25 connection: questions are pushed to the client
 * (`elicitation/create` on the call's own stream) and awaited inside the call; `requireAnswer` suspends
 * the call with -32042 instead. `create`, `throwRequired` and `elicitForm` are the raw mechanics for
 * tools that want them directly.
 */
export class LegacyToolElicitation implements ToolElicitation {
  readonly era = '2025-11-25' as const;

  constructor(
    private readonly binding: McpElicitation,
    private readonly server: SdkServerLike,
    private readonly extra: SdkRequestExtra,
    private readonly resolveUser: () => string | undefined,
    /** The -32042 error of the SDK line serving the call (McpServer recognises only its own class). */
    private readonly urlRequiredError: UrlRequiredErrorClass,
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
    throw new this.urlRequiredError(
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
    const request =
      pending && this.binding.tracks(pending.elicitationId, this.server)
        ? {
            elicitationId: pending.elicitationId,
            url: this.binding.service.urlFor(pending.elicitationId, pending.kind),
            expiresAt: new Date(pending.expiresAt),
            message: ask.message,
          }
        : await this.create({ ...ask, type });
    this.throwRequired([request]);
  }

  /**
   * Sends `elicitation/create` in URL mode on this call's own stream, then waits (inside the call)
   * until the user finishes on the page, the elicitation expires, or `timeoutMs` passes. A client that
   * declines or cancels the URL ends the elicitation the same way.
   */
  async requestUrl<T extends ElicitationData = ElicitationData>(ask: UrlElicitationAsk & { timeoutMs?: number }): Promise<WaitOutcome<T>> {
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

/** Whether a tool callback's context comes from SDK 2.x (it has `mcpReq`; 1.x has `requestId`). */
function isV2Context(context: unknown): context is SdkV2Context {
  return !!context && typeof context === 'object' && typeof (context as SdkV2Context).mcpReq?.requestState === 'function';
}

/** A header value as MCP encodes names that are not header-safe: `=?base64?...?=`. */
function decodeHeaderValue(value: string): string | undefined {
  const match = /^=\?base64\?(.*)\?=$/i.exec(value);
  return match ? Buffer.from(match[1], 'base64').toString('utf8') : undefined;
}
