import type { ElicitationNoticeStore, NewNotice, NoticeOutboxStats, NoticeOutcome, StoredNotice } from './notice-store.js';

/**
 * The memory store's outbox (`ElicitationNoticeStore`): notices by id. A claim scans the pending ones: an outbox holds
 * what is due soon, a handful per open question, and a process that restarts loses it with the records it is about.
 */
export class MemoryNotices implements ElicitationNoticeStore {
  private readonly notices = new Map<string, StoredNotice>();
  private delivered = 0;

  addNotices(notices: readonly NewNotice[], now: number): Promise<number> {
    this.forgetPast(now);
    let added = 0;
    for (const n of notices) {
      if (this.notices.has(n.id)) continue;
      this.notices.set(n.id, {
        id: n.id,
        elicitationId: n.elicitationId,
        dueAt: n.dueAt,
        forgetAt: n.forgetAt,
        body: n.body,
        state: 'pending',
        attempts: 0,
      });
      added++;
    }
    return Promise.resolve(added);
  }

  claimNotices(owner: string, now: number, limit: number, leaseMs: number): Promise<StoredNotice[]> {
    this.forgetPast(now);
    const due = [...this.notices.values()]
      .filter((n) => n.state === 'pending' && n.dueAt <= now)
      .sort((a, b) => a.dueAt - b.dueAt || (a.id < b.id ? -1 : 1));
    const claimed: StoredNotice[] = [];
    for (const n of due.slice(0, Math.max(0, limit))) {
      const next: StoredNotice = { ...n, owner, attempts: n.attempts + 1, dueAt: now + leaseMs };
      this.notices.set(n.id, next);
      claimed.push({ ...next });
    }
    return Promise.resolve(claimed);
  }

  settleNotice(id: string, owner: string, outcome: NoticeOutcome, now: number): Promise<boolean> {
    const n = this.notices.get(id);
    if (!n || n.owner !== owner || n.state !== 'pending' || n.forgetAt <= now) return Promise.resolve(false);
    switch (outcome.kind) {
      case 'delivered':
        this.delivered++;
        this.notices.delete(id);
        break;
      case 'dropped':
        this.notices.delete(id);
        break;
      case 'retry':
        this.notices.set(id, {
          ...n,
          dueAt: outcome.dueAt,
          ...(outcome.body !== undefined && { body: outcome.body }),
          ...(outcome.error !== undefined && { lastError: outcome.error }),
        });
        break;
      case 'failed':
        this.notices.set(id, { ...n, state: 'failed', lastError: outcome.error });
        break;
    }
    return Promise.resolve(true);
  }

  noticeStats(now: number): Promise<NoticeOutboxStats> {
    this.forgetPast(now);
    let pending = 0;
    let failed = 0;
    let oldestDueAt: number | undefined;
    for (const n of this.notices.values()) {
      if (n.state === 'failed') failed++;
      else {
        pending++;
        if (oldestDueAt === undefined || n.dueAt < oldestDueAt) oldestDueAt = n.dueAt;
      }
    }
    return Promise.resolve({ pending, failed, delivered: this.delivered, ...(oldestDueAt !== undefined && { oldestDueAt }) });
  }

  /** Forgets every notice past its `forgetAt` (the sweep calls it too). */
  forgetPast(now: number): void {
    for (const [id, n] of this.notices) if (n.forgetAt <= now) this.notices.delete(id);
  }

  /** Notices held (for the store's emptiness checks). */
  get size(): number {
    return this.notices.size;
  }
}
