import { createHash } from 'node:crypto';
import type { ElicitationRecord } from '../core/elicitation.types.js';
import { ElicitationInputError } from '../errors/elicitation-input.error.js';
import { canonicalJson } from '../core/json-digest.js';
import type { PasskeyReceipt } from '../proofs/decision-proof.js';

/** The type (and askKey) of an approver's page: `approval:<the approval's id>`. */
export const APPROVAL_PAGE_PREFIX = 'approval:';
/** The most approvers one approval may name. */
export const MAX_APPROVERS = 50;
/** An argument's value shown on the pages is folded past this many characters. */
export const MAX_SHOWN_VALUE_LENGTH = 200;
/** The most arguments the pages show (the hash covers them all). */
const MAX_SHOWN_ARGUMENTS = 20;

/** The action an approval is for: the call's tool and arguments, and the server's name; its hash binds the approval. */
export interface ApprovalAction {
  /** The MCP server's name (`serverInfo.name`), where known. */
  server?: string;
  tool: string;
  /** The call's arguments, as the tool got them. */
  args?: unknown;
}

/** For `kind: 'approval'` (what `requestApproval` creates): who decides, how many must agree, on what. */
export interface ApprovalInput {
  /** The users who may approve, each getting a confirm page of their own (at most 50, distinct). */
  approvers: readonly string[];
  /** How many distinct approvers must approve. @default 1 */
  quorum?: number;
  /** How many rejections end it as rejected. @default 1 */
  rejectionsToDeny?: number;
  /** The requester (the elicitation's `userId`) never approves their own request unless this is `false`. @default true */
  excludeRequester?: boolean;
  /** The action approved: hashed (canonical JSON of server, tool and arguments), shown on every approver's page. */
  action?: ApprovalAction;
  /** More about the action for the approvers, plain text (escaped), at most 2000 characters. */
  details?: string;
  /**
   * How the approvers decide: `passkey` for every one (each signs their approval with a passkey), or per approver
   * (`{ bob: 'passkey' }`; the others click). @default `click`
   */
  presence?: 'click' | 'passkey' | Readonly<Record<string, 'click' | 'passkey'>>;
}

/** What an approval's record keeps (`metadata.approval`), and each approver's page (with `requester`). */
export interface ApprovalPlan {
  approvers: string[];
  quorum: number;
  rejectionsToDeny: number;
  /** SHA-256 of the canonical JSON of the action, hex; absent without an action. */
  hash?: string;
  tool?: string;
  /** The arguments as the pages show them: `[name, value]`, long values folded. */
  shown?: Array<[string, string]>;
  details?: string;
  /** The approvers who sign with a passkey. */
  passkey?: string[];
  requester?: string;
}

/** The action's hash: SHA-256 of the canonical JSON (sorted keys) of `{ server, tool, args }`, hex. */
export function actionHash(action: ApprovalAction): string {
  return createHash('sha256')
    .update(canonicalJson({ server: action.server ?? null, tool: action.tool, args: action.args ?? null }))
    .digest('hex');
}

/** The first 12 hex digits of a hash, as the pages and the messages show it. */
export function shortHash(hash: string): string {
  return hash.slice(0, 12);
}

