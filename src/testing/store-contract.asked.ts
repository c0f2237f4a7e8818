import { randomUUID } from 'node:crypto';
import type { ElicitationRecordStore } from '../stores/elicitation-store.js';
import { pendingRecord, RETENTION, T0, TTL, type ContractGroupApi } from './contract-test-api.js';

/** The asked group of the record contract: `findByAskKey` (when offered), the index the MCP link rung reads. */
export function askedTests({ itIfOffered, expect }: ContractGroupApi<ElicitationRecordStore>): void {
  /** The store's `findByAskKey`, or a failure naming what `offers` promised. */
  const lookup = (store: ElicitationRecordStore) => {
    if (!store.findByAskKey) throw new Error('the store offers no findByAskKey, but options.offers lists it');
    return store.findByAskKey.bind(store);
  };

  itIfOffered('findByAskKey', "finds a user's records under an askKey, newest first, and nobody else's", async (store) => {
    const find = lookup(store);
    const user = `user-${randomUUID()}`;
    const askKey = `k-${randomUUID()}`;
    const older = pendingRecord({ userId: user, askKey, createdAt: T0 + 1 });
    const newer = pendingRecord({ userId: user, askKey, createdAt: T0 + 2 });
    const otherKey = pendingRecord({ userId: user, askKey: `${askKey}-other`, createdAt: T0 + 3 });
    const otherUser = pendingRecord({ userId: `${user}-other`, askKey, createdAt: T0 + 3 });
    const noKey = pendingRecord({ userId: user, createdAt: T0 + 3 });
    // Created out of order: newest first means by createdAt.
    for (const r of [newer, otherKey, otherUser, noKey, older]) await store.create(r);
    const found = await find(user, askKey, T0 + 4);
    expect(found.map((r) => r.id)).toEqual([newer.id, older.id]);
    expect(found[0]).toEqual(newer);
    expect((await find(`${user}-other`, askKey, T0 + 4)).map((r) => r.id)).toEqual([otherUser.id]);
    expect(await find(`nobody-${randomUUID()}`, askKey, T0)).toEqual([]);
    expect(await find(user, `k-${randomUUID()}`, T0)).toEqual([]);
  });

  itIfOffered('findByAskKey', 'returns finished records with their data, an overdue pending one as it is', async (store) => {
    const find = lookup(store);
    const askKey = `k-${randomUUID()}`;
    const answered = pendingRecord({ askKey, createdAt: T0 });
    const overdue = pendingRecord({ askKey, createdAt: T0 + 1 });
    await store.create(answered);
    await store.create(overdue);
    await store.finish(answered.id, { status: 'completed', data: { apiKey: 'a' }, now: T0 + 2, purgeAt: answered.purgeAt });
    const found = await find(answered.userId, askKey, overdue.expiresAt + 1);
    expect(found.map((r) => [r.id, r.status])).toEqual([
      [overdue.id, 'pending'],
      [answered.id, 'completed'],
    ]);
    expect(found[1]).toMatchObject({ data: { apiKey: 'a' }, finishedAt: T0 + 2, askKey });
  });

  itIfOffered('findByAskKey', 'forgets a record once purged: past its purgeAt, and after the sweep', async (store) => {
    const find = lookup(store);
    const askKey = `k-${randomUUID()}`;
    const declined = pendingRecord({ askKey, createdAt: T0 });
    const expiring = pendingRecord({ askKey, createdAt: T0 + 1, expiresAt: T0 + 10, purgeAt: T0 + 10 + RETENTION });
    await store.create(declined);
    await store.create(expiring);
    await store.finish(declined.id, { status: 'declined', now: T0 + 1, purgeAt: T0 + 15 });
    expect((await find(declined.userId, askKey, T0 + 14)).map((r) => r.id)).toEqual([expiring.id, declined.id]);
    expect((await find(declined.userId, askKey, T0 + 15)).map((r) => r.id)).toEqual([expiring.id]);
    // Expired by the sweep, it stays findable (as expired) for the retention, then goes.
    await store.sweep(T0 + 20, RETENTION);
    expect((await find(declined.userId, askKey, T0 + 21)).map((r) => [r.id, r.status])).toEqual([[expiring.id, 'expired']]);
    await store.sweep(T0 + 20 + RETENTION, RETENTION);
    expect(await find(declined.userId, askKey, T0 + 20 + RETENTION)).toEqual([]);
    // A new record under the same key is found again, alone.
    const again = pendingRecord({ askKey, createdAt: T0 + TTL });
    await store.create(again);
    expect((await find(again.userId, askKey, T0 + TTL)).map((r) => r.id)).toEqual([again.id]);
  });
}
