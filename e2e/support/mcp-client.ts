import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { completionLog } from './completions.js';

/** Elicitation capabilities to declare; `null` declares none. */
type Capabilities = { form?: Record<string, unknown>; url?: Record<string, unknown> } | null;

/** A real SDK 1.x client over Streamable HTTP, recording completion notifications. */
export interface TestClient {
  client: Client;
  transport: StreamableHTTPClientTransport;
  /** elicitationIds of every `notifications/elicitation/complete` received, in order. */
  completed: string[];
  /** Resolves when a completion notification for `id` has arrived (rejects after `ms`). */
  completion: (id: string, ms?: number) => Promise<void>;
  close: () => Promise<void>;
}

/**
 * Connects as `user` (demo bearer identity) with the given elicitation capabilities and an
 * elicitation handler (default: accept URL requests, decline forms). Waits for the GET stream.
 */
export async function connectClient(
  mcpUrl: string,
  {
    user = 'alice',
    elicitation = { form: {}, url: {} },
    onElicit = (req: ElicitRequest['params']): Promise<ElicitResult> =>
      Promise.resolve({ action: req.mode === 'url' ? 'accept' : 'decline' }),
    clientInfo = { name: 'e2e-client', version: '1.0.0' },
    extensions,
  }: {
    user?: string | null;
    elicitation?: Capabilities;
    onElicit?: (req: ElicitRequest['params']) => Promise<ElicitResult>;
    /** Who the client says it is in `initialize`. */
    clientInfo?: { name: string; version: string };
    /** Declared in `capabilities.extensions`. */
    extensions?: Record<string, object>;
  } = {},
): Promise<TestClient> {
  const capabilities = { ...(elicitation && { elicitation }), ...(extensions && { extensions }) };
  const client = new Client(clientInfo, { capabilities });
  const completions = completionLog();
  if (elicitation) client.setRequestHandler(ElicitRequestSchema, ({ params }) => onElicit(params));
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, ({ params }) => completions.record(params.elicitationId));
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    requestInit: user ? { headers: { Authorization: `Bearer ${user}` } } : undefined,
  });
  await client.connect(transport);
  // Let the standalone GET SSE stream open: completion notifications travel on it.
  await new Promise((r) => setTimeout(r, 150));
  return {
    client,
    transport,
    completed: completions.completed,
    completion: completions.completion,
    close: async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

/** The text of a tool result's first content block. */
export function textOf(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.map((c) => c.text ?? '').join('');
}
