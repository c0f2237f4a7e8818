import { ComposedElicitationStore, type StoreParts } from './composed-store.js';
import type { ElicitationRecord, ExtendResult, TransitionResult } from '../core/elicitation.types.js';
import { DeadlineWheel } from './deadline-wheel.js';
import { type CounterHit, type CreateQuota, type CreateResult, type ExtendChange, type FinishChange } from './elicitation-store.js';
import { countHit, dropEndedCounters, peekCount, type WindowCounters } from './memory-counters.js';
import { storedRecord } from './memory-record.js';
import { MemoryAuditChain } from './memory-audit-chain.js';
import { MemoryCallStates } from './memory-call-states.js';
import { MemoryNotices } from './memory-notices.js';
import { MemoryPasskeys } from './memory-passkeys.js';
import { MemoryTasks } from './memory-tasks.js';
import { isAfterCursor, openCursorOf, readOpenCursor, type OpenPage, type OpenPageRequest } from './notice-store.js';
import { addToIndex, removeFromIndex, type UserTypeIndex } from './memory-user-index.js';

/**
 * The default store: one process, no dependencies. Records expire lazily on read and through
 * `sweep`, whose cost follows the number of due records, not the number stored: records are filed by
 * deadline in one-second buckets (a `DeadlineWheel` of record references), so a sweep takes the wholly
 * due buckets as they are and looks item by item only at the bucket holding `now`.
 * Records are indexed by user and type for `findLatestCompleted` and `listByUser`, and by user and askKey for
 * `findByAskKey`.
 *
 * Not shared between processes: run several instances on a shared store (`RedisElicitationStore`,
 * `PostgresElicitationStore`).
 */
export class MemoryElicitationStore extends ComposedElicitationStore {
  /** Its data lives in this process alone, so each instance on it may run on a key of its own. */
  override readonly shared: boolean = false;
  /** Its records never leave this heap, so answers are kept unsealed (see `ElicitationStore.inProcess`). */
  override readonly inProcess: boolean = true;
  private readonly records = new Map<string, ElicitationRecord>();
  /** userId → type → ids, in creation order. */
  private readonly index: UserTypeIndex = new Map();
  /** userId → askKey → ids, in creation order (records created with an askKey only). */
  private readonly asked: UserTypeIndex = new Map();
  /**
   * Every record under its next deadline: `expiresAt` while pending, then `purgeAt`. An entry left behind
   * by a change of deadline (a finish, an `extend`) is stale, and skipped when it comes up.
   */
  private readonly deadlines = new DeadlineWheel<ElicitationRecord>(BUCKET_MS);
  /** Pending records per user, and overall (for the quota). */
  private readonly pendingByUser = new Map<string, number>();
  private pendingTotal = 0;
  /** Fixed-window counters: key → hits and window end. */
  private readonly counters: WindowCounters = new Map();
  /** Counter keys under the end of their window, so the sweep drops ended windows without a scan. */
  private readonly counterEnds = new DeadlineWheel<string>(BUCKET_MS);
  /** The tasks (MCP Tasks extension), forgotten by the same sweep. */
  private readonly tasks = new MemoryTasks();
  private readonly callStates = new MemoryCallStates();
  private readonly notices = new MemoryNotices();
  protected readonly parts: StoreParts = {
    tasks: this.tasks,
    callStates: this.callStates,
    notices: this.notices,
    passkeys: new MemoryPasskeys(),
    auditChain: new MemoryAuditChain(),
  };

  /** Number of retained records (for tests and metrics). */
  get size(): number {
    return this.records.size;
  }

