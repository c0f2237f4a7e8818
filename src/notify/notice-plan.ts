import { createHash } from 'node:crypto';
import { askedByOf } from '../core/asked-by.js';
import type { ElicitationRecord } from '../core/elicitation.types.js';
import type { ElicitationNotice, NoticeEvent } from '../core/notice.js';
import type { ResolvedNotifyOptions } from '../options/notify-options.js';
import type { NewNotice, StoredNotice } from '../stores/notice-store.js';

/** How long the outbox keeps a notice after its question's expiry, whatever became of it (failed ones, for a look). */
export const NOTICE_KEEP_MS = 7 * 24 * 3_600_000;
/** How long after the expiry the `expired` notice is due (the sweep has marked the record by then, mostly). */
export const EXPIRED_NOTICE_GRACE_MS = 1_000;
/**
 * A notice whose question is not in the store yet (its creation still running: the notices are kept first) is looked
 * at again after 0.5 s, then 1, 2, 4, 8 and 15 s, and dropped at the claim after that (some 45 s later): a creation
 * that took milliseconds sends its `created` notice within a second, one the quota refused costs a few claims. Counted
 * in claims, since a claim moves the notice's `dueAt` to its lease's end.
 */
export const MISSING_RECORD_RETRIES_MS: readonly number[] = [500, 1_000, 2_000, 4_000, 8_000, 15_000, 15_000];

/** What a notice's body holds: the notifier, the event, the reminder's lead, the expiry it was planned for, escalation. */
export interface NoticeBody {
  readonly n: string;
  readonly e: NoticeEvent;
  /** `reminder`: milliseconds before the expiry. */
  readonly b?: number;
  /** `reminder`, `expired`: the record's `expiresAt` when planned (a "Need more time?" moves them). */
  readonly x?: number;
  /** An escalated reminder (to `escalateTo`'s contact). */
  readonly s?: 1;
}

/** The notices a new record gets: `created`, each reminder (the last also escalated), `expired`, for each notifier. */
export function plannedNotices(record: ElicitationRecord, options: ResolvedNotifyOptions): NewNotice[] {
  const { notifiers, reminders, escalateTo, outbox } = options;
  // An approval is the requester's wait, not a question to them: its approvers' pages are notified, each its own.
  if (notifiers.length === 0 || record.kind === 'approval') return [];
  const forgetAt = record.expiresAt + NOTICE_KEEP_MS;
  const bodies: Array<{ body: NoticeBody; dueAt: number }> = [
    { body: { n: '', e: 'created' }, dueAt: record.createdAt + outbox.createdDelayMs },
  ];
  reminders.forEach(({ beforeExpiryMs }, i) => {
    const dueAt = record.expiresAt - beforeExpiryMs;
    if (dueAt <= record.createdAt) return;
    bodies.push({ body: { n: '', e: 'reminder', b: beforeExpiryMs, x: record.expiresAt }, dueAt });
    if (escalateTo && i === reminders.length - 1)
      bodies.push({ body: { n: '', e: 'reminder', b: beforeExpiryMs, x: record.expiresAt, s: 1 }, dueAt });
  });
  bodies.push({ body: { n: '', e: 'expired', x: record.expiresAt }, dueAt: record.expiresAt + EXPIRED_NOTICE_GRACE_MS });
  return notifiers.flatMap(({ name }) =>
    bodies.map(({ body, dueAt }) => {
      const full: NoticeBody = { ...body, n: name };
      return { id: noticeId(record.id, full), elicitationId: record.id, dueAt, forgetAt, body: JSON.stringify(full) };
    }),
  );
}

/** A notice's id: a digest of what makes it (the elicitation, the notifier, the event, the reminder, escalation), stable. */
export function noticeId(elicitationId: string, body: NoticeBody): string {
  const key = [elicitationId, body.n, body.e, body.b ?? '', body.s ?? ''].join('|');
  return `ntc_${createHash('sha256').update(key).digest('base64url').slice(0, 32)}`;
}

/** A stored notice's body, or `undefined` for one that is not this module's (dropped). */
export function readNoticeBody(text: string): NoticeBody | undefined {
  try {
    const body = JSON.parse(text) as Partial<NoticeBody>;
    if (typeof body.n !== 'string' || (body.e !== 'created' && body.e !== 'reminder' && body.e !== 'expired')) return undefined;
    return body as NoticeBody;
  } catch {
    return undefined;
  }
}

/** What to do with a claimed notice, given its record: send it, drop it, or try again at `dueAt` (with a new body). */
export type NoticeStep =
  | { readonly kind: 'send' }
  | { readonly kind: 'drop'; readonly why: string }
  | { readonly kind: 'later'; readonly dueAt: number; readonly body?: NoticeBody };

/**
 * The rule of a notice at delivery: `created` and `reminder` only while the question is open, `expired` only once it
 * expired unanswered; a reminder or expiry planned for an expiry that "Need more time?" moved is moved with it.
 */
export function noticeStep(notice: StoredNotice, body: NoticeBody, record: ElicitationRecord | undefined, now: number): NoticeStep {
  if (!record) {
    const wait = MISSING_RECORD_RETRIES_MS[notice.attempts - 1];
    return wait === undefined ? { kind: 'drop', why: 'no such question' } : { kind: 'later', dueAt: now + wait };
  }
  const open = record.status === 'pending' && now < record.expiresAt;
  if (body.e === 'created') return open ? { kind: 'send' } : { kind: 'drop', why: 'answered or expired before it went out' };
  const moved = body.x !== undefined && body.x !== record.expiresAt;
  if (body.e === 'reminder') {
    if (!open) return { kind: 'drop', why: 'answered or expired' };
    if (moved) return { kind: 'later', dueAt: record.expiresAt - (body.b ?? 0), body: { ...body, x: record.expiresAt } };
    return { kind: 'send' };
  }
  if (open)
    return moved
      ? { kind: 'later', dueAt: record.expiresAt + EXPIRED_NOTICE_GRACE_MS, body: { ...body, x: record.expiresAt } }
      : { kind: 'later', dueAt: record.expiresAt + EXPIRED_NOTICE_GRACE_MS };
  const expired = record.status === 'expired' || record.status === 'pending';
  return expired ? { kind: 'send' } : { kind: 'drop', why: 'answered' };
}

/** The notice a notifier gets for `record`. */
export function noticeOf(
  notice: StoredNotice,
  body: NoticeBody,
  record: ElicitationRecord,
  urls: { page: (record: ElicitationRecord) => string; inbox: () => string },
): ElicitationNotice {
  const askedBy = askedByOf(record.metadata);
  return {
    id: notice.id,
    event: body.e,
    elicitationId: record.id,
    userId: record.userId,
    kind: record.kind,
    message: record.message,
    ...(body.e !== 'expired' && { url: urls.page(record) }),
    inboxUrl: urls.inbox(),
    ...(askedBy && { askedBy }),
    askedAt: new Date(record.createdAt).toISOString(),
    expiresAt: new Date(record.expiresAt).toISOString(),
    ...(body.b !== undefined && { beforeExpiryMs: body.b }),
    ...(body.s === 1 && { escalated: true }),
  };
}

/** The delay before attempt `attempts + 1`: `retryBaseMs` doubled per attempt, at most `retryMaxMs`, ±20 % jitter. */
export function retryDelay(attempts: number, outbox: ResolvedNotifyOptions['outbox'], random: () => number = Math.random): number {
  const plain = Math.min(outbox.retryMaxMs, outbox.retryBaseMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(plain * (0.8 + 0.4 * random()));
}
