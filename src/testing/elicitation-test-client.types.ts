/** What a test client (`createElicitationTestClient`) takes, records and returns: the kit's public types. */

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