  create(record: ElicitationRecord, quota?: CreateQuota): Promise<CreateResult> {
    if (this.records.has(record.id)) return Promise.reject(new Error(`Elicitation id collision: ${record.id}`));
    if (quota) {
      if (
        countHit(this.counters, this.counterEnds, `create:${record.userId}`, quota.windowMs, record.createdAt).count > quota.perUserLimit
      ) {
        return Promise.resolve('rate-limited');
      }
      if ((this.pendingByUser.get(record.userId) ?? 0) >= quota.maxPendingPerUser) return Promise.resolve('user-pending-limit');
      if (this.pendingTotal >= quota.maxPending) return Promise.resolve('pending-limit');
    }
    const kept = storedRecord(record);
    this.records.set(record.id, kept);
    this.pendingByUser.set(record.userId, (this.pendingByUser.get(record.userId) ?? 0) + 1);
    this.pendingTotal++;
    addToIndex(this.index, record);
    if (record.askKey !== undefined) addToIndex(this.asked, record, record.askKey);
    this.deadlines.add(kept.expiresAt, kept);
    return Promise.resolve('created');
  }

  get(id: string, now: number): Promise<ElicitationRecord | undefined> {
    const record = this.live(id, now);
    return Promise.resolve(record && { ...record });
  }

  finish(id: string, change: FinishChange): Promise<TransitionResult> {
    const record = this.live(id, change.now);
    if (!record) return Promise.resolve({ ok: false, reason: 'not-found' });
    if (record.status !== 'pending') {
      return Promise.resolve({ ok: false, reason: 'already-finished', status: record.status, record: { ...record } });
    }
    if (change.status !== 'expired' && change.now >= record.expiresAt) {
      return Promise.resolve({ ok: false, reason: 'expired', record: { ...record } });
    }
    this.leavePending(record);
    record.status = change.status;
    record.finishedAt = change.now;
    record.purgeAt = change.purgeAt;
    if (change.status === 'completed' && change.data) record.data = { ...change.data };
    this.deadlines.add(record.purgeAt, record);
    return Promise.resolve({ ok: true, record: { ...record } });
  }

  /** Filed again under its new `expiresAt`; the entry under the old one is stale from then on (see `sweepDue`). */
  override extend(id: string, change: ExtendChange): Promise<ExtendResult> {
    const record = this.live(id, change.now);
    if (!record) return Promise.resolve({ ok: false, reason: 'not-found' });
    if (record.status !== 'pending') {
      return Promise.resolve({ ok: false, reason: 'already-finished', status: record.status, record: { ...record } });
    }
    if (change.now >= record.expiresAt) return Promise.resolve({ ok: false, reason: 'expired', record: { ...record } });
    if (record.extendedAt !== undefined) return Promise.resolve({ ok: false, reason: 'already-extended', record: { ...record } });
    record.extendedFrom = record.expiresAt;
    record.extendedAt = change.now;
    record.expiresAt = change.expiresAt;
    record.purgeAt = change.purgeAt;
    this.deadlines.add(record.expiresAt, record);
    return Promise.resolve({ ok: true, record: { ...record } });
  }

  consume(id: string, now: number): Promise<ElicitationRecord | undefined> {
    const record = this.live(id, now);
    if (!record || record.status !== 'completed' || record.consumedAt !== undefined) return Promise.resolve(undefined);
    const out = { ...record };
    record.data = undefined;
    record.consumedAt = now;
    return Promise.resolve(out);
  }

  hit(key: string, windowMs: number, now: number): Promise<CounterHit> {
    return Promise.resolve({ ...countHit(this.counters, this.counterEnds, `hit:${key}`, windowMs, now) });
  }

  override peekHits(key: string, windowMs: number, now: number): Promise<number> {
    return Promise.resolve(peekCount(this.counters, `hit:${key}`, windowMs, now));
  }

  findLatestCompleted(userId: string, type: string, now: number): Promise<ElicitationRecord | undefined> {
    const ids = this.index.get(userId)?.get(type);
    if (!ids) return Promise.resolve(undefined);
    let latest: ElicitationRecord | undefined;
    for (const id of ids) {
      const record = this.live(id, now);
      if (record?.status === 'completed' && record.consumedAt === undefined && (!latest || record.finishedAt! >= latest.finishedAt!)) {
        latest = record;
      }
    }
    return Promise.resolve(latest && { ...latest });
  }

