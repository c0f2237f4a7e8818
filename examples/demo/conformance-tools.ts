/**
 * Tools the official MCP conformance suite (`@modelcontextprotocol/conformance`, server mode) calls in
 * the scenarios `tools-call-elicitation`, `elicitation-sep1034-defaults` and `elicitation-sep1330-enums`.
 * Registered only when the demo runs with `MCP_CONFORMANCE=1` (see `npm run conformance`).
 *
 * Each one asks the client for input through the library's form mode (`elicitation.elicit(...)`:
 * linted schema, strictly validated answer), which needs no user identity: the conformance client
 * sends no `Authorization` header. The scenarios check the `elicitation/create` request the client
 * receives (its `requestedSchema`) and that the tool returns content.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { McpServer as ModernMcpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { ElicitResult, FormSchema, McpElicitation, ToolElicitation } from '../../src/index.js';

/** Bounded wait for the client's answer (the suite's own per-scenario timeout is 30 s). */
const TIMEOUT_MS = 30_000;

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

const describe = (answer: ElicitResult<unknown>) =>
  `action=${answer.action}, content=${JSON.stringify(answer.action === 'accept' ? answer.content : {})}`;

/** Registers `test_elicitation`, `test_elicitation_sep1034_defaults` and `test_elicitation_sep1330_enums`. */
export function registerConformanceTools(server: McpServer | ModernMcpServer, elicitation: McpElicitation): void {
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

/**
 * The tools, prompt and diagnostics the 2026-07-28 scenarios call (`input-required-result-*`,
 * `server-stateless`). Registered on the SDK 2.x server only.
 */
export function registerModernConformanceTools(server: ModernMcpServer, elicitation: McpElicitation): void {
  void server;
  void elicitation;
}
