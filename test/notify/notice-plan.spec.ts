import { describe, expect, it } from '@jest/globals';
import { noticeId, noticeStep, plannedNotices, readNoticeBody, retryDelay, type NoticeBody } from '../../src/notify/notice-plan.js';
import { resolveNotify } from '../../src/options/notify-options.validation.js';
import type { StoredNotice } from '../../src/stores/notice-store.js';
import { pendingRecord, T0 } from '../../src/testing/contract-test-api.js';

const send = () => Promise.resolve();
const options = (more: object = {}) =>
  resolveNotify({
    notify: [
      { name: 'hook', send },
      { name: 'mail', send },
    ],
    ...more,
  });
const stored = (body: NoticeBody, dueAt = T0): StoredNotice => ({
  id: 'n',
  elicitationId: 'e',
  dueAt,
  forgetAt: dueAt + 1e9,
  body: JSON.stringify(body),
  state: 'pending',
  attempts: 1,
});

describe('plannedNotices', () => {
  it('plans created, each reminder (the last also escalated), expired, per notifier, with stable distinct ids', () => {
    const record = pendingRecord({ createdAt: T0, expiresAt: T0 + 3_600_000 });
    const planned = plannedNotices(
      record,
      options({ reminders: [{ beforeExpiryMs: 60_000 }, { beforeExpiryMs: 600_000 }], escalateTo: () => 'boss' }),
    );
    const rows = planned.map((n) => [readNoticeBody(n.body), n.dueAt - T0]);
    expect(rows.slice(0, 5)).toEqual([
      [{ n: 'hook', e: 'created' }, 0],
      [{ n: 'hook', e: 'reminder', b: 600_000, x: T0 + 3_600_000 }, 3_000_000],
      [{ n: 'hook', e: 'reminder', b: 60_000, x: T0 + 3_600_000 }, 3_540_000],
      [{ n: 'hook', e: 'reminder', b: 60_000, x: T0 + 3_600_000, s: 1 }, 3_540_000],
      [{ n: 'hook', e: 'expired', x: T0 + 3_600_000 }, 3_601_000],
    ]);
    expect(planned).toHaveLength(10);
    expect(new Set(planned.map((n) => n.id)).size).toBe(10);
    expect(
      plannedNotices(
        record,
        options({ reminders: [{ beforeExpiryMs: 60_000 }, { beforeExpiryMs: 600_000 }], escalateTo: () => 'boss' }),
      ).map((n) => n.id),
    ).toEqual(planned.map((n) => n.id));
    expect(planned.every((n) => /^ntc_[A-Za-z0-9_-]{32}$/.test(n.id) && !n.id.includes(record.id))).toBe(true);
  });

  it('skips a reminder that would fall before the question was asked, and plans nothing without notifiers', () => {
    const record = pendingRecord({ createdAt: T0, expiresAt: T0 + 30_000 });
    expect(plannedNotices(record, options({ reminders: [{ beforeExpiryMs: 60_000 }] })).map((n) => readNoticeBody(n.body)?.e)).toEqual([
      'created',
      'expired',
      'created',
      'expired',
    ]);
    expect(plannedNotices(record, resolveNotify({}))).toEqual([]);
  });
});

describe('noticeStep', () => {
  const open = pendingRecord({ createdAt: T0, expiresAt: T0 + 100_000 });
  it('sends created and reminders while the question is open, drops them once answered or expired', () => {
    expect(noticeStep(stored({ n: 'h', e: 'created' }), { n: 'h', e: 'created' }, open, T0 + 1)).toEqual({ kind: 'send' });
    const answered = { ...open, status: 'completed' as const };
    expect(noticeStep(stored({ n: 'h', e: 'created' }), { n: 'h', e: 'created' }, answered, T0 + 1).kind).toBe('drop');
    const reminder: NoticeBody = { n: 'h', e: 'reminder', b: 10_000, x: open.expiresAt };
    expect(noticeStep(stored(reminder), reminder, open, T0 + 90_000)).toEqual({ kind: 'send' });
    expect(noticeStep(stored(reminder), reminder, open, T0 + 100_000).kind).toBe('drop');
  });

  it('moves a reminder and the expiry notice with an extended expiry', () => {
    const extended = { ...open, expiresAt: T0 + 160_000, extendedFrom: open.expiresAt };
    const reminder: NoticeBody = { n: 'h', e: 'reminder', b: 10_000, x: open.expiresAt };
    expect(noticeStep(stored(reminder), reminder, extended, T0 + 90_000)).toEqual({
      kind: 'later',
      dueAt: T0 + 150_000,
      body: { ...reminder, x: T0 + 160_000 },
    });
    const expired: NoticeBody = { n: 'h', e: 'expired', x: open.expiresAt };
    expect(noticeStep(stored(expired), expired, extended, T0 + 101_000)).toEqual({
      kind: 'later',
      dueAt: T0 + 161_000,
      body: { ...expired, x: T0 + 160_000 },
    });
  });

  it('sends the expiry notice for a question expired unanswered (or overdue, not swept yet), drops it for an answered one', () => {
    const expired: NoticeBody = { n: 'h', e: 'expired', x: open.expiresAt };
    expect(noticeStep(stored(expired), expired, { ...open, status: 'expired' }, T0 + 101_000)).toEqual({ kind: 'send' });
    expect(noticeStep(stored(expired), expired, open, T0 + 101_000)).toEqual({ kind: 'send' });
    expect(noticeStep(stored(expired), expired, { ...open, status: 'declined' }, T0 + 101_000).kind).toBe('drop');
  });

  it('looks again soon, then less often, for a record not created yet, and drops the notice after 7 looks', () => {
    const created: NoticeBody = { n: 'h', e: 'created' };
    // A claim moves `dueAt` to the lease's end: the claims count, not the time since it was first due.
    const claimed = (attempts: number): StoredNotice => ({ ...stored(created, T0 + 60_000), attempts });
    const waits = [1, 2, 3, 4, 5, 6, 7].map((attempts) => {
      const step = noticeStep(claimed(attempts), created, undefined, T0);
      return step.kind === 'later' ? step.dueAt - T0 : step.kind;
    });
    expect(waits).toEqual([500, 1_000, 2_000, 4_000, 8_000, 15_000, 15_000]);
    expect(noticeStep(claimed(8), created, undefined, T0)).toEqual({ kind: 'drop', why: 'no such question' });
  });
});

describe('the rest', () => {
  it('reads only bodies it wrote; ids depend on what makes the notice', () => {
    expect(readNoticeBody('{"n":"h","e":"created"}')).toEqual({ n: 'h', e: 'created' });
    expect(readNoticeBody('{"n":"h","e":"other"}')).toBeUndefined();
    expect(readNoticeBody('not json')).toBeUndefined();
    expect(noticeId('e', { n: 'h', e: 'reminder', b: 1 })).not.toBe(noticeId('e', { n: 'h', e: 'reminder', b: 1, s: 1 }));
    expect(noticeId('e', { n: 'h', e: 'reminder', b: 1, x: 5 })).toBe(noticeId('e', { n: 'h', e: 'reminder', b: 1, x: 9 }));
  });

  it('backs off: doubling from retryBaseMs, capped at retryMaxMs, within ±20 %', () => {
    const outbox = options({ outbox: { retryBaseMs: 1_000, retryMaxMs: 10_000 } }).outbox;
    expect([1, 2, 3, 4, 5, 9].map((a) => retryDelay(a, outbox, () => 0.5))).toEqual([1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
    expect(retryDelay(1, outbox, () => 0)).toBe(800);
    expect(retryDelay(1, outbox, () => 1)).toBe(1_200);
  });
});