  listByUser(userId: string, now: number): Promise<ElicitationRecord[]> {
    const types = this.index.get(userId);
    if (!types) return Promise.resolve([]);
    const out: ElicitationRecord[] = [];
    for (const ids of types.values()) {
      for (const id of ids) {
        const record = this.live(id, now);
        if (record) out.push({ ...record });
      }
    }
    return Promise.resolve(out.sort((a, b) => a.createdAt - b.createdAt));
  }

  override listOpen(userId: string, now: number, page: OpenPageRequest): Promise<OpenPage> {
    const after = readOpenCursor(page.after);
    const open: ElicitationRecord[] = [];
    for (const ids of this.index.get(userId)?.values() ?? []) {
      for (const id of ids) {
        const record = this.live(id, now);
        if (record && record.status === 'pending' && record.expiresAt > now && isAfterCursor(record, after)) open.push(record);
      }
    }
    open.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
    const records = open.slice(0, page.limit).map((r) => ({ ...r }));
    return Promise.resolve({ records, ...(open.length > page.limit && { next: openCursorOf(records[records.length - 1]) }) });
  }

  override findByAskKey(userId: string, askKey: string, now: number): Promise<ElicitationRecord[]> {
    const ids = this.asked.get(userId)?.get(askKey);
    const out: ElicitationRecord[] = [];
    for (const id of ids ?? []) {
      const record = this.live(id, now);
      if (record) out.push({ ...record });
    }
    return Promise.resolve(out.reverse().sort((a, b) => b.createdAt - a.createdAt));
  }

  /**
   * Resolves the expired records themselves, not copies, typed read-only (the service only reads them to
   * publish `expired`). Copying added about two thirds to the sweep of 1M pending records with 1% due
   * (memory.bench row "memory store sweep, 1M pending, 1% due (1 in 100 records)"): each due record lies apart from
   * the others, and a copy reads all of it. The store never writes to a record again once it has expired, so
   * what the caller holds stays as returned.
   */
  sweep(now: number, retentionMs: number): Promise<ReadonlyArray<Readonly<ElicitationRecord>>> {
    const expired: ElicitationRecord[] = [];
    const wheel = this.deadlines;
    const purgeAt = now + retentionMs;
    // The loops over records are methods of their own, so each keeps its optimised code whatever path
    // another one takes for the first time.
    for (let bucket = wheel.takeDue(now); bucket !== undefined; bucket = wheel.takeDue(now)) {
      this.sweepDue(bucket, now, purgeAt, expired);
    }
    const current = wheel.bucketAt(now);
    if (current !== undefined) wheel.trim(now, this.sweepCurrent(current, wheel.keyOf(now), now, purgeAt, expired));
    // The expired records share one purgeAt: filed together, or forgotten at once if it has passed.
    if (purgeAt > now) wheel.addAll(purgeAt, expired);
    else for (let i = 0; i < expired.length; i++) this.forget(expired[i]);
    dropEndedCounters(this.counters, this.counterEnds, now);
    this.tasks.sweep(now);
    this.callStates.sweep(now);
    this.notices.forgetPast(now);
    return Promise.resolve(expired);
  }

