import { Injectable } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpServer as Sdk2McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { defineForm, McpElicitation, type ElicitingToolHandler, type OAuthToken } from '../../src/index.js';
import { profileForm } from './profile-form.js';
import { registerConformanceTools, registerInputRequiredConformanceTools } from './conformance-tools.js';
import { registerTaskConformanceTools } from './conformance-task-tools.js';
import { openReleaseTicket, registerEffectTestTool, registerTicketTestTool } from './effect-test-tool.js';

const SERVER_INFO = { name: 'nestjs-mcp-elicitation-demo', version: '0.1.0' };

export const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
export type ToolResult = ReturnType<typeof text>;

/** The delete-file confirmation (form mode). */
const deleteForm = defineForm({
  type: 'object',
  properties: { confirmed: { type: 'boolean', title: 'Delete the file', default: false } },
  required: ['confirmed'],
});

/** One demo tool, written once: the same body serves 2025-11-25 sessions and 2026-07-28 requests (and the MCP-Nest demo). */
export interface DemoTool {
  name: string;
  description: string;
  inputSchema?: z.ZodObject;
  /** Task support (the MCP Tasks extension, protocol 2026-07-28): the tool runs as a task when the client asks. */
  execution?: { taskSupport: 'optional' | 'required' };
  /** Its arguments are what `inputSchema` parsed, typed by each tool (a `never` parameter takes any of them). */
  run: ElicitingToolHandler<never, ToolResult>;
}

/** The version a release is for (the task demo's form). */
const releaseForm = defineForm({
  type: 'object',
  properties: { version: { type: 'string', title: 'Version', minLength: 5, maxLength: 20, description: 'e.g. 1.4.0' } },
  required: ['version'],
});

export const connectService = z.object({
  service: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,40}$/)
    .describe('Service name, e.g. github'),
});
export const approveDeploy = z.object({ app: z.string().min(1).max(80).describe('App to deploy') });
export const deleteFile = z.object({ path: z.string().min(1).max(500).describe('File to delete') });
export const dropTable = z.object({
  table: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/)
    .describe('Table to drop'),
});

export const transferFunds = z.object({
  to: z.string().min(1).max(64),
  amount: z.number().positive().max(1_000_000_000),
});

/** The demo's approvers: `drop-table` needs two of them, never the one who asked. */
export const DEMO_APPROVERS = ['alice', 'bob', 'carol'] as const;

/** The development provider's name in the demo's `oauth.providers` (`demo-oidc.ts`). */
export const DEMO_OIDC_PROVIDER = 'demo';

export const DEMO_TOOLS: readonly DemoTool[] = [
  {
    name: 'connect-service',
    description: 'Connects to a third-party service with your API key (asked for on a web page, never through the chat).',
    inputSchema: connectService,
    // Asks for the key on the api-key page unless this user already gave one. 2025-11-25: the call fails
    // with -32042 and the client retries after the completion notification; 2026-07-28: the call answers
    // input_required and the client's retry finds the key.
    run: async ({ service }: z.infer<typeof connectService>, elicitation) => {
      await elicitation.requireAnswer({
        kind: 'api-key',
        type: `api-key-${service}`,
        message: `Enter your ${service} API key so the assistant can connect to ${service} for you.`,
        metadata: { service },
      });
      return text(`Connected to ${service}`);
    },
  },
  {
    name: 'connect-account',
    description:
      'Connects your account at an OAuth / OpenID provider (the demo one at /demo/oidc): you sign in there in the browser; the tokens stay on the server.',
    // The first call asks on the oauth page (URL mode, or the ladder's fallbacks); later calls reuse the stored
    // grant, refreshed when its access token has expired. Only the subject and scopes are shown, never a token.
    run: async (_args, elicitation) => {
      const token = await elicitation.requireAnswer<OAuthToken>({
        kind: 'oauth',
        provider: DEMO_OIDC_PROVIDER,
        message: 'Connect your account at the demo provider so the assistant can use it for you.',
      });
      return text(`Connected account ${token.subject ?? '(unknown)'} with scopes ${token.scopes.join(' ')}`);
    },
  },
  {
    name: 'approve-deploy',
    description: 'Deploys an app after you confirm on a web page.',
    inputSchema: approveDeploy,
    run: async ({ app }: z.infer<typeof approveDeploy>, elicitation) => {
      const outcome = await elicitation.requestUrl({
        kind: 'confirm',
        type: 'deploy-approval',
        message: `Deploy ${app} to production?`,
        metadata: {
          title: `Deploy ${app}`,
          warning: 'This replaces the version running now.',
          confirmLabel: 'Deploy',
          cancelLabel: 'Cancel',
        },
      });
      return text(outcome.status === 'completed' ? `Deployed ${app}` : 'Deployment cancelled');
    },
  },
  {
    name: 'delete-file',
    description: 'Deletes a file after you confirm in the client (form mode). The demo deletes nothing.',
    inputSchema: deleteFile,
    run: async ({ path }: z.infer<typeof deleteFile>, elicitation) => {
      const answer = await elicitation.elicit(`Delete ${path}?`, deleteForm);
      return text(answer.action === 'accept' && answer.content.confirmed ? `Deleted ${path}` : 'Cancelled');
    },
  },
  {
    name: 'drop-table',
    description:
      'Drops a database table once two of the demo users alice, bob and carol approved (never the one who asked), each on a page of their own. The demo drops nothing.',
    inputSchema: dropTable,
    execution: { taskSupport: 'optional' },
    run: async ({ table }: z.infer<typeof dropTable>, elicitation) => {
      const approval = await elicitation.requestApproval({
        approvers: DEMO_APPROVERS,
        quorum: 2,
        message: `Drop the table ${table}? This cannot be undone.`,
      });
      return text(
        approval.status === 'approved'
          ? `Dropped ${table}: approved by ${approval.approvedBy?.join(' and ')} (fingerprint ${approval.hash?.slice(0, 12)})`
          : `Not dropped: the approval was ${approval.status}`,
      );
    },
  },
  {
    name: 'transfer-funds',
    description:
      'Transfers money once bob or carol approved it with a passkey: a signature bound to this very recipient and amount (the demo moves no money). Approvers add a passkey at /elicit/passkeys; open the demo at http://localhost, as browsers make passkeys for a domain name only.',
    inputSchema: transferFunds,
    execution: { taskSupport: 'optional' },
    run: async ({ to, amount }: z.infer<typeof transferFunds>, elicitation) => {
      const approval = await elicitation.requestApproval({
        approvers: ['bob', 'carol'],
        presence: 'passkey',
        message: `Transfer ${amount} to ${to}?`,
      });
      return text(
        approval.status === 'approved'
          ? `Transferred ${amount} to ${to}: approved with a passkey by ${approval.approvedBy?.join(' and ')} (fingerprint ${approval.hash?.slice(0, 12)})`
          : `Not transferred: the approval was ${approval.status}`,
      );
    },
  },
  {
    name: 'plan-release',
    description:
      'Plans a release of an app, as a task for clients with the MCP Tasks extension: asks for the version in a form, then for approval on a web page, and waits as long as you need (days, restarts included).',
    inputSchema: approveDeploy,
    execution: { taskSupport: 'optional' },
    // Runs again from the top at every step of the task: the ticket is opened in a step, so once.
    run: async ({ app }: z.infer<typeof approveDeploy>, elicitation) => {
      const release = await elicitation.elicit(`Which version of ${app} should be released?`, releaseForm);
      if (release.action !== 'accept') return text('Release cancelled');
      const { version } = release.content;
      const ticket = await elicitation.step('open-ticket', ({ idempotencyKey }) => openReleaseTicket(app, version, idempotencyKey));
      const approval = await elicitation.requestUrl({
        kind: 'confirm',
        type: 'release-approval',
        message: `Release ${app} ${version} to production?`,
        metadata: { title: `Release ${app} ${version}`, confirmLabel: 'Release', cancelLabel: 'Not now' },
      });
      return text(
        approval.status === 'completed' ? `Released ${app} ${version} (ticket ${ticket})` : `Release of ${app} ${version} not approved`,
      );
    },
  },
  {
    name: 'configure-profile',
    description:
      'Sets up your profile through a form with every field kind (form mode; the hosted form page for clients without form support).',
    run: async (_args, elicitation) => {
      const answer = await elicitation.elicit('Set up your profile', profileForm);
      if (answer.action !== 'accept') return text(answer.action === 'decline' ? 'Profile not changed' : 'Cancelled');
      const p = answer.content;
      return text(`Profile saved for ${p.displayName} (${p.plan ?? 'free'} plan, interests: ${p.interests.join(', ')})`);
    },
  },
  {
    name: 'whoami',
    description: 'Says which user the server takes you for (asks nothing: the trivial call the benchmarks compare with).',
    run: (_args, elicitation) => text(`You are ${elicitation.userId}`),
  },
];

