import type { ElicitationRecord } from '../core/elicitation.types.js';

/**
 * The inbox half of a store: a user's open questions, a page at a time, from the index by user every store keeps.
 * Optional: without it the module reads `listByUser` and pages what it returns.
 */
export interface ElicitationInboxStore {
  /**
   * One page of `userId`'s open records: `pending` with `expiresAt` after `now`, newest first (by `createdAt`, then by
   * id, both descending), at most `page.limit` of them, none of another user. `page.after` is the `next` of the
   * page before (opaque to the module; absent for the first page); `next` is absent on the last page. One store
   * query per page.
   */
  listOpen(userId: string, now: number, page: OpenPageRequest): Promise<OpenPage>;
}

/** Which page of open records `listOpen` reads. */
export interface OpenPageRequest {
  /** Records on the page, at most: 1 to 100. */
  readonly limit: number;
  /** The `next` of the page before; absent for the first page. */
  readonly after?: string;
}

/** A page of open records, newest first. */
export interface OpenPage {
  readonly records: ElicitationRecord[];
  /** Where the next page starts (pass it as `after`); absent when this page is the last. */
  readonly next?: string;
}

/** A cursor for `listOpen`: the last record of a page, as every store writes it (`<createdAt>.<id>`). */
export function openCursorOf(record: Pick<ElicitationRecord, 'createdAt' | 'id'>): string {
  return `${record.createdAt}.${record.id}`;
}

/** Reads a cursor `openCursorOf` wrote; `undefined` for anything else (a page request with it starts over). */
export function readOpenCursor(cursor: string | undefined): { createdAt: number; id: string } | undefined {
  const match = cursor === undefined ? null : /^(\d{1,15})\.([A-Za-z0-9_-]{1,128})$/.exec(cursor);
  return match ? { createdAt: Number(match[1]), id: match[2] } : undefined;
}

/** Whether `record` comes after the cursor `after` in `listOpen`'s order (newest first, then id descending). */
export function isAfterCursor(
  record: Pick<ElicitationRecord, 'createdAt' | 'id'>,
  after: { createdAt: number; id: string } | undefined,
): boolean {
  if (!after) return true;
  return record.createdAt < after.createdAt || (record.createdAt === after.createdAt && record.id < after.id);
}

/** A notification waiting to go out, as the module hands it to `addNotices`. */
export interface NewNotice {
  /**
   * Unique and stable: the idempotency key a receiver de-duplicates on (the module derives it from the elicitation,
   * the event and the notifier). Letters, digits, `_` and `-`, at most 128.
   */
  readonly id: string;
  /** The elicitation it is about. */
  readonly elicitationId: string;
  /** When it may go out first, epoch milliseconds. */
  readonly dueAt: number;
  /** When the store may forget it, whatever its state, epoch milliseconds (after `dueAt`). */
  readonly forgetAt: number;
  /** What the module needs to send it (the notifier, the event, the reminder): never an answer or a secret. Opaque. */
  readonly body: string;
}

/** A notice as the outbox keeps it. */
export interface StoredNotice extends NewNotice {
  /** `pending` until delivered (then forgotten) or given up (`failed`, kept until `forgetAt`). */
  readonly state: 'pending' | 'failed';
  /** Claims so far (each claim is an attempt). */
  readonly attempts: number;
  /** The instance that claimed it last; its claim holds until `dueAt`, which the claim moved to the lease's end. */
  readonly owner?: string;
  /** The last failure, as the module reported it (no secret: a status code, an error's name and message). */
  readonly lastError?: string;
}

/** What became of a claimed notice (`settleNotice`). */
export type NoticeOutcome =
  /** Sent: the store forgets it and counts it delivered. */
  | { readonly kind: 'delivered' }
  /** Not now: due again at `dueAt` (a retry after a failure, or a reminder moved by "Need more time?"). */
  | { readonly kind: 'retry'; readonly dueAt: number; readonly error?: string; readonly body?: string }
  /** Given up: kept as `failed` until its `forgetAt`. */
  | { readonly kind: 'failed'; readonly error: string }
  /** Nothing to send any more (the question was answered, say): forgotten, not counted delivered. */
  | { readonly kind: 'dropped' };

/** The outbox's state, for metrics and health. */
export interface NoticeOutboxStats {
  /** Notices not yet delivered, claimed ones included. */
  readonly pending: number;
  /** Notices given up. */
  readonly failed: number;
  /** Notices delivered since the store was created (the store's own count). */
  readonly delivered: number;
  /** The earliest `dueAt` of a pending notice (a claimed one's is its lease's end); absent with none pending. */
  readonly oldestDueAt?: number;
}

/**
 * The outbox half of a store: notifications (`notify`) kept until delivered, so that an instance that dies or a
 * notifier that fails loses none. Optional, the four together: without them the module refuses `notify`.
 * Every instance claims due notices; a claim is a lease (the notice is not due again until it ends), and a
 * settlement is fenced by it: only the instance that claimed a notice last settles it.
 */
export interface ElicitationNoticeStore {
  /** Keeps the notices whose ids it does not hold; one already held is left as it is. Resolves how many it added. */
  addNotices(notices: readonly NewNotice[], now: number): Promise<number>;
  /**
   * Claims up to `limit` pending notices due at `now` (`dueAt <= now`), earliest due first, for `owner`: each gets
   * `owner`, one more attempt and `dueAt: now + leaseMs`, in one atomic step (of two claimers at once, each notice
   * goes to one). Notices past their `forgetAt` are forgotten, never claimed.
   */
  claimNotices(owner: string, now: number, limit: number, leaseMs: number): Promise<StoredNotice[]>;
  /**
   * Settles a notice `owner` claimed, while it is still `owner`'s (no other instance claimed it since): resolves
   * `false`, changing nothing, when it is not (or the notice is gone).
   */
  settleNotice(id: string, owner: string, outcome: NoticeOutcome, now: number): Promise<boolean>;
  /** The outbox's counts (one query). */
  noticeStats(now: number): Promise<NoticeOutboxStats>;
}
