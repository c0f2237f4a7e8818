import type { ElicitationKind } from '../core/elicitation.types.js';

// The audit log's public types (the `audit` option's): a leaf, so the options can name them.

/**
 * The security-relevant events the audit log records:
 * - `created`: an elicitation was created (`outcome: 'success'`);
 * - `page.opened`: a page GET passed every check and showed the page (or sent the browser on, `external`);
 * - `page.refused`: a page or status request was refused; `reason` says why (`identity`, `csrf`, `expired`,
 *   `finished`, `not-found`, `too-large`, `throttled`, `passkey`: a passkey that did not sign this page's decision);
 * - `answered`, `declined`, `cancelled`, `expired`: the elicitation left `pending` that way, on this instance;
 * - `extended`: the pending elicitation was given more time ("Need more time?"), on this instance;
 * - `answer.consumed`: a read-once read (`consume: true`) took the answer out of the store;
 * - `request-state.refused`: a 2026-07-28 `requestState` was refused; `reason` is its `RequestStateRejection`;
 * - `approval.decided`: an approver approved or rejected (`decision`) on their page (`via: 'page'`) or through the
 *   service (`via: 'api'`); `elicitationId` is the approval's, `userId` the approver, `actionHash` the action's short hash;
 *   `presence: 'passkey'` and the `receipt` when they signed;
 * - `approval.settled`: an approval ended (`status`), with who approved (`approvedBy`) when it was approved;
 * - `passkey.decided`: the user of a confirm page that asks for a passkey confirmed (with the `receipt`) or declined it.
 */
export type ElicitationAuditEvent =
  | 'created'
  | 'page.opened'
  | 'page.refused'
  | 'answered'
  | 'declined'
  | 'cancelled'
  | 'expired'
  | 'extended'
  | 'answer.consumed'
  | 'request-state.refused'
  | 'approval.decided'
  | 'approval.settled'
  | 'passkey.decided';

/**
 * One audit record. Never an answer, a secret, a CSRF token or a `requestState`: ids, the kind, the user id, the
 * client's address and agent, and how it ended.
 */
export interface ElicitationAuditRecord {
  /** When it happened, ISO 8601 (UTC). */
  time: string;
  event: ElicitationAuditEvent;
  /** `failure` for the refusals (`page.refused`, `request-state.refused`), `success` for everything else. */
  outcome: 'success' | 'failure';
  /** The elicitation, when the event concerns one (a refusal before the id was read has none). */
  elicitationId?: string;
  kind?: ElicitationKind;
  /** The user the elicitation belongs to (`request-state.refused`: the verified user of the call), when known. */
  userId?: string;
  /** The client IP of the browser request behind the event, when there is one (`req.ip`). */
  ip?: string;
  /** Its `User-Agent`, at most 256 characters. */
  userAgent?: string;
  /** Why it was refused (`page.refused`, `request-state.refused`). */
  reason?: string;
  /** The HTTP status answered (`page.opened`, `page.refused`). */
  status?: number;
  /** `approval.decided`: what the approver decided, where, and the first 12 digits of the action's hash. */
  decision?: 'approved' | 'rejected';
  via?: 'page' | 'api';
  actionHash?: string;
  /** `approval.decided`, `passkey.decided`: `passkey` when the decision was signed with one. */
  presence?: 'click' | 'passkey';
  /** A signed decision's receipt (`ElicitationService.verifyReceipt` checks it again): public values only. */
  receipt?: Readonly<Record<string, unknown>>;
  /** `approval.settled`: who approved, in the order they decided. */
  approvedBy?: readonly string[];
}

/** An audit sink: receives each record once; a sink that throws or rejects is logged and never disturbs the request. */
export type ElicitationAuditSink = (record: Readonly<ElicitationAuditRecord>) => void | Promise<void>;

/** What the `audit` option takes: `'log'` (one JSON line per record through Nest's `Logger`), a sink, or `false`. */
export type ElicitationAuditOption = 'log' | ElicitationAuditSink | false;
