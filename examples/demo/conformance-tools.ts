/**
 * Tools (and one prompt) the official MCP conformance suite (`@modelcontextprotocol/conformance`, server
 * mode) calls. Registered only when the demo runs with `MCP_CONFORMANCE=1` (see `npm run conformance`).
 *
 * - `registerConformanceTools` (both eras): `tools-call-elicitation`, `elicitation-sep1034-defaults` and
 *   `elicitation-sep1330-enums`. Each asks through the library's form mode (`elicitation.elicit(...)`:
 *   linted schema, strictly validated answer); under 2025-11-25 the question is pushed on the call's
 *   stream, under 2026-07-28 it comes back as `input_required`.
 * - `registerInputRequiredConformanceTools` (2026-07-28 only): the `input-required-result-*` scenarios and the
 *   diagnostic tools of `server-stateless`. Every form question goes through the library
 *   (`el.elicit(..., { key })`, the key the suite expects); sampling and roots requests are built with
 *   the SDK's `inputRequired` builders and carry a state from `elicitation.sealRequestState`, so their
 *   retries are verified (seal, expiry, method, tool, arguments, single use) like the library's own.
 *
 * None of them needs a user identity: the conformance client sends no `Authorization` header.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CLIENT_CAPABILITIES_META_KEY,
  inputRequired,
  inputResponse,
  type InputRequiredResult as SdkInputRequiredResult,
  type McpServer as Sdk2McpServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import {
  isInputRequiredSignal,
  type ElicitingToolHandler,
  type ElicitResult,
  type FormSchema,
  type McpElicitation,
  type ToolElicitation,
} from '../../src/index.js';

/** Bounded wait for the client's answer (the suite's own per-scenario timeout is 30 s). */
const TIMEOUT_MS = 30_000;

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

const describe = (answer: ElicitResult<unknown>) =>
  `action=${answer.action}, content=${JSON.stringify(answer.action === 'accept' ? answer.content : {})}`;

/** Registers `test_elicitation`, `test_elicitation_sep1034_defaults` and `test_elicitation_sep1330_enums`. */
export function registerConformanceTools(server: McpServer | Sdk2McpServer, elicitation: McpElicitation): void {
  const ask = (el: ToolElicitation, message: string, requestedSchema: FormSchema) =>
    el.elicit(message, requestedSchema, { timeoutMs: TIMEOUT_MS });

  // tools-call-elicitation: the client answers { username, email } and expects content back.
  elicitation.registerTool(
    server,
    'test_elicitation',
    {
      description: 'Conformance: asks the user for a username and an email address (form-mode elicitation).',
      inputSchema: z.object({ message: z.string().describe('The message to show the user') }),
    },
    async ({ message }: { message: string }, el) => {
      const answer = await ask(el, message, {
        type: 'object',
        properties: {
          username: { type: 'string', description: "User's response" },
          email: { type: 'string', description: "User's email address" },
        },
        required: ['username', 'email'],
      });
      return text(`User response: ${describe(answer)}`);
    },
  );

  // elicitation-sep1034-defaults: a default on every primitive type (SEP-1034).
  elicitation.registerTool(
    server,
    'test_elicitation_sep1034_defaults',
    { description: 'Conformance: form-mode elicitation whose fields all carry default values (SEP-1034).' },
    async (_args, el) => {
      const answer = await ask(el, 'Please review and update the form fields with defaults', {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'User name', default: 'John Doe' },
          age: { type: 'integer', description: 'User age', default: 30 },
          score: { type: 'number', description: 'User score', default: 95.5 },
          status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
          verified: { type: 'boolean', description: 'Verification status', default: true },
        },
      });
      return text(`Elicitation completed: ${describe(answer)}`);
    },
  );

  // elicitation-sep1330-enums: the five enum shapes of SEP-1330.
  elicitation.registerTool(
    server,
    'test_elicitation_sep1330_enums',
    { description: 'Conformance: form-mode elicitation with every enum variant (SEP-1330).' },
    async (_args, el) => {
      const answer = await ask(el, 'Please select options from the enum fields', {
        type: 'object',
        properties: {
          untitledSingle: {
            type: 'string',
            description: 'Untitled single-select',
            enum: ['option1', 'option2', 'option3'],
          },
          titledSingle: {
            type: 'string',
            description: 'Titled single-select',
            oneOf: [
              { const: 'value1', title: 'First Option' },
              { const: 'value2', title: 'Second Option' },
              { const: 'value3', title: 'Third Option' },
            ],
          },
          legacyEnum: {
            type: 'string',
            description: 'Legacy titled enum (enumNames, deprecated)',
            enum: ['opt1', 'opt2', 'opt3'],
            enumNames: ['Option One', 'Option Two', 'Option Three'],
          },
          untitledMulti: {
            type: 'array',
            description: 'Untitled multi-select',
            items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          },
          titledMulti: {
            type: 'array',
            description: 'Titled multi-select',
            items: {
              anyOf: [
                { const: 'value1', title: 'First Choice' },
                { const: 'value2', title: 'Second Choice' },
                { const: 'value3', title: 'Third Choice' },
              ],
            },
          },
        },
      });
      return text(`Elicitation completed: ${describe(answer)}`);
    },
  );
}

