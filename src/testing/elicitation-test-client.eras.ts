import type { ElicitationTestClientOptions, TestElicitAnswer } from './elicitation-test-client.types.js';

/** How long a wait for a URL or a notification lasts by default, and the wait for the session's GET stream. */
export const DEFAULT_WAIT_MS = 5_000;
const DEFAULT_CLIENT_INFO = { name: 'nestjs-mcp-elicitation-test-client', version: '1.0.0' };

const MISSING_SDK = {
  '2025-11-25': 'install @modelcontextprotocol/sdk (1.23 or later) to create a 2025-11-25 test client',
  '2026-07-28': 'install @modelcontextprotocol/client (2.4 or later) to create a 2026-07-28 test client',
} as const;

/** The loose shape both SDK lines hand an `elicitation/create` handler (their unions are assignable to it). */
export interface SdkElicitParams {
  mode?: string;
  message: string;
  url?: string;
  elicitationId?: string;
  requestedSchema?: { type: 'object'; properties: Record<string, object>; required?: string[] };
}

/** An answer as the SDKs type it (an object literal type: their result types carry an index signature). */
export type SdkElicitResult = { action: TestElicitAnswer['action']; content?: TestElicitAnswer['content'] };

/** What an era's connection gives the client: a raw call and a close. */
export interface Connection {
  call(name: string, args: Record<string, unknown>, timeoutMs: number | undefined): Promise<unknown>;
  close(): Promise<void>;
}

/** What an era's connect function needs: the options and the recorder's entry points. */
export interface ConnectDeps {
  options: ElicitationTestClientOptions;
  headers: Record<string, string>;
  /** `elicitation: {...}` to declare, or `undefined` for none. */
  elicitation: { form?: Record<string, never>; url?: Record<string, never> } | undefined;
  onElicit(params: SdkElicitParams): Promise<SdkElicitResult>;
  onCompletion(elicitationId: string): void;
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
export async function connectPush(deps: ConnectDeps): Promise<Connection> {
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
export async function connectInputRequired(deps: ConnectDeps): Promise<Connection> {
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
