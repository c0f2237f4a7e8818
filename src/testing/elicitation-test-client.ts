/**
 * A real MCP client for tool authors' tests: the SDK 1.x client on 2025-11-25 or the SDK 2.x client pinned to
 * 2026-07-28, over Streamable HTTP, recording every page URL and question it is sent. Both SDKs are optional
 * peers, loaded here on first use, so `nestjs-mcp-elicitation/testing` imports neither.
 */

/** One `elicitation/create` the client received, as the server sent it (pushed, or inside `input_required`). */
export interface TestElicitRequest {
  /** `form` when the server sent no mode (the spec's default). */
  mode: 'form' | 'url';
  message: string;
  /** URL mode: the page to open. */
  url?: string;
  /** URL mode on 2025-11-25: the id `notifications/elicitation/complete` will name (2026-07-28 sends none). */
  elicitationId?: string;
  /** Form mode: the fields asked for (the spec's restricted schema). */
  requestedSchema?: { type: 'object'; properties: Record<string, object>; required?: string[] };
}

/** How the client answers an `elicitation/create`: the spec's `ElicitResult`. */
export interface TestElicitAnswer {
  action: 'accept' | 'decline' | 'cancel';
  /** Form mode, with `accept`: the answer to each field. */
  content?: Record<string, string | number | boolean | string[]>;
}