  /**
   * A bucket before the one holding `now`, wholly due. A pending record is due unless it was given more time
   * (`extend`): then this entry, under its old expiresAt, is stale and the one under its new expiresAt stands.
   * Any other entry is a purge, or stale (see `purge`). Pending counts are settled once per run of records of
   * one user.
   */
  private sweepDue(bucket: ElicitationRecord[], now: number, purgeAt: number, expired: ElicitationRecord[]): void {
    let user = '';
    let leaving = 0;
    for (let i = 0; i < bucket.length; i++) {
      const record = bucket[i];
      if (record.status === 'pending') {
        if (record.expiresAt > now) continue;
        if (record.userId !== user) {
          if (leaving > 0) this.leavePendingMany(user, leaving);
          user = record.userId;
          leaving = 0;
        }
        leaving++;
        record.status = 'expired';
        record.finishedAt = now;
        record.purgeAt = purgeAt;
        expired.push(record);
      } else if (record.purgeAt <= now) {
        this.purge(record);
      }
    }
    if (leaving > 0) this.leavePendingMany(user, leaving);
  }

  /**
   * The bucket holding `now` (key `key`): part of it is due, the rest stays. Packs the entries to keep at
   * its front and returns how many there are.
   */
  private sweepCurrent(bucket: ElicitationRecord[], key: number, now: number, purgeAt: number, expired: ElicitationRecord[]): number {
    let kept = 0;
    for (let i = 0; i < bucket.length; i++) {
      const record = bucket[i];
      if (record.status === 'pending') {
        if (record.expiresAt <= now) {
          this.leavePendingMany(record.userId, 1);
          record.status = 'expired';
          record.finishedAt = now;
          record.purgeAt = purgeAt;
          expired.push(record);
        } else if (this.deadlines.keyOf(record.expiresAt) === key) {
          bucket[kept++] = record;
        }
      } else if (record.purgeAt <= now) {
        this.purge(record);
      } else if (this.deadlines.keyOf(record.purgeAt) === key) {
        bucket[kept++] = record;
      }
    }
    return kept;
  }

  /** Removes every record and counter (for tests). */
  clear(): void {
    this.records.clear();
    this.index.clear();
    this.asked.clear();
    this.deadlines.clear();
    this.counterEnds.clear();
    this.pendingByUser.clear();
    this.pendingTotal = 0;
    this.counters.clear();
  }

  /** The stored record, or undefined when unknown or due for purging (purged here, lazily). */
  private live(id: string, now: number): ElicitationRecord | undefined {
    const record = this.records.get(id);
    if (record && record.purgeAt <= now) {
      this.forget(record);
      return undefined;
    }
    return record;
  }

  /** `leavePending` for `n` records of one user at once. */
  private leavePendingMany(userId: string, n: number): void {
    const left = (this.pendingByUser.get(userId) ?? n) - n;
    if (left > 0) this.pendingByUser.set(userId, left);
    else this.pendingByUser.delete(userId);
    this.pendingTotal -= n;
  }

  /** Keeps the pending counts right when a record leaves `pending` (or is forgotten while pending). */
  private leavePending(record: ElicitationRecord): void {
    if (record.status !== 'pending') return;
    const left = (this.pendingByUser.get(record.userId) ?? 1) - 1;
    if (left > 0) this.pendingByUser.set(record.userId, left);
    else this.pendingByUser.delete(record.userId);
    this.pendingTotal--;
  }

  /**
   * Forgets a finished record whose purge entry came up, unless it is gone already (read after its
   * purgeAt, or due twice: finished before its expiresAt, it is filed under both) or its id now belongs
   * to another record. Finished records are not written to (the sweep hands expired ones out).
   */
  private purge(record: ElicitationRecord): void {
    if (this.records.get(record.id) === record) this.forget(record);
  }

  /**
   * Removes a record from every structure. A pending one (read after its purgeAt, before it expired)
   * is marked finished, so that its entry under expiresAt is taken for a stale one.
   */
  private forget(record: ElicitationRecord): void {
    if (record.status === 'pending') {
      this.leavePending(record);
      record.status = 'expired';
    }
    this.records.delete(record.id);
    removeFromIndex(this.index, record);
    if (record.askKey !== undefined) removeFromIndex(this.asked, record, record.askKey);
  }
}

/** Width of the deadline buckets: a sweep looks one by one only at the records due within this of `now`. */
const BUCKET_MS = 1_000;
