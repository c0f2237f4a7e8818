/**
 * A real SDK 2.x client (`@modelcontextprotocol/client`) over Streamable HTTP, for either protocol era:
 * pinned to 2026-07-28 (stateless, `input_required` rounds) or the 2025-11-25 `initialize` handshake. It
 * records every POST exchange whose answer is JSON, as sent and received on the wire (before the SDK
 * parses it), and every `notifications/elicitation/complete` it receives.
 */
import {
  Client,
  StreamableHTTPClientTransport,
  type ClientCapabilities,
  type ElicitRequestParams,
  type ElicitResult,
} from '@modelcontextprotocol/client';
import { completionLog } from './completions.js';

/** Elicitation capabilities to declare; `null` declares none. */
export type V2Capabilities = { form?: Record<string, unknown>; url?: Record<string, unknown> } | null;

/**
 * A `tools/call` result as the tests read it: `input_required` (`inputRequests`, `requestState`) or
 * `complete` (`content`). Parsed JSON, never checked against this shape: the tests assert which fields
 * are there, and an absent one reads as `undefined`.
 */
interface WireResult {
  resultType: string;
  requestState: string;
  inputRequests: Record<string, { method: string; params: Record<string, unknown> }>;
  content: Array<{ type: string; text?: string }>;
  isError?: boolean;
  [key: string]: unknown;
}

/** One POST as it crossed the wire: the JSON-RPC body sent, the HTTP status, headers and the JSON answer. */
export interface WireExchange {
  request: { jsonrpc?: string; id?: string | number; method?: string; params?: Record<string, unknown> };
  status: number;
  headers: Headers;
  /** The parsed JSON answer; `undefined` for SSE or empty answers (not recorded). */
  response?: { id?: string | number; result?: WireResult; error?: { code: number; message: string; data?: unknown } };
}

export interface V2TestClient {
  client: Client;
  transport: StreamableHTTPClientTransport;
  era: 'modern' | 'legacy';
  /** Every POST with a JSON answer, in order. */
  wire: WireExchange[];
  /** The `tools/call` exchanges of `wire`. */
  toolCalls(): WireExchange[];
  /** elicitationIds of every `notifications/elicitation/complete` received, in order. */
  completed: string[];
  /** Resolves when a completion notification for `id` has arrived (rejects after `ms`). */
  completion: (id: string, ms?: number) => Promise<void>;
  /**
   * Manual mode (client created with `manual: true`): one raw `tools/call` that hands back an
   * `input_required` result instead of fulfilling it. `extra` adds `inputResponses` / `requestState`.
   */
  callRaw(name: string, args: Record<string, unknown>, extra?: Record<string, unknown>): Promise<WireResult>;
  close: () => Promise<void>;
}

export interface V2ClientOptions {
  /** Demo bearer identity; `null` sends no Authorization header. @default 'alice' */
  user?: string | null;
  /** `modern`: pinned to 2026-07-28; `legacy`: the 2025-11-25 handshake (the SDK's default mode). @default 'modern' */
  era?: 'modern' | 'legacy';
  /** @default { form: {}, url: {} } */
  elicitation?: V2Capabilities;
  /** Answers `elicitation/create` (pushed on legacy, embedded in `input_required` on modern). Default: accept URL, decline forms. */
  onElicit?: (params: ElicitRequestParams) => Promise<ElicitResult>;
  /** Modern only: `inputRequired.autoFulfill: false`, so `callRaw` sees the `input_required` results. @default false */
  manual?: boolean;
  /** Extensions to declare (`capabilities.extensions`, on every request's envelope), e.g. the Tasks extension. @default none */
  extensions?: Record<string, object>;
}

export async function connectV2Client(mcpUrl: string, options: V2ClientOptions = {}): Promise<V2TestClient> {
  const {
    user = 'alice',
    era = 'modern',
    elicitation = { form: {}, url: {} },
    onElicit = (params: ElicitRequestParams): Promise<ElicitResult> =>
      Promise.resolve({ action: params.mode === 'url' ? 'accept' : 'decline' }),
    manual = false,
    extensions,
  } = options;
  const client = new Client(
    { name: 'e2e-v2-client', version: '1.0.0' },
    {
      capabilities: { ...(elicitation && { elicitation }), ...(extensions && { extensions }) } as ClientCapabilities,
      ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' as const } } } : {}),
      ...(manual ? { inputRequired: { autoFulfill: false } } : {}),
    },
  );
  if (elicitation) client.setRequestHandler('elicitation/create', (request) => onElicit(request.params));
  const completions = completionLog();
  client.setNotificationHandler('notifications/elicitation/complete', (notification) =>
    completions.record(notification.params.elicitationId),
  );

  const wire: WireExchange[] = [];
  // Records JSON answers by reading them whole and handing the SDK an identical Response; SSE streams
  // (legacy calls that push requests, the GET stream) are passed through untouched.
  const recordingFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    if (init?.method !== 'POST' || typeof init.body !== 'string') return response;
    const type = response.headers.get('content-type') ?? '';
    if (!type.includes('application/json')) return response;
    const text = await response.text();
    wire.push({
      request: JSON.parse(init.body) as WireExchange['request'],
      status: response.status,
      headers: response.headers,
      response: text ? (JSON.parse(text) as WireExchange['response']) : undefined,
    });
    return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    fetch: recordingFetch,
    requestInit: user ? { headers: { Authorization: `Bearer ${user}` } } : undefined,
  });
  await client.connect(transport);
  if (client.getProtocolEra() !== era) throw new Error(`expected the ${era} era, negotiated ${client.getProtocolEra()}`);
  // Legacy: let the standalone GET SSE stream open, completion notifications travel on it.
  if (era === 'legacy') await new Promise((r) => setTimeout(r, 150));

  return {
    client,
    transport,
    era,
    wire,
    toolCalls: () => wire.filter((w) => w.request.method === 'tools/call'),
    completed: completions.completed,
    completion: completions.completion,
    callRaw: async (name, args, extra = {}) =>
      (await client.request(
        { method: 'tools/call', params: { name, arguments: args, ...extra } },
        { allowInputRequired: true },
      )) as WireResult,
    close: async () => {
      if (era === 'legacy') await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}
