import { randomUUID } from 'node:crypto';
import { createResultOf, type ElicitationRecordStore } from '../stores/elicitation-store.js';
import { pendingRecord, RETENTION, T0, swept, type ContractGroupApi } from './contract-test-api.js';

/**
 * The records group of the record contract: create, get, finish (exactly once, races included), consume, the
 * lookups, the creation quota, the sweep, and `ping` (when offered).
 */
export function recordTests({ it, itIfOffered, expect }: ContractGroupApi<ElicitationRecordStore>): void {
  it('returns what was created, and undefined for unknown ids', async (store) => {
    const record = pendingRecord();
    await store.create(record);
    await expect(store.get(record.id, T0)).resolves.toEqual(record);
    await expect(store.get(randomUUID(), T0)).resolves.toBeUndefined();
  });

  it("keeps a record's askKey (the MCP link rung finds questions by it) through get, listByUser and finish", async (store) => {
    const record = pendingRecord({ askKey: 'k-' + randomUUID() });
    await store.create(record);
    expect((await store.get(record.id, T0))!.askKey).toBe(record.askKey);
    expect((await store.listByUser(record.userId, T0)).map((r) => r.askKey)).toEqual([record.askKey]);
    const finished = await store.finish(record.id, { status: 'declined', now: T0 + 1, purgeAt: T0 + 1 + RETENTION });
    expect(finished.ok && finished.record.askKey).toBe(record.askKey);
    expect((await store.get(record.id, T0 + 2))!.askKey).toBe(record.askKey);
  });

  it("keeps a record's session and task (a page's outcome finds the MCP session or task that asked) through get and finish", async (store) => {
    const record = pendingRecord({ sessionId: 's-' + randomUUID(), taskId: 't-' + randomUUID() });
    await store.create(record);
    expect(await store.get(record.id, T0)).toMatchObject({ sessionId: record.sessionId, taskId: record.taskId });
    const finished = await store.finish(record.id, { status: 'cancelled', now: T0 + 1, purgeAt: T0 + 1 + RETENTION });
    expect(finished.ok && finished.record).toMatchObject({ sessionId: record.sessionId, taskId: record.taskId });
    expect(await store.get(record.id, T0 + 2)).toMatchObject({ status: 'cancelled', sessionId: record.sessionId, taskId: record.taskId });
  });

  it('hands out copies: mutating a returned record changes nothing stored', async (store) => {
    const record = pendingRecord();
    await store.create(record);
    const got = (await store.get(record.id, T0))!;
    got.status = 'completed';
    record.status = 'declined';
    expect((await store.get(record.id, T0))!.status).toBe('pending');
  });

  it('completes a pending record exactly once and keeps the first data', async (store) => {
    const record = pendingRecord();
    await store.create(record);
    const first = await store.finish(record.id, {
      status: 'completed',
      data: { apiKey: 'first' },
      now: T0 + 1,
      purgeAt: T0 + 1 + RETENTION,
    });
    expect(first.ok).toBe(true);
    const second = await store.finish(record.id, {
      status: 'completed',
      data: { apiKey: 'second' },
      now: T0 + 2,
      purgeAt: T0 + 2 + RETENTION,
    });
    expect(second).toMatchObject({ ok: false, reason: 'already-finished', status: 'completed' });
    const declined = await store.finish(record.id, { status: 'declined', now: T0 + 3, purgeAt: T0 + 3 + RETENTION });
    expect(declined).toMatchObject({ ok: false, reason: 'already-finished', status: 'completed' });
    const stored = (await store.get(record.id, T0 + 4))!;
    expect(stored).toMatchObject({ status: 'completed', data: { apiKey: 'first' }, finishedAt: T0 + 1, purgeAt: T0 + 1 + RETENTION });
  });

  it('lets exactly one of 100 concurrent completions win', async (store) => {
    const record = pendingRecord();
    await store.create(record);
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        store.finish(record.id, { status: 'completed', data: { n: i }, now: T0 + 1, purgeAt: T0 + RETENTION }),
      ),
    );
    const winners = results.filter((r) => r.ok);
    expect(winners).toHaveLength(1);
    const winner = winners[0];
    expect((await store.get(record.id, T0 + 2))!.data).toEqual(winner.record.data);
  });

  it('refuses to complete after expiresAt but allows the expired transition', async (store) => {
    const record = pendingRecord();
    await store.create(record);
    const late = await store.finish(record.id, {
      status: 'completed',
      data: { apiKey: 'x' },
      now: record.expiresAt,
      purgeAt: record.expiresAt + RETENTION,
    });
    expect(late).toMatchObject({ ok: false, reason: 'expired' });
    expect((await store.get(record.id, record.expiresAt))!.status).toBe('pending');
    const expired = await store.finish(record.id, { status: 'expired', now: record.expiresAt, purgeAt: record.expiresAt + RETENTION });
    expect(expired).toMatchObject({ ok: true, record: { status: 'expired' } });
  });

  it('answers not-found for unknown ids', async (store) => {
    await expect(store.finish(randomUUID(), { status: 'declined', now: T0, purgeAt: T0 + 1 })).resolves.toEqual({
      ok: false,
      reason: 'not-found',
    });
  });

  it('forgets records after purgeAt', async (store) => {
    const record = pendingRecord();
    await store.create(record);
    await store.finish(record.id, { status: 'declined', now: T0 + 1, purgeAt: T0 + 100 });
    expect(await store.get(record.id, T0 + 99)).toBeDefined();
    expect(await store.get(record.id, T0 + 100)).toBeUndefined();
  });

  it('finds the latest completed record per user and type, ignoring others', async (store) => {
    const user = `user-${randomUUID()}`;
    const older = pendingRecord({ userId: user, type: 'api-key-github' });
    const newer = pendingRecord({ userId: user, type: 'api-key-github', createdAt: T0 + 5 });
    const otherType = pendingRecord({ userId: user, type: 'api-key-gitlab' });
    const otherUser = pendingRecord({ userId: `${user}-x`, type: 'api-key-github' });
    const stillPending = pendingRecord({ userId: user, type: 'api-key-github', createdAt: T0 + 9 });
    for (const r of [older, newer, otherType, otherUser, stillPending]) await store.create(r);
    expect(await store.findLatestCompleted(user, 'api-key-github', T0 + 10)).toBeUndefined();
    await store.finish(older.id, { status: 'completed', data: { apiKey: 'old' }, now: T0 + 10, purgeAt: T0 + RETENTION });
    await store.finish(newer.id, { status: 'completed', data: { apiKey: 'new' }, now: T0 + 20, purgeAt: T0 + RETENTION });
    await store.finish(otherType.id, { status: 'completed', data: { apiKey: 'gitlab' }, now: T0 + 30, purgeAt: T0 + RETENTION });
    await store.finish(otherUser.id, { status: 'completed', data: { apiKey: 'someone-else' }, now: T0 + 40, purgeAt: T0 + RETENTION });
    const found = await store.findLatestCompleted(user, 'api-key-github', T0 + 50);
    expect(found).toMatchObject({ id: newer.id, data: { apiKey: 'new' } });
    expect(await store.findLatestCompleted(user, 'api-key-github', T0 + RETENTION)).toBeUndefined();
  });

  it("lists a user's records oldest first", async (store) => {
    const user = `user-${randomUUID()}`;
    const a = pendingRecord({ userId: user, createdAt: T0 + 2 });
    const b = pendingRecord({ userId: user, type: 'confirm', kind: 'confirm', createdAt: T0 + 1 });
    await store.create(a);
    await store.create(b);
    await store.create(pendingRecord({ userId: `${user}-other` }));
    const listed = await store.listByUser(user, T0 + 3);
    expect(listed.map((r) => r.id)).toEqual([b.id, a.id]);
    expect(await store.listByUser(`nobody-${randomUUID()}`, T0)).toEqual([]);
  });

  it('consumes a completed record once: data returned, then gone, and no longer found by type', async (store) => {
    const user = `user-${randomUUID()}`;
    const record = pendingRecord({ userId: user, type: 'api-key-x' });
    await store.create(record);
    expect(await store.consume(record.id, T0 + 1)).toBeUndefined(); // still pending
    await store.finish(record.id, { status: 'completed', data: { apiKey: 'once' }, now: T0 + 1, purgeAt: T0 + RETENTION });
    const results = await Promise.all([store.consume(record.id, T0 + 2), store.consume(record.id, T0 + 2)]);
    const delivered = results.filter((r) => r !== undefined);
    expect(delivered).toHaveLength(1);
    expect(delivered[0]).toMatchObject({ id: record.id, status: 'completed', data: { apiKey: 'once' } });
    const after = (await store.get(record.id, T0 + 3))!;
    expect(after).toMatchObject({ status: 'completed', consumedAt: T0 + 2 });
    expect(after.data).toBeUndefined();
    expect(await store.findLatestCompleted(user, 'api-key-x', T0 + 3)).toBeUndefined();
    expect(await store.consume(randomUUID(), T0)).toBeUndefined();
  });

  it('enforces the creation quota atomically, storing nothing when refused', async (store) => {
    const user = `user-${randomUUID()}`;
    const quota = { perUserLimit: 3, windowMs: 1_000, maxPendingPerUser: 100, maxPending: 1_000_000 };
    const attempts = Array.from({ length: 5 }, () => pendingRecord({ userId: user }));
    const results = (await Promise.all(attempts.map((r) => store.create(r, quota)))).map(createResultOf);
    expect(results.filter((r) => r === 'created')).toHaveLength(3);
    expect(results.filter((r) => r === 'rate-limited')).toHaveLength(2);
    expect(await store.listByUser(user, T0)).toHaveLength(3);
    // A new window allows creating again.
    expect(createResultOf(await store.create(pendingRecord({ userId: user, createdAt: T0 + 2_000 }), quota))).toBe('created');
  });

  it('caps pending records per user and frees a slot when one finishes', async (store) => {
    const user = `user-${randomUUID()}`;
    const quota = { perUserLimit: 100, windowMs: 60_000, maxPendingPerUser: 2, maxPending: 1_000_000 };
    const a = pendingRecord({ userId: user });
    await store.create(a, quota);
    await store.create(pendingRecord({ userId: user }), quota);
    const refused = pendingRecord({ userId: user });
    expect(createResultOf(await store.create(refused, quota))).toBe('user-pending-limit');
    expect(await store.get(refused.id, T0)).toBeUndefined();
    expect(createResultOf(await store.create(pendingRecord({ userId: `${user}-other` }), quota))).toBe('created');
    await store.finish(a.id, { status: 'declined', now: T0 + 1, purgeAt: T0 + RETENTION });
    expect(createResultOf(await store.create(pendingRecord({ userId: user }), quota))).toBe('created');
  });

  it('sweeps: expires due pending records once, forgets purged ones, leaves the rest', async (store) => {
    const due = pendingRecord({ expiresAt: T0 + 10, purgeAt: T0 + 10 + RETENTION });
    const notDue = pendingRecord({ expiresAt: T0 + 1000, purgeAt: T0 + 1000 + RETENTION });
    const finished = pendingRecord({ expiresAt: T0 + 10 });
    for (const r of [due, notDue, finished]) await store.create(r);
    await store.finish(finished.id, { status: 'completed', data: { k: 1 }, now: T0 + 5, purgeAt: T0 + 50 });

    const expired = await swept(store, T0 + 20, RETENTION);
    expect(expired.map((r) => r.id)).toContain(due.id);
    expect(expired.map((r) => r.id)).not.toContain(finished.id);
    expect(expired.map((r) => r.id)).not.toContain(notDue.id);
    expect(expired.find((r) => r.id === due.id)).toMatchObject({ status: 'expired', finishedAt: T0 + 20, purgeAt: T0 + 20 + RETENTION });
    expect((await store.get(due.id, T0 + 21))!.status).toBe('expired');
    expect(await swept(store, T0 + 21, RETENTION)).toEqual([]);

    await store.sweep(T0 + 60, RETENTION);
    expect(await store.get(finished.id, T0 + 40)).toBeUndefined();
    expect((await store.get(notDue.id, T0 + 60))!.status).toBe('pending');
  });

  it('says it sent an event only beside a move it made, never beside a refusal', async (store) => {
    const user = `user-${randomUUID()}`;
    const quota = { perUserLimit: 1, windowMs: 60_000, maxPendingPerUser: 100, maxPending: 1_000_000 };
    const record = pendingRecord({ userId: user });
    const created = await store.create(record, quota);
    expect(createResultOf(created)).toBe('created');
    // A refusal is the plain answer: no event, so no report.
    expect(await store.create(pendingRecord({ userId: user }), quota)).toBe('rate-limited');
    expect((await store.finish(record.id, { status: 'declined', now: T0 + 1, purgeAt: T0 + RETENTION })).ok).toBe(true);
    const refusals = [
      await store.finish(record.id, { status: 'cancelled', now: T0 + 2, purgeAt: T0 + RETENTION }),
      await store.finish(randomUUID(), { status: 'cancelled', now: T0 + 2, purgeAt: T0 + RETENTION }),
    ];
    expect(refusals.map((r) => [r.ok, r.eventSent === true])).toEqual([
      [false, false],
      [false, false],
    ]);
  });

  itIfOffered('ping', 'answers ping while the backend is reachable', async (store) => {
    if (!store.ping) throw new Error('the store offers no ping, but options.offers lists it');
    await expect(store.ping()).resolves.toBeUndefined();
  });
}
