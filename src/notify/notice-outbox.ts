import { randomUUID } from 'node:crypto';
import { Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { ElicitationRecord } from '../core/elicitation.types.js';
import type { ElicitationContact, ElicitationNotifier } from '../core/notice.js';
import type { ElicitationTelemetry } from '../observability/elicitation-telemetry.js';
import type { ResolvedNotifyOptions } from '../options/notify-options.js';
import type { ElicitationStore } from '../stores/elicitation-store.js';
import type { ElicitationNoticeStore, NoticeOutboxStats, NoticeOutcome, StoredNotice } from '../stores/notice-store.js';
import { noticeOf, noticeStep, plannedNotices, readNoticeBody, retryDelay, type NoticeBody } from './notice-plan.js';

/** Where the notices link to: a question's page, the inbox. */
export interface NoticeUrls {
  page(record: ElicitationRecord): string;
  inbox(): string;
}

/** The outbox's state as the last look found it: for metrics and the health indicator. */
export interface OutboxSnapshot extends NoticeOutboxStats {
  /** When it was read, epoch milliseconds. */
  readonly at: number;
}

/** How often the outbox's counts are read for metrics and health, at most, in milliseconds. */
const STATS_EVERY_MS = 10_000;

/**
 * The notifications' outbox: plans a new question's notices (`plan`, before the record is created, so that an instance
 * that dies right after loses none) and delivers them from the store. Every instance looks for due notices each
 * `outbox.pollIntervalMs`, claims a batch (a lease: no other instance gets them meanwhile), sends each through its
 * notifier with `outbox.sendTimeoutMs`, and settles it under its claim: delivered, dropped (answered meanwhile),
 * retried with backoff, or given up after `outbox.maxAttempts`. A notice is delivered at least once; a duplicate
 * (an instance that died after sending, before settling) carries the same id.
 */
export class NoticeOutbox implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('ElicitationNotifications');
  /** This instance, as it signs its claims. */
  private readonly owner = `i-${randomUUID()}`;
  private readonly notifiers: ReadonlyMap<string, ElicitationNotifier>;
  private readonly outbox: ElicitationNoticeStore | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** Sends under way: a look claims only what fits beside them, so one slow receiver never stalls the others. */
  private readonly sending = new Set<Promise<void>>();
  private snapshot: OutboxSnapshot | undefined;
  /** A notice was settled since the counts were read: the next look reads them again. */
  private changed = false;

  constructor(
    private readonly options: ResolvedNotifyOptions,
    private readonly store: ElicitationStore,
    private readonly urls: NoticeUrls,
    private readonly telemetry: Pick<ElicitationTelemetry, 'notified' | 'observeOutbox'>,
  ) {
    this.notifiers = new Map(options.notifiers.map((n) => [n.name, n]));
    const offers = ['addNotices', 'claimNotices', 'settleNotice', 'noticeStats'] as const;
    // The store itself answers (a proxy's methods bind to it): every call is `store.<member>(...)`.
    this.outbox = offers.every((m) => typeof store[m] === 'function') ? (store as ElicitationStore & ElicitationNoticeStore) : undefined;
  }

  /** Whether any notifier is configured. */
  get enabled(): boolean {
    return this.notifiers.size > 0 && this.outbox !== undefined;
  }

  /** The outbox's counts as last read (every 10 s while it runs); `undefined` before the first look or without notifiers. */
  get state(): OutboxSnapshot | undefined {
    return this.snapshot;
  }

  /** How old the oldest due notice may be before the health indicator reports the outbox down, in milliseconds. */
  get healthMaxAgeMs(): number {
    return this.options.outbox.healthMaxAgeMs;
  }

  /** Keeps the notices of a record about to be created (each notifier: created, the reminders, expired). */
  async plan(record: ElicitationRecord): Promise<void> {
    if (!this.enabled) return;
    await this.outbox!.addNotices(plannedNotices(record, this.options), Date.now());
  }

  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    this.telemetry.observeOutbox(() => this.snapshot);
    this.timer = setInterval(() => void this.tick(), this.options.outbox.pollIntervalMs);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
    // Each send ends within outbox.sendTimeoutMs; one that is cut short here is sent again by another instance.
    await Promise.all(this.sending);
  }

  /**
   * One look: claims as many due notices as fit beside the sends under way (`outbox.batchSize` in all) and starts
   * sending them, without waiting for them. Overlapping calls share one. Resolves once the claim and the counts are
   * read; `settled` waits for the sends too.
   */
  tick(now: number = Date.now()): Promise<void> {
    this.running ??= this.deliverDue(now)
      .catch((error: unknown) => this.logger.error(`Notification outbox look failed: ${describe(error)}`))
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private async deliverDue(now: number): Promise<void> {
    if (!this.outbox) return;
    const { batchSize, leaseMs } = this.options.outbox;
    const room = batchSize - this.sending.size;
    const claimed = room > 0 ? await this.outbox.claimNotices(this.owner, now, room, leaseMs) : [];
    for (const notice of claimed) {
      const send: Promise<void> = this.deliver(notice)
        .catch((error: unknown) => this.logger.error(`Notification ${notice.id} could not be settled: ${describe(error)}`))
        .finally(() => this.sending.delete(send));
      this.sending.add(send);
    }
    if (!this.snapshot || now - this.snapshot.at >= STATS_EVERY_MS || claimed.length > 0 || this.changed) {
      this.changed = false;
      this.snapshot = { ...(await this.outbox.noticeStats(now)), at: now };
    }
  }

  /** Resolves once every send under way has been settled (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.sending.size > 0) await Promise.all(this.sending);
  }

  /** Sends one claimed notice and settles it under this instance's claim. */
  private async deliver(notice: StoredNotice): Promise<void> {
    const body = readNoticeBody(notice.body);
    const notifier = body && this.notifiers.get(body.n);
    if (!body || !notifier) return this.settle(notice, { kind: 'dropped' }, body, 'dropped');
    const now = Date.now();
    const record = await this.store.get(notice.elicitationId, now);
    const step = noticeStep(notice, body, record, now);
    if (step.kind === 'drop') return this.settle(notice, { kind: 'dropped' }, body, 'dropped');
    if (step.kind === 'later') {
      return this.settle(
        notice,
        { kind: 'retry', dueAt: step.dueAt, ...(step.body && { body: JSON.stringify(step.body) }) },
        body,
        'moved',
      );
    }
    try {
      const contact = await this.contactOf(record!.userId, body);
      if (!contact) return this.settle(notice, { kind: 'dropped' }, body, 'skipped');
      const sent = await withTimeout(notifier.send(noticeOf(notice, body, record!, this.urls), contact), this.options.outbox.sendTimeoutMs);
      await this.settle(
        notice,
        sent === 'skipped' ? { kind: 'dropped' } : { kind: 'delivered' },
        body,
        sent === 'skipped' ? 'skipped' : 'delivered',
      );
    } catch (error) {
      const reason = describe(error);
      const { maxAttempts } = this.options.outbox;
      if (notice.attempts >= maxAttempts) {
        this.logger.warn(`Notification ${notice.id} (${body.n}, ${body.e}) given up after ${notice.attempts} attempts: ${reason}`);
        return this.settle(notice, { kind: 'failed', error: reason }, body, 'failed');
      }
      const dueAt = Date.now() + retryDelay(notice.attempts, this.options.outbox);
      await this.settle(notice, { kind: 'retry', dueAt, error: reason }, body, 'retried');
    }
  }

  /** The contact of the user, or of `escalateTo`'s person for an escalated reminder; `undefined`: nobody to reach. */
  private async contactOf(userId: string, body: NoticeBody): Promise<ElicitationContact | undefined> {
    const who = body.s === 1 ? await this.options.escalateTo?.(userId) : userId;
    if (typeof who !== 'string' || who === '') return undefined;
    const resolve = this.options.resolveContact;
    return resolve ? resolve(who) : {};
  }

  private async settle(notice: StoredNotice, outcome: NoticeOutcome, body: NoticeBody | undefined, counted: string): Promise<void> {
    const held = await this.outbox!.settleNotice(notice.id, this.owner, outcome, Date.now());
    this.changed = true;
    // A claim another instance took over (this one was too slow) is that instance's to count.
    if (held) this.telemetry.notified(body?.n ?? 'unknown', body?.e ?? 'unknown', counted);
  }
}

/** `promise`, or a rejection after `ms`. */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the notifier took longer than outbox.sendTimeoutMs (${ms} ms)`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** An error's class and message, cut short: what the outbox records and logs of a failure (a notifier's errors name no secret). */
function describe(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.slice(0, 300);
}
