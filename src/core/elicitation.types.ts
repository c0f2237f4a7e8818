import type { ElicitationKind } from './elicitation-kinds.js';

/** The page a URL-mode elicitation sends the user to (declared beside the one list of kinds, `ELICITATION_KINDS`). */
export type { ElicitationKind } from './elicitation-kinds.js';

/** Every state an elicitation can be in. `pending` is the only state a record ever leaves. */
export type ElicitationStatus = 'pending' | 'completed' | 'declined' | 'cancelled' | 'expired';

/** The states a record can end in. */
export type FinalStatus = Exclude<ElicitationStatus, 'pending'>;

/** Data a user submitted on a page, as stored. Never shown by the status route. */
export type ElicitationData = Record<string, unknown>;

/** One elicitation as the stores keep it. */
export interface ElicitationRecord {
  /** Unguessable id (v4 UUID); the only thing the page URL carries. */
  id: string;
  /** Which page collects the answer. */
  kind: ElicitationKind;
  /** The user the elicitation was created for; only this user may answer it. */
  userId: string;
  /** What the answer is for, e.g. `api-key-github`; looked up by `findByUserAndType`. Defaults to the kind. */
  type: string;
  /** Human-readable reason shown on the page. */
  message: string;
  /** Extra page settings (labels, warning) and caller data. Never contains secrets. */
  metadata: Record<string, unknown>;
  status: ElicitationStatus;
  /** Creation time, epoch milliseconds. */
  createdAt: number;
  /** When a pending record expires, epoch milliseconds. */
  expiresAt: number;
  /** When the record left `pending`, epoch milliseconds. */
  finishedAt?: number;
  /** When the store may forget the record, epoch milliseconds. */
  purgeAt: number;
  /**
   * The submitted answer, for `completed` records only, as the service hands it to the store: `{ $json }` (its JSON
   * text) in a store that keeps records in this process, `{ $sealed }` (that text sealed) in any other.
   */
  data?: ElicitationData;
  /** When a read-once delivery consumed the data (then `data` is gone), epoch milliseconds. */
  consumedAt?: number;
  /**
   * When the pending record was given more time ("Need more time?", `ElicitationService.extend`), epoch
   * milliseconds; absent until then. A record is extended at most once.
   */
  extendedAt?: number;
  /**
   * Its `expiresAt` before that extension, epoch milliseconds (so its original lifetime stays known:
   * `extendedFrom - createdAt`); absent until then.
   */
  extendedFrom?: number;
  /** The MCP session that asked, if any (kept for routing the completion notification). */
  sessionId?: string;
  /**
   * The MCP task that asked, if any: a page's outcome moves that task on, on whichever instance it is answered.
   * Absent for elicitations no task created.
   */
  taskId?: string;
  /**
   * Which tool question asked (a digest of the user, the tool, its arguments and the question's position in
   * the call; never a value): a later call of the same tool finds the question here (the MCP binding's link
   * rung). Absent for elicitations created directly.
   */
  askKey?: string;
}

/** What `complete`, `decline`, `cancel` and `expire` tell the caller. Expected outcomes are values, not throws. */
export type TransitionResult =
  | { ok: true; record: ElicitationRecord }
  | { ok: false; reason: 'not-found' }
  | { ok: false; reason: 'already-finished'; status: FinalStatus; record: ElicitationRecord }
  | { ok: false; reason: 'expired'; record: ElicitationRecord };

/**
 * What a store's `extend` tells the caller: the record with its new `expiresAt`, or why it was not extended (the
 * refusals of `TransitionResult`, and `already-extended`: a record is extended once).
 */
export type ExtendResult =
  | { ok: true; record: ElicitationRecord }
  | { ok: false; reason: 'not-found' }
  | { ok: false; reason: 'already-finished'; status: FinalStatus; record: ElicitationRecord }
  | { ok: false; reason: 'expired'; record: ElicitationRecord }
  | { ok: false; reason: 'already-extended'; record: ElicitationRecord };

/** What `ElicitationService.extend` tells the caller: the store's answer, or `unsupported` for a store without `extend`. */
export type ElicitationExtendResult = ExtendResult | { ok: false; reason: 'unsupported' };

/** How an elicitation ended, as a tool sees it. */
export type ElicitationOutcome<T extends ElicitationData = ElicitationData> =
  { status: 'completed'; data: T } | { status: 'declined' } | { status: 'cancelled' } | { status: 'expired' };

/** What `waitForCompletion` resolves with: an outcome, or `timeout` when the wait ended first. */
export type WaitOutcome<T extends ElicitationData = ElicitationData> = ElicitationOutcome<T> | { status: 'timeout' };

/** The public view of an elicitation (`GET /elicit/:id/status`). It never carries submitted data. */
export interface ElicitationStatusView {
  elicitationId: string;
  status: ElicitationStatus;
  /** ISO 8601 timestamp. */
  createdAt: string;
  /** ISO 8601 timestamp. */
  expiresAt: string;
  /** True once the user submitted an answer (`status === 'completed'`). */
  completed: boolean;
  /** An approval (`kind: 'approval'`): how many approved, and how many must; never who. */
  approvals?: { approved: number; required: number };
}

/** A record summary for listings: no submitted data. */
export interface ElicitationSummary {
  elicitationId: string;
  kind: ElicitationKind;
  type: string;
  userId: string;
  status: ElicitationStatus;
  createdAt: number;
  expiresAt: number;
  finishedAt?: number;
}

/**
 * A lifecycle event. Events never carry submitted data. `extended` is no transition: the elicitation is still
 * pending, with a later `expiresAt` ("Need more time?").
 */
export interface ElicitationEvent {
  type: 'created' | 'extended' | FinalStatus;
  elicitationId: string;
  userId: string;
  kind: ElicitationKind;
  elicitationType: string;
  /** The record's MCP session, when it has one. */
  sessionId?: string;
  /** The record's MCP task, when a task asked (`ElicitationRecord.taskId`). */
  taskId?: string;
  /** Epoch milliseconds. */
  at: number;
  /** The new expiry of an `extended` event, epoch milliseconds (only there). */
  expiresAt?: number;
}