type InputRequests = NonNullable<SdkInputRequiredResult['inputRequests']>;
type InputRequest = InputRequests[string];

/** `{ name }`: the question of the basic, multiple-inputs, capabilities and streaming tools. */
const NAME_FORM: FormSchema = {
  type: 'object',
  properties: { name: { type: 'string', description: 'Your name' } },
  required: ['name'],
};
/** `{ ok }`: the question of the request-state and tampered-state tools (the suite answers `{ ok: true }`). */
const CONFIRM_FORM: FormSchema = {
  type: 'object',
  properties: { ok: { type: 'boolean', description: 'Confirm' } },
  required: ['ok'],
};
const COLOR_FORM: FormSchema = {
  type: 'object',
  properties: { color: { type: 'string', description: 'Your favourite colour' } },
  required: ['color'],
};
const CONTEXT_FORM: FormSchema = {
  type: 'object',
  properties: { context: { type: 'string', description: 'Context for the prompt' } },
  required: ['context'],
};

const samplingRequest = (question: string, maxTokens: number): InputRequest =>
  inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: question } }], maxTokens });

/** The SDK 2.x context the binding passes as a handler's third argument (2026-07-28 requests only). */
const sdk2Context = (context: unknown) => context as ServerContext;

/** Whether this request's `_meta` declares a client capability (2026-07-28: it applies to this request only). */
function declares(ctx: ServerContext, capability: 'sampling' | 'roots' | 'elicitation'): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as Record<string, unknown> | undefined;
  return capabilities?.[capability] !== undefined;
}

/**
 * A sampling or roots answer of this retry. It counts only next to a verified `requestState` (the
 * `serverOptions()` hook resolved it and the binding checked tool and arguments): an answer the server
 * never asked for is ignored, and the question asked again.
 */
function answerOf(ctx: ServerContext, key: string) {
  return ctx.mcpReq.requestState() === undefined ? ({ kind: 'missing' } as const) : inputResponse(ctx.mcpReq.inputResponses, key);
}

/** The text of a sampling result (`content` is one block, or several with tool use). */
function samplingText(result: { content: unknown }): string {
  const blocks = (Array.isArray(result.content) ? result.content : [result.content]) as Array<{ type?: string; text?: string }>;
  return blocks.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join(' ');
}

const answerText = (answer: ElicitResult<Record<string, unknown>>, accepted: (content: Record<string, unknown>) => string) =>
  answer.action === 'accept' ? accepted(answer.content) : `No answer (${answer.action})`;

/**
 * The tools, prompt and diagnostics the 2026-07-28 scenarios call (`input-required-result-*`,
 * `server-stateless`). Registered on the SDK 2.x server only.
 */
