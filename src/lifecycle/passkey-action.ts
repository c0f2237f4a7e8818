import { createHash } from 'node:crypto';
import { canonicalJson } from '../core/json-digest.js';
import type { ElicitationRecord } from '../core/elicitation.types.js';
import { ElicitationInputError } from '../errors/elicitation-input.error.js';
import { actionHash, shownArguments, type ApprovalAction, type ApprovalPlan } from './approval-plan.js';

/** How a page knows who decides: a click of the signed-in user (`click`), or their passkey's signature too (`passkey`). */
export type PagePresence = 'click' | 'passkey';

/** What a page that asks for a passkey keeps (`metadata.passkey`): the hash its signature binds, and what it shows. */
export interface PasskeyAction {
  /** The action's hash, hex (an approver's page: the approval's). */
  actionHash: string;
  tool?: string;
  shown?: Array<[string, string]>;
}

/**
 * Checks `presence` and `action` of a new record and, for a passkey, keeps what its signature binds: the approval's
 * action hash on an approver's page, the hash of `action` (the call's tool and arguments) on a confirm page given one,
 * else the hash of what the page says (its message and settings).
 */
export function attachPresence(record: ElicitationRecord, presence: unknown, action: ApprovalAction | undefined): void {
  if (presence !== undefined && presence !== 'click' && presence !== 'passkey') {
    throw new ElicitationInputError('presence', `must be "click" or "passkey" (got ${JSON.stringify(presence)})`);
  }
  if (action !== undefined && presence !== 'passkey') throw new ElicitationInputError('action', 'is only for presence "passkey"');
  if (record.metadata.passkey !== undefined)
    throw new ElicitationInputError('metadata.passkey', 'is set by presence: "passkey", not by hand');
  if (presence !== 'passkey') return;
  if (record.kind !== 'confirm') {
    throw new ElicitationInputError(
      'presence',
      `"passkey" is only for kind "confirm" (an approval asks it of its approvers: approval.presence), not "${record.kind}"`,
    );
  }
  if (action !== undefined && (typeof action !== 'object' || typeof action.tool !== 'string' || action.tool === '')) {
    throw new ElicitationInputError('action', 'must be { tool, args?, server? } with the tool name');
  }
  const plan = record.metadata.approval as ApprovalPlan | undefined;
  const kept: PasskeyAction = plan?.hash
    ? { actionHash: plan.hash }
    : action
      ? { actionHash: actionHash(action), tool: action.tool, shown: shownArguments(action.args) }
      : { actionHash: pageHash(record) };
  record.metadata.passkey = kept;
}

/** What a page's passkey binds, or `undefined` for a page that asks for none. */
export function passkeyActionOf(record: Pick<ElicitationRecord, 'kind' | 'metadata'>): PasskeyAction | undefined {
  const kept = record.metadata?.passkey as PasskeyAction | undefined;
  return record.kind === 'confirm' && kept && typeof kept.actionHash === 'string' ? kept : undefined;
}

/** The hash of what a confirm page without an action says: its message and its settings. */
function pageHash(record: ElicitationRecord): string {
  const { title, warning, confirmLabel } = record.metadata;
  return createHash('sha256')
    .update(canonicalJson({ message: record.message, title, warning, confirmLabel }))
    .digest('hex');
}
