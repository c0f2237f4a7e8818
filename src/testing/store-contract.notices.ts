import { randomUUID } from 'node:crypto';
import type { ElicitationRecordStore } from '../stores/elicitation-store.js';
import type { NewNotice } from '../stores/notice-store.js';
import { pendingRecord, T0, TTL, type ContractGroupApi } from './contract-test-api.js';

/** Each outbox test's own stretch of time, so that what an earlier test left (on a store the tests share) is forgotten. */
let era = 0;
const ERA_MS = 1_000_000_000;

/** The inbox group of the record contract: `listOpen` (when offered). */
export function inboxTests({ itIfOffered, expect }: ContractGroupApi<ElicitationRecordStore>): void {
  const listOf = (store: ElicitationRecordStore) => {
    if (!store.listOpen) throw new Error('the store offers no listOpen, but options.offers lists it');
    return store.listOpen.bind(store);
  };

  itIfOffered('listOpen', "pages a user's open records newest first, and nothing finished, overdue or of another user", async (store) => {
    const list = listOf(store);
    const user = `user-${randomUUID()}`;
    const open = [1, 2, 3, 4, 5].map((i) => pendingRecord({ userId: user, createdAt: T0 + i, type: i % 2 ? 'api-key' : 'confirm' }));
    const sameTime = pendingRecord({ userId: user, createdAt: T0 + 5 });
    const answered = pendingRecord({ userId: user, createdAt: T0 + 6 });
    const overdue = pendingRecord({ userId: user, createdAt: T0 - TTL + 10, expiresAt: T0 + 10 });
    const theirs = pendingRecord({ userId: `${user}-other`, createdAt: T0 + 7 });
    for (const r of [...open, sameTime, answered, overdue, theirs]) await store.create(r);
    await store.finish(answered.id, { status: 'completed', data: { apiKey: 'k' }, now: T0 + 7, purgeAt: answered.purgeAt });
    const now = T0 + 20;
    // Newest first; two created at the same millisecond by id, descending.
    const fives = [open[4], sameTime].sort((a, b) => (a.id < b.id ? 1 : -1));
    const expected = [...fives, open[3], open[2], open[1], open[0]].map((r) => r.id);
    const first = await list(user, now, { limit: 4 });
    expect(first.records.map((r) => r.id)).toEqual(expected.slice(0, 4));
    expect(first.records[0]).toEqual(fives[0]);
    expect(typeof first.next).toBe('string');
    const second = await list(user, now, { limit: 4, after: first.next });
    expect(second.records.map((r) => r.id)).toEqual(expected.slice(4));
    expect(second.next).toBeUndefined();
    // A page that ends exactly at the last record says so.
    const whole = await list(user, now, { limit: 6 });
    expect(whole.records.map((r) => r.id)).toEqual(expected);
    expect(whole.next).toBeUndefined();
    expect((await list(`${user}-other`, now, { limit: 10 })).records.map((r) => r.id)).toEqual([theirs.id]);
    expect((await list(`nobody-${randomUUID()}`, now, { limit: 10 })).records).toEqual([]);
  });

  itIfOffered('listOpen', 'drops a record from the list once it is answered or expired', async (store) => {
    const list = listOf(store);
    const user = `user-${randomUUID()}`;
    const a = pendingRecord({ userId: user, createdAt: T0 + 1 });
    const b = pendingRecord({ userId: user, createdAt: T0 + 2, expiresAt: T0 + 100 });
    await store.create(a);
    await store.create(b);
    expect((await list(user, T0 + 50, { limit: 10 })).records.map((r) => r.id)).toEqual([b.id, a.id]);
    await store.finish(a.id, { status: 'declined', now: T0 + 60, purgeAt: a.purgeAt });
    expect((await list(user, T0 + 61, { limit: 10 })).records.map((r) => r.id)).toEqual([b.id]);
    expect((await list(user, T0 + 100, { limit: 10 })).records).toEqual([]);
  });
}