/** A `tools/call` result as the SDK returned it. */
export interface TestToolResult {
  /** The content blocks: `text` on text blocks, `uri` on resource links. */
  content: Array<{ type: string; text?: string; uri?: string; [key: string]: unknown }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/** Options of {@link createElicitationTestClient}. */
export interface ElicitationTestClientOptions {
  /** The MCP endpoint (Streamable HTTP), e.g. `http://127.0.0.1:3000/mcp`. */
  url: string;
  /**
   * The protocol era to speak: `'2025-11-25'` (SDK 1.x, `@modelcontextprotocol/sdk`: a session, pushed
   * questions, -32042, completion notifications) or `'2026-07-28'` (SDK 2.x, `@modelcontextprotocol/client`,
   * pinned: `input_required` results answered through `answer`, and the call retried, inside `callTool`).
   */
  era: '2025-11-25' | '2026-07-28';
  /**
   * The elicitation capability to declare: the modes set to `true` (`{ form: true }` declares
   * `elicitation: { form: {} }`; `{}` declares `elicitation: {}`, which servers read as form only), or
   * `'none'` for no elicitation capability at all.
   * @default { form: true, url: true }
   */
  capabilities?: { form?: boolean; url?: boolean } | 'none';
  /** Sent as `Authorization: Bearer <user>` on every MCP request. @default none */
  user?: string;
  /** Further headers on every MCP request (e.g. your own authorization); an `Authorization` here replaces `user`'s. @default none */
  headers?: Record<string, string>;
  /**
   * Answers every `elicitation/create` the client receives, in form and URL mode (recorded in `requests`
   * before it is called). @default accept URL-mode requests, decline form-mode ones
   */
  answer?: (request: TestElicitRequest) => TestElicitAnswer | Promise<TestElicitAnswer>;
  /** The client's `clientInfo`. @default { name: 'nestjs-mcp-elicitation-test-client', version: '1.0.0' } */
  clientInfo?: { name: string; version: string };
}

/** Options of one {@link ElicitationTestClient.callTool} call. */
export interface TestCallOptions {
  /** How long the SDK waits for the call (2026-07-28: for each round). @default the SDK's (60 s) */
  timeoutMs?: number;
}

/** A connected test client and what it recorded. */
export interface ElicitationTestClient {
  /** The protocol era this client speaks. */
  readonly era: '2025-11-25' | '2026-07-28';
  /**
   * Calls a tool and resolves its result (a tool error is a result with `isError: true`). On 2026-07-28
   * every `input_required` round is answered through `answer` and retried inside the call. On 2025-11-25 a
   * -32042 (URL elicitation required) rejects with the SDK's own `UrlElicitationRequiredError`, as a real
   * client sees it, after its URLs were recorded in `urls`. Page URLs in the result are recorded too.
   */
  callTool(name: string, args?: Record<string, unknown>, options?: TestCallOptions): Promise<TestToolResult>;
  /**
   * Every page URL the client was sent, in order, without consecutive repeats: URL-mode requests' `url`,
   * page URLs in form-mode messages, -32042 error data, and tool results (page URLs in text and resource
   * links, `structuredContent.url`, a `url` in `_meta` or in one of its entries).
   */
  readonly urls: readonly string[];
  /** The last of `urls`, or `undefined`. */
  lastUrl(): string | undefined;
  /**
   * Resolves with the first page URL the client was sent since the latest `callTool` began (at once if it
   * already was, even when it repeated the previous one); rejects after `ms`. For calls that wait for the
   * page: URL-mode questions of 2026-07-28 calls and `requestUrl` on 2025-11-25.
   */
  waitForUrl(ms?: number): Promise<string>;
  /** Every `elicitation/create` received, in order. */
  readonly requests: readonly TestElicitRequest[];
  /** The `elicitationId` of every `notifications/elicitation/complete` received, in order (2025-11-25 only). */
  readonly completions: readonly string[];
  /** Resolves once the completion notification of `id` has arrived (at once if it has); rejects after `ms`. */
  completion(id: string, ms?: number): Promise<void>;
  /** Ends the 2025-11-25 session (`DELETE`) and closes the client; rejects pending waits. */
  close(): Promise<void>;
}

/** How long a wait for a URL or a notification lasts by default, and the wait for the session's GET stream. */
const DEFAULT_WAIT_MS = 5_000;
const DEFAULT_CLIENT_INFO = { name: 'nestjs-mcp-elicitation-test-client', version: '1.0.0' };
/** JSON-RPC code of the 2025-11-25 "URL elicitation required" error. */
const URL_ELICITATION_REQUIRED = -32042;
/**
 * A page URL of the module, under any route prefix: `…/<uuid>/<page>`. Global: every match of a text.
 */
const PAGE_URL =
  /https?:\/\/[^\s"'<>()[\]]+?\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\/(?:api-key|confirm|form|oauth|file|external)(?![\w-])/gi;

const MISSING_SDK = {
  '2025-11-25': 'install @modelcontextprotocol/sdk (1.23 or later) to create a 2025-11-25 test client',
  '2026-07-28': 'install @modelcontextprotocol/client (2.4 or later) to create a 2026-07-28 test client',
} as const;

/** The loose shape both SDK lines hand an `elicitation/create` handler (their unions are assignable to it). */
interface SdkElicitParams {
  mode?: string;
  message: string;
  url?: string;
  elicitationId?: string;
  requestedSchema?: { type: 'object'; properties: Record<string, object>; required?: string[] };
}

/** An answer as the SDKs type it (an object literal type: their result types carry an index signature). */
type SdkElicitResult = { action: TestElicitAnswer['action']; content?: TestElicitAnswer['content'] };

/** What an era's connection gives the client: a raw call and a close. */
interface Connection {
  call(name: string, args: Record<string, unknown>, timeoutMs: number | undefined): Promise<unknown>;
  close(): Promise<void>;
}

/** What an era's connect function needs: the options and the recorder's entry points. */
interface ConnectDeps {
  options: ElicitationTestClientOptions;
  headers: Record<string, string>;
  /** `elicitation: {...}` to declare, or `undefined` for none. */
  elicitation: { form?: Record<string, never>; url?: Record<string, never> } | undefined;
  onElicit(params: SdkElicitParams): Promise<SdkElicitResult>;
  onCompletion(elicitationId: string): void;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * Connects a real MCP client to `options.url` in the given era. The SDK of that era must be installed
 * (`@modelcontextprotocol/sdk` for 2025-11-25, `@modelcontextprotocol/client` for 2026-07-28); it is
 * loaded on the first call, so importing `nestjs-mcp-elicitation/testing` never loads either.
 *
 * On 2025-11-25 it resolves once the session's GET stream (where completion notifications travel) has
 * answered, or after 5 s if it never does.
 */
export async function createElicitationTestClient(options: ElicitationTestClientOptions): Promise<ElicitationTestClient> {
  if (options.era !== '2025-11-25' && options.era !== '2026-07-28') {
    throw new Error(`createElicitationTestClient: era must be '2025-11-25' or '2026-07-28', got ${JSON.stringify(options.era)}.`);
  }
  const recorder = new TestClientRecorder();
  const answer = options.answer ?? defaultAnswer;
  const deps: ConnectDeps = {
    options,
    headers: requestHeaders(options),
    elicitation: elicitationCapability(options.capabilities),
    onElicit: async (params) => {
      const request = toTestRequest(params);
      recorder.recordRequest(request);
      const { action, content } = await answer(request);
      return content === undefined ? { action } : { action, content };
    },
    onCompletion: (id) => recorder.recordCompletion(id),
  };
  const connection = options.era === '2025-11-25' ? await connectPush(deps) : await connectInputRequired(deps);

  return {
    era: options.era,
    urls: recorder.urls,
    requests: recorder.requests,
    completions: recorder.completions,
    callTool: async (name, args = {}, { timeoutMs } = {}) => {
      recorder.markCall();
      let raw: unknown;
      try {
        raw = await connection.call(name, args, timeoutMs);
      } catch (error) {
        recorder.recordErrorUrls(error);
        throw error;
      }
      const result = toToolResult(raw);
      recorder.recordResultUrls(result);
      return result;
    },
    lastUrl: () => recorder.urls.at(-1),
    waitForUrl: (ms = DEFAULT_WAIT_MS) => recorder.waitForUrl(ms),
    completion: (id, ms = DEFAULT_WAIT_MS) => recorder.waitForCompletion(id, ms),
    close: async () => {
      recorder.stop(new Error('the test client was closed'));
      await connection.close();
    },
  };
}

/** `headers`, and `Authorization: Bearer <user>` unless `headers` has an Authorization of its own. */
function requestHeaders({ user, headers = {} }: ElicitationTestClientOptions): Record<string, string> {
  const ownAuthorization = Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
  return { ...(user === undefined || ownAuthorization ? {} : { Authorization: `Bearer ${user}` }), ...headers };
}

/** Accepts URL-mode requests (the user "opened" the page), declines form-mode ones. */
function defaultAnswer(request: TestElicitRequest): TestElicitAnswer {
  return { action: request.mode === 'url' ? 'accept' : 'decline' };
}

function elicitationCapability(capabilities: ElicitationTestClientOptions['capabilities']): ConnectDeps['elicitation'] {
  if (capabilities === 'none') return undefined;
  const { form, url } = capabilities ?? { form: true, url: true };
  return { ...(form ? { form: {} } : {}), ...(url ? { url: {} } : {}) };
}

function toTestRequest(params: SdkElicitParams): TestElicitRequest {
  const request: TestElicitRequest = { mode: params.mode === 'url' ? 'url' : 'form', message: params.message };
  if (params.url !== undefined) request.url = params.url;
  if (params.elicitationId !== undefined) request.elicitationId = params.elicitationId;
  if (params.requestedSchema !== undefined) request.requestedSchema = params.requestedSchema;
  return request;
}

/** The SDKs' call results (SDK 1.x types a compatibility union) read into one shape. */
function toToolResult(raw: unknown): TestToolResult {
  const fields = isRecord(raw) ? raw : {};
  const content = Array.isArray(fields.content)
    ? fields.content.filter((block): block is TestToolResult['content'][number] => isRecord(block) && typeof block.type === 'string')
    : [];
  const result: TestToolResult = { ...fields, content };
  if (!isRecord(fields.structuredContent)) delete result.structuredContent;
  if (!isRecord(fields._meta)) delete result._meta;
  if (typeof fields.isError !== 'boolean') delete result.isError;
  return result;
}

/** Every page URL in a text, in order. */
function pageUrlsIn(text: string): string[] {
  return [...text.matchAll(PAGE_URL)].map((match) => match[0]);
}

/**
 * What a client saw, and the waits on it. `sightings` holds every URL sighting (repeats included), so that
 * `waitForUrl` notices a page shown again; `urls` drops consecutive repeats.
 */
class TestClientRecorder {
  readonly urls: string[] = [];
  readonly requests: TestElicitRequest[] = [];
  readonly completions: string[] = [];
  private readonly sightings: string[] = [];
  /** The sightings count when the latest call began. */
  private callMark = 0;
  private readonly waits = new Set<{ done: () => boolean; settle: () => void; fail: (error: Error) => void }>();
  private stopped: Error | undefined;

  markCall(): void {
    this.callMark = this.sightings.length;
  }

  recordRequest(request: TestElicitRequest): void {
    this.requests.push(request);
    if (request.mode === 'url') {
      if (request.url !== undefined) this.sawUrl(request.url);
    } else {
      // A form question may carry a page (the form-bridge fallback for clients with form mode only).
      for (const url of pageUrlsIn(request.message)) this.sawUrl(url);
    }
  }

  recordCompletion(elicitationId: string): void {
    this.completions.push(elicitationId);
    this.check();
  }

  /** -32042: `error.data.elicitations[].url`. */
  recordErrorUrls(error: unknown): void {
    if (!isRecord(error) || error.code !== URL_ELICITATION_REQUIRED || !isRecord(error.data)) return;
    const { elicitations } = error.data;
    if (!Array.isArray(elicitations)) return;
    for (const elicitation of elicitations) {
      if (isRecord(elicitation) && typeof elicitation.url === 'string') this.sawUrl(elicitation.url);
    }
  }

  /** A result pointing at a page (clients without elicitation get one): text and links, structured, `_meta`. */
  recordResultUrls(result: TestToolResult): void {
    const found: string[] = [];
    for (const block of result.content) {
      if (typeof block.text === 'string') found.push(...pageUrlsIn(block.text));
      if (typeof block.uri === 'string') found.push(...pageUrlsIn(block.uri));
    }
    if (typeof result.structuredContent?.url === 'string') found.push(result.structuredContent.url);
    if (result._meta) {
      if (typeof result._meta.url === 'string') found.push(result._meta.url);
      for (const entry of Object.values(result._meta)) {
        if (isRecord(entry) && typeof entry.url === 'string') found.push(entry.url);
      }
    }
    for (const url of found) this.sawUrl(url);
  }

  waitForUrl(ms: number): Promise<string> {
    const mark = this.callMark;
    return this.wait(
      () => this.sightings.length > mark,
      ms,
      `no page URL within ${ms} ms`,
      () => this.sightings[mark],
    );
  }

  waitForCompletion(id: string, ms: number): Promise<void> {
    return this.wait(
      () => this.completions.includes(id),
      ms,
      `no completion notification for ${id} within ${ms} ms`,
      () => undefined,
    );
  }

  /** Rejects every pending wait, and every later one. */
  stop(reason: Error): void {
    this.stopped = reason;
    for (const wait of this.waits) wait.fail(reason);
  }

  private sawUrl(url: string): void {
    this.sightings.push(url);
    if (this.urls.at(-1) !== url) this.urls.push(url);
    this.check();
  }

  private check(): void {
    for (const wait of this.waits) if (wait.done()) wait.settle();
  }

  private wait<T>(done: () => boolean, ms: number, timeoutMessage: string, value: () => T): Promise<T> {
    if (done()) return Promise.resolve(value());
    if (this.stopped) return Promise.reject(this.stopped);
    return new Promise<T>((resolve, reject) => {
      const entry = {
        done,
        settle: () => {
          this.waits.delete(entry);
          clearTimeout(timer);
          resolve(value());
        },
        fail: (error: Error) => {
          this.waits.delete(entry);
          clearTimeout(timer);
          reject(error);
        },
      };
      const timer = setTimeout(() => entry.fail(new Error(timeoutMessage)), ms);
      this.waits.add(entry);
    });
  }
}

/** Loads an optional SDK module, or explains which package to install. */
async function loadSdk<T>(era: keyof typeof MISSING_SDK, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (cause) {
    throw new Error(`nestjs-mcp-elicitation/testing: ${MISSING_SDK[era]}.`, { cause });
  }
}

/** 2025-11-25 over SDK 1.x: a session, pushed questions and completion notifications on the GET stream. */
async function connectPush(deps: ConnectDeps): Promise<Connection> {
  const [{ Client }, { StreamableHTTPClientTransport }, { ElicitRequestSchema, ElicitationCompleteNotificationSchema }] = await loadSdk(
    '2025-11-25',
    () =>
      Promise.all([
        import('@modelcontextprotocol/sdk/client/index.js'),
        import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
        import('@modelcontextprotocol/sdk/types.js'),
      ]),
  );
  const client = new Client(deps.options.clientInfo ?? DEFAULT_CLIENT_INFO, {
    capabilities: deps.elicitation ? { elicitation: deps.elicitation } : {},
  });
  // The SDK refuses a handler for a capability the client did not declare.
  if (deps.elicitation) client.setRequestHandler(ElicitRequestSchema, ({ params }) => deps.onElicit(params));
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, ({ params }) => deps.onCompletion(params.elicitationId));

  // Completion notifications travel on the standalone GET stream, which the transport opens after the
  // handshake: wait until the server answered that GET (it files the stream before answering).
  let getAnswered!: () => void;
  const streamOpen = new Promise<void>((resolve) => (getAnswered = resolve));
  const transport = new StreamableHTTPClientTransport(new URL(deps.options.url), {
    requestInit: { headers: deps.headers },
    fetch: async (input, init) => {
      try {
        return await fetch(input, init);
      } finally {
        if (init?.method === 'GET') getAnswered();
      }
    },
  });
  await client.connect(transport);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([streamOpen, new Promise<void>((resolve) => (timer = setTimeout(resolve, DEFAULT_WAIT_MS)))]);
  clearTimeout(timer);

  return {
    call: (name, args, timeoutMs) =>
      client.callTool({ name, arguments: args }, undefined, timeoutMs === undefined ? undefined : { timeout: timeoutMs }),
    close: async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

/** 2026-07-28 over SDK 2.x, pinned: no session; `input_required` rounds answered and retried inside a call. */
async function connectInputRequired(deps: ConnectDeps): Promise<Connection> {
  const { Client, StreamableHTTPClientTransport } = await loadSdk('2026-07-28', () => import('@modelcontextprotocol/client'));
  const client = new Client(deps.options.clientInfo ?? DEFAULT_CLIENT_INFO, {
    capabilities: deps.elicitation ? { elicitation: deps.elicitation } : {},
    versionNegotiation: { mode: { pin: '2026-07-28' } },
  });
  if (deps.elicitation) client.setRequestHandler('elicitation/create', (request) => deps.onElicit(request.params));
  const transport = new StreamableHTTPClientTransport(new URL(deps.options.url), { requestInit: { headers: deps.headers } });
  await client.connect(transport);

  return {
    call: (name, args, timeoutMs) =>
      client.callTool({ name, arguments: args }, timeoutMs === undefined ? undefined : { timeout: timeoutMs }),
    close: () => client.close(),
  };
}
