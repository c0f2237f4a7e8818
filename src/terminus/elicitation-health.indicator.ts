import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { ElicitationService } from '../lifecycle/elicitation.service.js';
import { ElicitationEvents } from '../events/elicitation-events.js';
import { ElicitationStore } from '../stores/elicitation-store.js';
import { NoticeOutbox } from '../notify/notice-outbox.js';

/** How long the store's `ping` may take by default before the check reports it down, in milliseconds. */
export const DEFAULT_HEALTH_TIMEOUT_MS = 1_000;

/** Options of `ElicitationHealthIndicator.isHealthy`. */
export interface ElicitationHealthCheckOptions {
  /**
   * How long the store's `ping` may take, in milliseconds; longer is reported as `store: 'timeout'` (down).
   * @default 1000
   */
  timeoutMs?: number;
}

/** What the indicator reports beside its `status`. */
export interface ElicitationHealthDetails {
  /**
   * `'up'`: the store answered its `ping` (a store without `ping`, such as the memory store, is up); `'down'`:
   * the ping failed; `'timeout'`: no answer within `timeoutMs`.
   */
  store: 'up' | 'down' | 'timeout';
  /**
   * `'live'`: the store's event channel is connected, so events from the other instances arrive; `'down'`: it
   * is not (a Redis subscriber reconnecting, or closed); `'in-process'`: the store carries no events between
   * instances (the memory store), which is healthy.
   */
  events: 'live' | 'down' | 'in-process';
  /** Present (`true`) while the app shuts down: the indicator is then down, whatever the store says. */
  shuttingDown?: true;
  /**
   * Present with notifiers (`notify`): the outbox's counts as last read (every 10 s) and `status`, `'down'` when the
   * oldest due notice has waited longer than `outbox.healthMaxAgeMs` (no instance delivers, or every send fails).
   */
  outbox?: { status: 'up' | 'down'; pending: number; failed: number; oldestAgeS: number };
}

/**
 * What `isHealthy(key)` resolves: terminus's `HealthIndicatorResult` for `key`, written out here so that the
 * declarations of this entry point need no terminus types.
 */
export type ElicitationHealthResult<Key extends string = string> = Record<Key, { status: 'up' | 'down' } & ElicitationHealthDetails>;

/** The part of terminus's `HealthIndicatorService` the indicator uses (structural, as above). */
export interface HealthIndicatorSessions {
  check(key: string): { up(data: object): unknown; down(data: object): unknown };
}

/**
 * A health indicator for `@nestjs/terminus` (11 or 12): up while the module's store answers its `ping` within
 * `timeoutMs` and its cross-instance event channel is live (or the store needs none), down otherwise and while
 * the app shuts down. The details say which part failed and never carry an error's text (a health route is often
 * public; a Redis error names hosts and ports).
 *
 * Provide it where `ElicitationModule`'s exports are visible (the module that imports `ElicitationModule.forRoot`,
 * or any module when it is global) and `TerminusModule` is imported, then list it in a `HealthCheckService.check`.
 */
@Injectable()
export class ElicitationHealthIndicator {
  constructor(
    @Inject(HealthIndicatorService) private readonly health: HealthIndicatorSessions,
    private readonly store: ElicitationStore,
    private readonly events: ElicitationEvents,
    private readonly service: ElicitationService,
    private readonly notices: NoticeOutbox,
  ) {}

  /**
   * Pings the store (at most `timeoutMs`) and reads the event channel; resolves `{ [key]: { status, store,
   * events, shuttingDown? } }`, `status: 'down'` when a part is down, which terminus answers with a 503. Throws a
   * `RangeError` for a `timeoutMs` that is not a positive number.
   */
  async isHealthy<Key extends string = 'elicitation'>(
    key: Key = 'elicitation' as Key,
    { timeoutMs = DEFAULT_HEALTH_TIMEOUT_MS }: ElicitationHealthCheckOptions = {},
  ): Promise<ElicitationHealthResult<Key>> {
    if (!(typeof timeoutMs === 'number' && timeoutMs > 0 && Number.isFinite(timeoutMs))) {
      throw new RangeError(`ElicitationHealthIndicator: timeoutMs must be a positive number of milliseconds, got ${String(timeoutMs)}`);
    }
    const indicator = this.health.check(key);
    const details: ElicitationHealthDetails = { store: await this.pingStore(timeoutMs), events: this.events.channelStatus };
    if (this.service.isShuttingDown) details.shuttingDown = true;
    const outbox = this.notices.state;
    if (outbox) {
      const ageMs = outbox.oldestDueAt === undefined ? 0 : Math.max(0, Date.now() - outbox.oldestDueAt);
      const status = ageMs > this.notices.healthMaxAgeMs ? 'down' : 'up';
      const oldestAgeS = Math.round(ageMs / 1000);
      details.outbox = { status, pending: outbox.pending, failed: outbox.failed, oldestAgeS };
    }
    const up = details.store === 'up' && details.events !== 'down' && !details.shuttingDown && details.outbox?.status !== 'down';
    return (up ? indicator.up(details) : indicator.down(details)) as ElicitationHealthResult<Key>;
  }

  /** The store's ping within `timeoutMs`; a ping that answers later is left to settle on its own. */
  private async pingStore(timeoutMs: number): Promise<ElicitationHealthDetails['store']> {
    const store = this.store;
    if (!store.ping) return 'up';
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const pinged = Promise.resolve()
      .then(() => store.ping!())
      .then(
        () => 'up' as const,
        () => 'down' as const,
      );
    try {
      return await Promise.race([pinged, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }
}