/** The outbox group of the record contract: `addNotices`, `claimNotices`, `settleNotice`, `noticeStats` (when offered). */
export function noticeTests({ itIfOffered, expect }: ContractGroupApi<ElicitationRecordStore>): void {
  const outboxOf = (store: ElicitationRecordStore) => {
    const { addNotices, claimNotices, settleNotice, noticeStats } = store;
    if (!addNotices || !claimNotices || !settleNotice || !noticeStats)
      throw new Error('the store lacks one of addNotices, claimNotices, settleNotice, noticeStats, but options.offers lists them');
    return {
      add: addNotices.bind(store),
      claim: claimNotices.bind(store),
      settle: settleNotice.bind(store),
      stats: noticeStats.bind(store),
    };
  };
  /** A fresh stretch of time, past every notice an earlier test left. */
  const freshEra = () => T0 + ++era * ERA_MS;
  const notice = (base: number, over: Partial<NewNotice> = {}): NewNotice => ({
    id: `n_${randomUUID()}`,
    elicitationId: randomUUID(),
    dueAt: base,
    forgetAt: base + ERA_MS / 2,
    body: '{"event":"created"}',
    ...over,
  });

  itIfOffered('claimNotices', 'keeps a notice once per id and hands due ones out earliest first, each to one claimer', async (store) => {
    const { add, claim, stats } = outboxOf(store);
    const base = freshEra();
    const later = notice(base, { dueAt: base + 20 });
    const first = notice(base, { dueAt: base + 10 });
    const notYet = notice(base, { dueAt: base + 1_000 });
    await expect(add([later, first, notYet], base)).resolves.toBe(3);
    await expect(add([{ ...first, body: 'other' }], base)).resolves.toBe(0);
    await expect(claim('a', base + 5, 10, 1_000)).resolves.toEqual([]);
    const [x, y] = await Promise.all([claim('a', base + 30, 10, 1_000), claim('b', base + 30, 10, 1_000)]);
    const all = [...x, ...y];
    expect(all.map((n) => n.id).sort()).toEqual([first.id, later.id].sort());
    const one = all.find((n) => n.id === first.id)!;
    expect(one).toMatchObject({ elicitationId: first.elicitationId, body: first.body, state: 'pending', attempts: 1, dueAt: base + 1_030 });
    // Earliest due first within one claim.
    if (x.length === 2) expect(x.map((n) => n.id)).toEqual([first.id, later.id]);
    const s = await stats(base + 30);
    expect(s.pending).toBe(3);
    expect(s.oldestDueAt).toBe(base + 1_000);
  });

  itIfOffered('claimNotices', 'claims at most limit; a lease holds until it ends, then another instance claims it again', async (store) => {
    const { add, claim } = outboxOf(store);
    const base = freshEra();
    const ns = [1, 2, 3].map((i) => notice(base, { dueAt: base + i }));
    await add(ns, base);
    expect((await claim('a', base + 10, 2, 500)).map((n) => n.id)).toEqual([ns[0].id, ns[1].id]);
    expect((await claim('b', base + 10, 5, 500)).map((n) => n.id)).toEqual([ns[2].id]);
    await expect(claim('b', base + 509, 5, 500)).resolves.toEqual([]);
    const again = await claim('b', base + 510, 5, 500);
    const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1);
    expect(again.sort(byId).map((n) => [n.id, n.owner, n.attempts, n.dueAt])).toEqual(
      [...ns].sort(byId).map((n) => [n.id, 'b', 2, base + 1_010]),
    );
  });

  itIfOffered('settleNotice', 'settles only for the instance holding the claim: delivered, retry, failed, dropped', async (store) => {
    const { add, claim, settle, stats } = outboxOf(store);
    const base = freshEra();
    const before = (await stats(base)).delivered;
    const [d, r, f, x] = [1, 5, 6, 7].map((i) => notice(base, { dueAt: base + i }));
    await add([d, r, f, x], base);
    // a claims d first (its lease ends at base + 102), then the others (theirs at base + 110).
    expect((await claim('a', base + 2, 10, 100)).map((n) => n.id)).toEqual([d.id]);
    expect(await claim('a', base + 10, 10, 100)).toHaveLength(3);
    // d is taken over by b after a's lease on it ended: a's settlements of it change nothing.
    expect((await claim('b', base + 105, 10, 100)).map((n) => n.id)).toEqual([d.id]);
    await expect(settle(d.id, 'a', { kind: 'delivered' }, base + 111)).resolves.toBe(false);
    await expect(settle(d.id, 'b', { kind: 'delivered' }, base + 111)).resolves.toBe(true);
    await expect(settle(d.id, 'b', { kind: 'delivered' }, base + 111)).resolves.toBe(false);
    await expect(settle(r.id, 'a', { kind: 'retry', dueAt: base + 500, error: 'HTTP 503', body: '{"moved":1}' }, base + 111)).resolves.toBe(
      true,
    );
    await expect(settle(f.id, 'a', { kind: 'failed', error: 'HTTP 410' }, base + 111)).resolves.toBe(true);
    await expect(settle(x.id, 'a', { kind: 'dropped' }, base + 111)).resolves.toBe(true);
    await expect(settle(`n_${randomUUID()}`, 'a', { kind: 'delivered' }, base + 111)).resolves.toBe(false);
    const s = await stats(base + 112);
    expect({ pending: s.pending, failed: s.failed, delivered: s.delivered - before, oldestDueAt: s.oldestDueAt }).toEqual({
      pending: 1,
      failed: 1,
      delivered: 1,
      oldestDueAt: base + 500,
    });
    await expect(claim('c', base + 499, 10, 100)).resolves.toEqual([]);
    const retried = await claim('c', base + 500, 10, 100);
    expect(retried.map((n) => [n.id, n.attempts, n.body, n.lastError])).toEqual([[r.id, 2, '{"moved":1}', 'HTTP 503']]);
    await expect(settle(r.id, 'c', { kind: 'delivered' }, base + 501)).resolves.toBe(true);
    // A failed notice is never claimed again.
    await expect(claim('c', base + 10_000, 10, 100)).resolves.toEqual([]);
    expect((await stats(base + 10_000)).delivered - before).toBe(2);
  });

  itIfOffered('noticeStats', 'forgets notices past their forgetAt, failed or pending', async (store) => {
    const { add, claim, settle, stats } = outboxOf(store);
    const base = freshEra();
    const f = notice(base, { dueAt: base + 1, forgetAt: base + 1_000 });
    const p = notice(base, { dueAt: base + 2_000, forgetAt: base + 1_000 });
    await add([f, p], base);
    await claim('a', base + 5, 10, 100);
    await settle(f.id, 'a', { kind: 'failed', error: 'gave up' }, base + 6);
    expect(await stats(base + 10)).toMatchObject({ pending: 1, failed: 1 });
    const s = await stats(base + 1_000);
    expect({ pending: s.pending, failed: s.failed, oldest: s.oldestDueAt }).toEqual({ pending: 0, failed: 0, oldest: undefined });
    await expect(claim('a', base + 3_000, 10, 100)).resolves.toEqual([]);
  });
}
