import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { ElicitationRecord, FinalStatus } from '../core/elicitation.types.js';
import { APPROVALS_STREAM, ElicitationAuditChain } from '../observability/audit-chain.js';
import { ElicitationAudit, type AuditEntry } from '../observability/elicitation-audit.js';
import { currentRequest } from '../observability/request-context.js';
import { receiptIn } from '../proofs/decision-proof.js';
import { approvalOfPage, approvalPlanOf, decisionPresence, shortHash, type ApprovalPlan, type DecisionPresence } from './approval-plan.js';
import type { ApprovalAnswer } from './elicitation-approvals.js';
import { ElicitationTransitions } from './elicitation-transitions.js';
import { passkeyActionOf } from './passkey-action.js';

/**
 * The record of who decided: after each transition made here of an approver's page, an approval or a confirm page that
 * asked for a passkey, one audit record (`approval.decided`, `approval.settled`, `passkey.decided`) to the audit sink
 * and, the same record, one line of the chained `approvals` stream (`ElicitationAuditChain`). A signed decision's
 * receipt travels in its page's answer (`{ confirmed: true, receipt }`) and is kept in both.
 */
@Injectable()
export class ElicitationDecisionLog implements OnModuleDestroy {
  private readonly logger = new Logger('ElicitationDecisionLog');
  private readonly stopListening: () => void;

  constructor(
    transitions: ElicitationTransitions,
    private readonly audit: ElicitationAudit,
    private readonly chain: ElicitationAuditChain,
  ) {
    this.stopListening = transitions.onMovedHere((status, record, answerJson) => this.movedHere(status, record, answerJson));
  }

  onModuleDestroy(): void {
    this.stopListening();
  }

  private movedHere(status: FinalStatus, record: Readonly<ElicitationRecord>, answerJson: string | undefined): void {
    const entry = decisionEntry(status, record, answerJson);
    if (!entry) return;
    const built = this.audit.build(entry);
    this.audit.deliver(built);
    void this.chain
      .append(APPROVALS_STREAM, { ...built })
      .catch((error: unknown) =>
        this.logger.error(`The decision on ${record.id} was not chained: ${error instanceof Error ? error.message : String(error)}`),
      );
  }
}

/** The audit entry of a decision moved here, or `undefined` for a transition that is none. */
function decisionEntry(status: FinalStatus, record: Readonly<ElicitationRecord>, answerJson: string | undefined): AuditEntry | undefined {
  const approvalId = approvalOfPage(record.type);
  const decided = status === 'completed' || status === 'declined';
  const receipt = status === 'completed' ? receiptIn(parse(answerJson)) : undefined;
  if (approvalId !== undefined) {
    if (!decided) return undefined;
    const plan = record.metadata.approval as ApprovalPlan | undefined;
    return {
      event: 'approval.decided',
      elicitationId: approvalId,
      userId: record.userId,
      decision: status === 'completed' ? 'approved' : 'rejected',
      via: currentRequest() ? 'page' : 'api',
      ...(plan?.hash !== undefined && { actionHash: shortHash(plan.hash) }),
      ...presenceEntry(decisionPresence(plan, record.userId, receipt)),
    };
  }
  const plan = approvalPlanOf(record);
  if (record.kind === 'approval' && plan) {
    const answer = status === 'completed' ? (parse(answerJson) as ApprovalAnswer | undefined) : undefined;
    return {
      event: 'approval.settled',
      elicitationId: record.id,
      userId: record.userId,
      ...(decided ? { decision: status === 'completed' ? ('approved' as const) : ('rejected' as const) } : { reason: status }),
      ...(plan.hash !== undefined && { actionHash: shortHash(plan.hash) }),
      ...(answer?.approvedBy && { approvedBy: answer.approvedBy }),
    };
  }
  const action = passkeyActionOf(record);
  if (!action || !decided) return undefined;
  return {
    event: 'passkey.decided',
    elicitationId: record.id,
    userId: record.userId,
    decision: status === 'completed' ? 'approved' : 'rejected',
    actionHash: shortHash(action.actionHash),
    // The page asked for a passkey: signed, or answered by the service (no receipt).
    ...presenceEntry(decisionPresence({ passkey: [record.userId] }, record.userId, receipt)),
  };
}

/** A decision's presence as its audit record carries it (the receipt a plain object of the record's own). */
function presenceEntry({ presence, receipt }: DecisionPresence): Pick<AuditEntry, 'presence' | 'receipt'> {
  return { presence, ...(receipt && { receipt: { ...receipt } }) };
}

function parse(json: string | undefined): unknown {
  if (json === undefined) return undefined;
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}
