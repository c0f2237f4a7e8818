import type { ElicitationRecord } from '../core/elicitation.types.js';
import { shortHash, type ApprovalPlan } from '../lifecycle/approval-plan.js';
import { approvalProgressOf, type ApprovalTally } from '../lifecycle/elicitation-approvals.js';
import { passkeyActionOf } from '../lifecycle/passkey-action.js';
import type { PageMessages } from '../messages/page-messages.js';
import { displayText } from '../security/display-text.js';
import type { ApprovalActionView, PageContexts } from './page-contexts.js';

/** What an approver's page (and the requester's) shows of the action approved; `null` for a record that is no approval's. */
export function approvalActionView(record: ElicitationRecord, messages: PageMessages): ApprovalActionView | null {
  const plan = (record.metadata.approval as ApprovalPlan | undefined) ?? passkeyPlan(record);
  if (!plan || typeof plan !== 'object') return null;
  const texts = messages.approval;
  return {
    caption: texts.action,
    requestedBy: typeof plan.requester === 'string' ? displayText(plan.requester, 'line') : null,
    tool: typeof plan.tool === 'string' ? displayText(plan.tool, 'line') : null,
    arguments: (plan.shown ?? []).map(([name, value]) => ({ name: displayText(name, 'line'), value: displayText(value) })),
    hash: typeof plan.hash === 'string' ? shortHash(plan.hash) : null,
    fullHash: typeof plan.hash === 'string' ? plan.hash : null,
    details: typeof plan.details === 'string' ? displayText(plan.details) : null,
    texts,
  };
}

/**
 * What a confirm page that asks for a passkey shows of the action its signature binds (an `action` given: the tool, the
 * arguments, the fingerprint), as an approval's plan; `undefined` for a page that binds what it says, or asks none.
 */
function passkeyPlan(record: ElicitationRecord): Partial<ApprovalPlan> | undefined {
  const action = passkeyActionOf(record);
  return action?.tool === undefined ? undefined : { tool: action.tool, shown: action.shown, hash: action.actionHash };
}

/** The requester's page of an approval: where it stands, who decided, who has not. */
export function approvalPageContext(record: ElicitationRecord, tally: ApprovalTally, messages: PageMessages): PageContexts['approval'] {
  const texts = messages.approval;
  const { approved, rejected } = approvalProgressOf(tally);
  const names = (list: readonly string[]) => (list.length > 0 ? list.map((n) => displayText(n, 'line')).join(', ') : null);
  return {
    heading: texts.waiting,
    message: record.message,
    progress: texts.progress(approved.length, tally.quorum),
    approvedBy: names(approved),
    rejectedBy: names(rejected),
    waitingFor: record.status === 'pending' ? names(tally.waiting) : null,
    action: approvalActionView(record, messages),
    labels: messages.labels,
    texts,
  };
}
