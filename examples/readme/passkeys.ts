import { Injectable } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ElicitationService, McpElicitation, verifyAuditChain } from 'nestjs-mcp-elicitation';
import { z } from 'zod';

@Injectable()
export class PaymentTools {
  constructor(private readonly elicitation: McpElicitation) {}

  register(server: McpServer) {
    this.elicitation.registerTool(
      server,
      'transfer-funds',
      { description: 'Transfers money once a treasurer signed it', inputSchema: z.object({ to: z.string(), amount: z.number() }) },
      async ({ to, amount }, elicitation) => {
        // Each treasurer's page asks for their passkey: the signature covers this call's tool and exact arguments.
        const approval = await elicitation.requestApproval({
          approvers: ['bob', 'carol'],
          presence: 'passkey',
          message: `Transfer ${amount} to ${to}?`,
        });
        if (approval.status !== 'approved') return { content: [{ type: 'text', text: `Not transferred (${approval.status})` }] };
        return { content: [{ type: 'text', text: `Transferred, signed by ${approval.approvedBy!.join(' and ')}` }] };
      },
    );
  }
}

/** An auditor's check, anywhere the store and the key are: the chain holds, and every signed decision verifies. */
export async function audit(elicitations: ElicitationService): Promise<string[]> {
  const jsonl = await elicitations.exportAudit({ stream: 'approvals' });
  const chain = verifyAuditChain(jsonl);
  if (!chain.valid) return [`line ${chain.line}: ${chain.reason}`];
  const problems: string[] = [];
  for (const text of jsonl.trim().split('\n').filter(Boolean)) {
    const { seq, event } = JSON.parse(text) as { seq: number; event: { receipt?: unknown } };
    if (!event.receipt) continue;
    const check = await elicitations.verifyReceipt(event.receipt);
    if (!check.valid) problems.push(`line ${seq}: ${check.reason}`);
  }
  return problems;
}
