import { Injectable } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { defineForm, McpElicitation } from '../../src/index.js';
import { profileForm } from './profile-form.js';
import { registerConformanceTools } from './conformance-tools.js';

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

/** The delete-file confirmation (form mode). */
const deleteForm = defineForm({
  type: 'object',
  properties: { confirmed: { type: 'boolean', title: 'Delete the file', default: false } },
  required: ['confirmed'],
});

/** Builds one MCP server (one per session) with the three demo tools. */
@Injectable()
export class DemoToolsService {
  constructor(private readonly elicitation: McpElicitation) {}

  createServer(): McpServer {
    const server = new McpServer({ name: 'nestjs-mcp-elicitation-demo', version: '0.1.0' });

    server.registerTool(
      'connect-service',
      {
        description: 'Connects to a third-party service with your API key (asked for on a web page, never through the chat).',
        inputSchema: { service: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/).describe('Service name, e.g. github') },
      },
      async ({ service }, extra) => {
        // Asks for the key through a URL elicitation (-32042) unless this user already gave one;
        // the client retries after the completion notification and lands here with the key stored.
        await this.elicitation.forRequest(server, extra).requireAnswer({
          kind: 'api-key',
          type: `api-key-${service}`,
          message: `Enter your ${service} API key so the assistant can connect to ${service} for you.`,
          metadata: { service },
        });
        return text(`Connected to ${service}`);
      },
    );

    server.registerTool(
      'approve-deploy',
      {
        description: 'Deploys an app after you confirm on a web page.',
        inputSchema: { app: z.string().min(1).max(80).describe('App to deploy') },
      },
      async ({ app }, extra) => {
        const outcome = await this.elicitation.forRequest(server, extra).requestUrl({
          kind: 'confirm',
          type: 'deploy-approval',
          message: `Deploy ${app} to production?`,
          metadata: { title: `Deploy ${app}`, warning: 'This replaces the version running now.', confirmLabel: 'Deploy', cancelLabel: 'Cancel' },
        });
        return text(outcome.status === 'completed' ? `Deployed ${app}` : 'Deployment cancelled');
      },
    );

    server.registerTool(
      'delete-file',
      {
        description: 'Deletes a file after you confirm in the client (form mode). The demo deletes nothing.',
        inputSchema: { path: z.string().min(1).max(500).describe('File to delete') },
      },
      async ({ path }, extra) => {
        const answer = await this.elicitation.forRequest(server, extra).elicit(`Delete ${path}?`, deleteForm);
        return text(answer.action === 'accept' && answer.content.confirmed ? `Deleted ${path}` : 'Cancelled');
      },
    );

    server.registerTool(
      'configure-profile',
      {
        description: 'Sets up your profile through a form with every field kind (form mode; the hosted form page for clients without form support).',
      },
      async (extra) => {
        const answer = await this.elicitation
          .forRequest(server, extra)
          .elicit('Set up your profile', profileForm, { fallback: 'hosted' });
        if (answer.action !== 'accept') return text(answer.action === 'decline' ? 'Profile not changed' : 'Cancelled');
        const p = answer.content;
        return text(`Profile saved for ${p.displayName} (${p.plan ?? 'free'} plan, interests: ${p.interests.join(', ')})`);
      },
    );

    // MCP conformance suite only (`npm run conformance` sets MCP_CONFORMANCE=1): the suite's test tools.
    if (process.env.MCP_CONFORMANCE === '1') registerConformanceTools(server, this.elicitation);

    return server;
  }
}