/**
 * Builds the demo's MCP servers with the same tools: an SDK 1.x server per 2025-11-25 session, and an
 * SDK 2.x server per 2026-07-28 request (stateless; `serverOptions()` verifies sealed `requestState`).
 */
@Injectable()
export class DemoToolsService {
  constructor(private readonly elicitation: McpElicitation) {}

  /** A server for one 2025-11-25 session (SDK 1.x). */
  createServer(): McpServer {
    const server = new McpServer(SERVER_INFO);
    this.register(server);
    // MCP conformance suite only (`npm run conformance` sets MCP_CONFORMANCE=1): the suite's test tools.
    if (process.env.MCP_CONFORMANCE === '1') registerConformanceTools(server, this.elicitation);
    // A test fixture (the steps e2e test): a tool that records its step's effect in this file.
    if (process.env.DEMO_EFFECTS_FILE) registerTicketTestTool(server, this.elicitation, process.env.DEMO_EFFECTS_FILE);
    return server;
  }

  /** A server for one 2026-07-28 request (SDK 2.x). */
  createInputRequiredServer(): Sdk2McpServer {
    const server = new Sdk2McpServer(SERVER_INFO, {
      ...this.elicitation.serverOptions(),
      // A server lives for one request here, so its lists never change while a client could listen.
      capabilities: {
        tools: { listChanged: false },
        ...(process.env.MCP_CONFORMANCE === '1' && { logging: {}, prompts: { listChanged: false } }),
      },
    });
    this.register(server);
    if (process.env.MCP_CONFORMANCE === '1') {
      registerConformanceTools(server, this.elicitation);
      registerInputRequiredConformanceTools(server, this.elicitation);
      registerTaskConformanceTools(server, this.elicitation);
    }
    // A test fixture (the fenced-runs e2e test): a task tool that records a side effect in this file.
    if (process.env.DEMO_EFFECTS_FILE) registerEffectTestTool(server, this.elicitation, process.env.DEMO_EFFECTS_FILE);
    return server;
  }

  private register(server: McpServer | Sdk2McpServer): void {
    for (const tool of DEMO_TOOLS) {
      this.elicitation.registerTool<unknown, ToolResult>(
        server,
        tool.name,
        {
          description: tool.description,
          inputSchema: tool.inputSchema,
          // Tasks are of protocol 2026-07-28 (SDK 2.x); a 2025-11-25 session runs the tool as a plain call.
          ...(tool.execution && server instanceof Sdk2McpServer && { execution: tool.execution }),
        },
        tool.run,
      );
    }
  }
}
