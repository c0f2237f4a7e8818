import { randomUUID } from 'node:crypto';
import type { ElicitationRecord } from '../core/elicitation.types.js';
import type { ElicitationRecordStore } from '../stores/elicitation-store.js';
import { pendingRecord, T0, type ContractGroupApi } from './contract-test-api.js';

/**
 * The approvals group of the record contract: what `requestApproval` counts on (#44). An approval is a record of its
 * requester's with a confirm page per approver (`askKey` `approval:<id>`); each decision is a page's move, and the
 * tally reads every approver's page back by that key. So a store must show each page's move to the tally once made,
 * however many approvers decide at once, and move the approval itself exactly once however many instances try.
 */
export function approvalTests({ it, expect }: ContractGroupApi<ElicitationRecordStore>): void {
  /** An approver's pages under `askKey` (the store's `findByAskKey`, or its user listing filtered, as the module reads). */
  const pagesOf = (store: ElicitationRecordStore, userId: string, askKey: string): Promise<ElicitationRecord[]> =>
    store.findByAskKey
      ? store.findByAskKey(userId, askKey, T0 + 10)
      : store.listByUser(userId, T0 + 10).then((all) => all.filter((r) => r.askKey === askKey));

  it('shows each of ten approvers’ decisions, made at once, to the tally; moves the approval once of ten tries', async (store) => {
    const approval = pendingRecord({ userId: `requester-${randomUUID()}`, kind: 'approval', createdAt: T0 });
    await store.create(approval);
    const askKey = `approval:${approval.id}`;
    const approvers = Array.from({ length: 10 }, (_, i) => `approver-${i}-${randomUUID()}`);
    const pages = approvers.map((userId, i) => pendingRecord({ userId, kind: 'confirm', askKey, type: askKey, createdAt: T0 + 1 + i }));
    for (const page of pages) await store.create(page);
    // Every approver decides at the same moment: approve, but every third rejects.
    const moved = await Promise.all(
      pages.map((page, i) =>
        i % 3 === 2
          ? store.finish(page.id, { status: 'declined', now: T0 + 5, purgeAt: page.purgeAt })
          : store.finish(page.id, { status: 'completed', data: { confirmed: true }, now: T0 + 5, purgeAt: page.purgeAt }),
      ),
    );
    expect(moved.every((m) => m.ok)).toBe(true);
    const seen = await Promise.all(approvers.map(async (userId) => (await pagesOf(store, userId, askKey)).map((r) => r.status)));
    expect(seen).toEqual(approvers.map((_, i) => [i % 3 === 2 ? 'declined' : 'completed']));
    // Each instance that recorded a decision tries to move the approval: one does.
    const tries = await Promise.all(
      approvers.map(() =>
        store.finish(approval.id, { status: 'completed', data: { approved: true }, now: T0 + 6, purgeAt: approval.purgeAt }),
      ),
    );
    expect(tries.filter((t) => t.ok)).toHaveLength(1);
    expect(await store.get(approval.id, T0 + 7)).toMatchObject({ status: 'completed', data: { approved: true } });
  });
}
