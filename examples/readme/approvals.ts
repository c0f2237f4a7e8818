import { Injectable } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpElicitation } from 'nestjs-mcp-elicitation';
import { z } from 'zod';

/** Your groups: who may approve what. */
const groups = { dba: ['alice', 'bob', 'carol'] };

@Injectable()
export class DatabaseTools {
  constructor(private readonly elicitation: McpElicitation) {}

  register(server: McpServer) {
    this.elicitation.registerTool(
      server,
      'drop-table',
      { description: 'Drops a table once two DBAs approved', inputSchema: z.object({ table: z.string() }) },
      async ({ table }, elicitation) => {
        // Each DBA but the requester gets a confirm page of their own (in their inbox, and from the notifiers),
        // showing the tool, these exact arguments and their fingerprint.
        const approval = await elicitation.requestApproval({
          approvers: ({ userId }) => groups.dba.filter((dba) => dba !== userId),
          quorum: 2,
          message: `Drop the table ${table}?`,
          details: 'Backups are kept for 30 days.',
          ttlMs: 24 * 3_600_000,
        });
        if (approval.status !== 'approved') return { content: [{ type: 'text', text: `Not dropped (${approval.status})` }] };
        // Approved for this call's exact arguments, used by this execution only.
        return { content: [{ type: 'text', text: `Dropped ${table}, approved by ${approval.approvedBy!.join(' and ')}` }] };
      },
    );
  }
}