/** Checks `approval` (naming the field and the value it got) and makes the plan the record keeps. */
export function planApproval(input: unknown, requester: string): ApprovalPlan {
  if (!input || typeof input !== 'object') throw new ElicitationInputError('approval', 'is required for kind "approval"');
  const { approvers, quorum = 1, rejectionsToDeny = 1, excludeRequester = true, action, details, presence } = input as ApprovalInput;
  if (!Array.isArray(approvers) || approvers.some((a) => typeof a !== 'string' || a === '' || a.length > 256)) {
    throw new ElicitationInputError('approval.approvers', 'must be a list of user ids (non-empty strings)');
  }
  const eligible = [...new Set<string>(approvers as readonly string[])].filter((a) => !(excludeRequester !== false && a === requester));
  if (eligible.length > MAX_APPROVERS) throw new ElicitationInputError('approval.approvers', `must name at most ${MAX_APPROVERS} users`);
  if (!Number.isInteger(quorum) || quorum < 1 || quorum > eligible.length) {
    throw new ElicitationInputError(
      'approval.quorum',
      `must be a whole number from 1 to the ${eligible.length} approver(s) other than the requester (got ${String(quorum)})`,
    );
  }
  if (!Number.isInteger(rejectionsToDeny) || rejectionsToDeny < 1 || rejectionsToDeny > eligible.length) {
    throw new ElicitationInputError(
      'approval.rejectionsToDeny',
      `must be a whole number from 1 to ${eligible.length} (got ${String(rejectionsToDeny)})`,
    );
  }
  if (details !== undefined && (typeof details !== 'string' || details.length > 2000)) {
    throw new ElicitationInputError('approval.details', 'must be a string of at most 2000 characters');
  }
  if (action !== undefined && (typeof action !== 'object' || typeof action.tool !== 'string' || action.tool === '')) {
    throw new ElicitationInputError('approval.action', 'must be { tool, args?, server? } with the tool name');
  }
  if (presence !== null && typeof presence === 'object') {
    const stranger = Object.keys(presence).find((name) => !(approvers as readonly string[]).includes(name));
    if (stranger !== undefined) throw new ElicitationInputError('approval.presence', `names "${stranger}", who is not an approver`);
  }
  const passkey = eligible.filter((a) => presenceOf(presence, a) === 'passkey');
  return {
    approvers: eligible,
    quorum,
    rejectionsToDeny,
    ...(action && { hash: actionHash(action), tool: action.tool, shown: shownArguments(action.args) }),
    ...(details !== undefined && { details }),
    ...(passkey.length > 0 && { passkey }),
  };
}

/** How `approver` decides under `presence` (checked: naming `approval.presence` and the value it got). */
function presenceOf(presence: ApprovalInput['presence'], approver: string): 'click' | 'passkey' {
  const value =
    presence !== null && typeof presence === 'object' ? (Object.hasOwn(presence, approver) ? presence[approver] : 'click') : presence;
  if (value === undefined || value === 'click' || value === 'passkey') return value ?? 'click';
  throw new ElicitationInputError(
    'approval.presence',
    `must be "click", "passkey" or a map of approvers to either (got ${JSON.stringify(value)})`,
  );
}

/** The arguments as the pages show them: each top-level one as JSON, folded past 200 characters; at most 20. */
export function shownArguments(args: unknown): Array<[string, string]> {
  const entries: Array<[string, unknown]> =
    args && typeof args === 'object' && !Array.isArray(args) ? Object.entries(args) : args === undefined ? [] : [['arguments', args]];
  const shown = entries.slice(0, MAX_SHOWN_ARGUMENTS).map(([name, value]): [string, string] => {
    const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
    return [name, text.length > MAX_SHOWN_VALUE_LENGTH ? `${text.slice(0, MAX_SHOWN_VALUE_LENGTH)}… (${text.length} characters)` : text];
  });
  if (entries.length > MAX_SHOWN_ARGUMENTS) shown.push(['…', `${entries.length - MAX_SHOWN_ARGUMENTS} more`]);
  return shown;
}

/** An approval's plan, as its record keeps it; `undefined` for a record that is not an approval. */
export function approvalPlanOf(record: Pick<ElicitationRecord, 'kind' | 'metadata'>): ApprovalPlan | undefined {
  const plan = record.metadata?.approval as ApprovalPlan | undefined;
  return record.kind === 'approval' || plan?.requester !== undefined ? plan : undefined;
}

/** The approval an approver's page belongs to (its `type` is `approval:<id>`), or `undefined`. */
export function approvalOfPage(type: string | undefined): string | undefined {
  return type?.startsWith(APPROVAL_PAGE_PREFIX) ? type.slice(APPROVAL_PAGE_PREFIX.length) : undefined;
}

/** How an approver decided: signed with a passkey (its receipt), or as the plan asked them to (a page answered by the service carries no receipt). */
export type DecisionPresence = { presence: 'passkey'; receipt: PasskeyReceipt } | { presence: 'passkey' | 'click'; receipt?: undefined };

/** `userId`'s presence on an approval of `plan`: signed when `receipt` is there, else what the plan asked of them. */
export function decisionPresence(
  plan: Pick<ApprovalPlan, 'passkey'> | undefined,
  userId: string,
  receipt?: PasskeyReceipt,
): DecisionPresence {
  if (receipt) return { presence: 'passkey', receipt };
  return { presence: plan?.passkey?.includes(userId) ? 'passkey' : 'click' };
}