export function registerInputRequiredConformanceTools(server: Sdk2McpServer, elicitation: McpElicitation): void {
  const tool = (name: string, description: string, run: ElicitingToolHandler<unknown, unknown>) =>
    elicitation.registerTool(server, name, { description }, run);

  /** `input_required` with our own requests and a sealed state bound to this call (tool and arguments). */
  const ask = (ctx: ServerContext, name: string, args: unknown, inputRequests: InputRequests) =>
    inputRequired({ inputRequests, requestState: elicitation.sealRequestState(ctx, name, args) });

  /** A sampling round trip: asks `question` under `key`, then answers with what the client's model said. */
  const sampling =
    (name: string, key: string, question: string): ElicitingToolHandler<unknown, unknown> =>
    (args, _el, context) => {
      const ctx = sdk2Context(context);
      const answer = answerOf(ctx, key);
      if (answer.kind !== 'sampling') return ask(ctx, name, args, { [key]: samplingRequest(question, 100) });
      return text(`Sampling answered: ${samplingText(answer.result)}`);
    };

  const askName = (el: ToolElicitation, message = 'What is your name?', key = 'user_name') =>
    el.elicit<Record<string, unknown>>(message, NAME_FORM, { key });

  // basic-elicitation, missing-input-response, result-type, ignore-extra-params, validate-input.
  tool(
    'test_input_required_result_elicitation',
    'Conformance (2026-07-28): asks for your name (form elicitation, key user_name).',
    async (_args, el) => text(answerText(await askName(el), (c) => `Hello, ${String(c.name)}!`)),
  );

  // basic-sampling.
  tool(
    'test_input_required_result_sampling',
    'Conformance (2026-07-28): asks the client model a question (sampling, key capital_question).',
    sampling('test_input_required_result_sampling', 'capital_question', 'What is the capital of France?'),
  );

  // basic-list-roots.
  tool(
    'test_input_required_result_list_roots',
    "Conformance (2026-07-28): asks for the client's roots (roots/list, key client_roots).",
    (args, _el, context) => {
      const ctx = sdk2Context(context);
      const answer = answerOf(ctx, 'client_roots');
      if (answer.kind !== 'roots')
        return ask(ctx, 'test_input_required_result_list_roots', args, { client_roots: inputRequired.listRoots() });
      return text(`Client roots: ${answer.roots.map((r) => r.uri).join(', ') || '(none)'}`);
    },
  );

  // request-state: the answer is read back through the sealed state only, so a complete result means the state verified.
  tool(
    'test_input_required_result_request_state',
    'Conformance (2026-07-28): asks for a confirmation and checks the echoed requestState.',
    async (_args, el) => {
      const answer = await el.elicit<Record<string, unknown>>('Please confirm', CONFIRM_FORM, { key: 'confirm' });
      return text(`state-ok: ${answerText(answer, (c) => `confirmed=${String(c.ok)}`)}`);
    },
  );

  // multiple-input-requests: one round asks elicitation (the library's question) + sampling + roots.
  tool(
    'test_input_required_result_multiple_inputs',
    'Conformance (2026-07-28): asks for your name, a model greeting and your roots in one round.',
    async (_args, el, context) => {
      const ctx = sdk2Context(context);
      const greeting = answerOf(ctx, 'greeting');
      const roots = answerOf(ctx, 'client_roots');
      let answer: ElicitResult<Record<string, unknown>>;
      try {
        answer = await askName(el);
      } catch (error) {
        // The library stops at the unanswered name: the other two ride along under its sealed state. All
        // three are asked in every such round (answers never carry over to the next one).
        if (isInputRequiredSignal(error)) {
          error.result.inputRequests = {
            ...error.result.inputRequests,
            greeting: samplingRequest('Generate a greeting', 50),
            client_roots: inputRequired.listRoots(),
          };
        }
        throw error;
      }
      if (greeting.kind !== 'sampling' || roots.kind !== 'roots') {
        // The name was answered but not the other two of the same round. The library cannot ask an
        // answered question again, so this ends the call rather than looping.
        const missing = [greeting.kind !== 'sampling' && 'greeting', roots.kind !== 'roots' && 'client_roots'].filter(Boolean);
        return { ...text(`Missing answers: ${missing.join(', ')}. Call the tool again.`), isError: true };
      }
      return text(
        `${answerText(answer, (c) => `Name: ${String(c.name)}`)}; greeting: ${samplingText(greeting.result)}; ` +
          `roots: ${roots.roots.map((r) => r.uri).join(', ') || '(none)'}`,
      );
    },
  );

  // multi-round: two questions, each round a fresh state (the second carries the first answer).
  tool('test_input_required_result_multi_round', 'Conformance (2026-07-28): asks two questions in two rounds.', async (_args, el) => {
    const name = await askName(el, 'Step 1: What is your name?', 'step1');
    const color = await el.elicit<Record<string, unknown>>('Step 2: What is your favorite color?', COLOR_FORM, { key: 'step2' });
    return text(`${answerText(name, (c) => `Name: ${String(c.name)}`)}; ${answerText(color, (c) => `colour: ${String(c.color)}`)}`);
  });

  // tampered-state: a modified state never reaches the tool (-32602 from the serverOptions() hook).
  tool(
    'test_input_required_result_tampered_state',
    'Conformance (2026-07-28): asks for a confirmation under an integrity-protected requestState.',
    async (_args, el) => {
      const answer = await el.elicit<Record<string, unknown>>('Please confirm', CONFIRM_FORM, { key: 'confirm' });
      return text(answerText(answer, (c) => `confirmed=${String(c.ok)}`));
    },
  );

  // capability-check: form elicitation when this request declares it, otherwise sampling when declared.
  // Neither: the library embeds the elicitation and the SDK answers -32021 naming it.
  tool(
    'test_input_required_result_capabilities',
    'Conformance (2026-07-28): asks for your name by form, or by sampling when the client declares no elicitation.',
    async (args, el, context) => {
      const ctx = sdk2Context(context);
      if (el.isSupported('form') || !declares(ctx, 'sampling'))
        return text(answerText(await askName(el), (c) => `Hello, ${String(c.name)}!`));
      return sampling('test_input_required_result_capabilities', 'name_question', 'What name should I greet?')(args, el, context);
    },
  );

  // non-tool-request: the same binding on prompts/get (the state is bound to that method).
  const promptName = 'test_input_required_result_prompt';
  server.registerPrompt(
    promptName,
    { description: 'Conformance (2026-07-28): asks which context to use, then returns the prompt (key user_context).' },
    elicitation.tool(server, promptName, async (_args, el) => {
      const answer = await el.elicit<Record<string, unknown>>('What context should the prompt use?', CONTEXT_FORM, { key: 'user_context' });
      const context = answerText(answer, (c) => String(c.context));
      return { messages: [{ role: 'user' as const, content: { type: 'text' as const, text: `Answer using this context: ${context}` } }] };
    }) as never,
  );

  // server-stateless: needs sampling; without it in _meta the SDK turns the embedded request into -32021 (HTTP 400).
  tool(
    'test_missing_capability',
    "Conformance (2026-07-28): needs the client's sampling capability (-32021 when the request does not declare it).",
    sampling('test_missing_capability', 'summary', 'Summarise the MCP protocol in one sentence.'),
  );

  // server-stateless: server-to-client interaction only in-band (input_required on the call's own response).
  tool(
    'test_streaming_elicitation',
    'Conformance (2026-07-28): asks a form question in-band (input_required, never a pushed request).',
    async (_args, el) => text(answerText(await askName(el, 'Streaming check: what is your name?'), (c) => `Hello, ${String(c.name)}!`)),
  );

  // server-stateless: logs through the SDK, which sends nothing unless the request's _meta sets a log level.
  server.registerTool(
    'test_logging_tool',
    { description: 'Conformance (2026-07-28): logs one message (sent only when the request sets io.modelcontextprotocol/logLevel).' },
    async (ctx: ServerContext) => {
      await ctx.mcpReq.log('info', 'test_logging_tool ran');
      return text('Logged one info message (delivered only if the request asked for logs).');
    },
  );
}
