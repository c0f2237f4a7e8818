/**
 * A real MCP client for tool authors' tests: the SDK 1.x client on 2025-11-25 or the SDK 2.x client pinned to
 * 2026-07-28, over Streamable HTTP, recording every page URL and question it is sent. Both SDKs are optional
 * peers, loaded here on first use, so `nestjs-mcp-elicitation/testing` imports neither.
 */
import {
  connectInputRequired,
  connectPush,
  DEFAULT_WAIT_MS,
  type ConnectDeps,
  type SdkElicitParams,
} from './elicitation-test-client.eras.js';
import { isRecord, TestClientRecorder } from './elicitation-test-client.recorder.js';
import type {
  ElicitationTestClient,
  ElicitationTestClientOptions,
  TestElicitAnswer,
  TestElicitRequest,
  TestToolResult,
} from './elicitation-test-client.types.js';

export type {
  ElicitationTestClient,
  ElicitationTestClientOptions,
  TestCallOptions,
  TestElicitAnswer,
  TestElicitRequest,
  TestToolResult,
} from './elicitation-test-client.types.js';

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
