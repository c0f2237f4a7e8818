import { randomUUID } from 'node:crypto';
import { Logger, type OnModuleDestroy } from '@nestjs/common';
import { KEY_RING_REFRESH_MS, KEY_RING_TTL_MS } from '../options/elicitation.constants.js';
import type { ResolvedElicitationOptions } from '../options/resolved-options.js';
import { ElicitationConfigError } from '../errors/elicitation-config.error.js';
import { ElicitationStoreUnavailableError } from '../errors/elicitation-store-unavailable.error.js';
import type { AnnouncedKeyIds } from '../security/announced-key-ids.js';
import { keyIdOf } from '../security/key-ids.js';
import { compareKeyRings, refusalText, warningTexts, type KeyRingComparison } from '../security/key-ring-check.js';
import type { ElicitationStore, KeyRingEntry } from '../stores/elicitation-store.js';

/**
 * Keeps the instances sharing a store from silently disagreeing on `encryptionKey`. On a store that offers
 * `announceKeyRing` (the Redis store), the module records its ring's key ids there when it starts and compares them
 * with those of the other live instances (`security/key-ring-check.ts`): it refuses to start (an
 * `ElicitationConfigError` naming `encryptionKey` and the key ids) when it shares no key with one of them, and
 * warns when the rings only partly agree. While it runs it announces its ring again every `KEY_RING_REFRESH_MS`
 * (live: announced within `KEY_RING_TTL_MS`), reporting once each disagreeing ring that appears later, and it
 * withdraws its entry on shutdown. Key ids are fingerprints (`keyIdOf`), never keys. What it read of the other live
 * rings goes to `AnnouncedKeyIds`, which tells the pages a CSRF token of another instance from a forged one, and
 * which may ask it to read them again (`refresh`) for a key id it does not know.
 *
 * The module starts it from a provider factory (`elicitation.providers.ts`), so a refusal fails the module's
 * creation before any lifecycle hook ran (no channel opened, no timer left). A store that cannot be reached at
 * start-up does not stop the app: the comparison is logged as postponed and made at the first announcement that
 * succeeds (reported then, as the app already runs).
 */
export class ElicitationKeyRingAnnouncer implements OnModuleDestroy {
  private readonly logger = new Logger('ElicitationModule');
  private readonly entry: KeyRingEntry;
  private timer: NodeJS.Timeout | undefined;
  /** The announcement in flight from the timer, if any. */
  private refreshing: Promise<void> | undefined;
  /** Set on shutdown: no announcement after it. */
  private stopped = false;
  /** The findings already reported, so that each disagreeing ring is logged once. */
  private readonly reported = new Set<string>();
  /** Whether every other live ring was found to seal with this one's first key; and who waits for it. */
  private settled = false;
  private readonly onSettled: Array<() => void> = [];

  constructor(
    options: Pick<ResolvedElicitationOptions, 'encryptionKeys'>,
    private readonly store: Pick<ElicitationStore, 'announceKeyRing'>,
    private readonly announced?: Pick<AnnouncedKeyIds, 'update' | 'readWith'>,
  ) {
    this.entry = { instanceId: randomUUID(), keyIds: options.encryptionKeys.map(keyIdOf) };
    if (store.announceKeyRing) announced?.readWith(() => this.refresh());
  }

  /**
   * Announces the ring and compares it with the live ones: throws `ElicitationConfigError` (naming
   * `encryptionKey` and the key ids) when one shares no key with it, after withdrawing its entry; then announces
   * again every `KEY_RING_REFRESH_MS`. Does nothing on a store without `announceKeyRing`.
   */
  async start(): Promise<void> {
    if (!this.store.announceKeyRing) return;
    let comparison: KeyRingComparison;
    try {
      comparison = await this.announce();
    } catch (error) {
      if (!(error instanceof ElicitationStoreUnavailableError)) throw error;
      this.logger.warn(
        `Could not compare this instance's encryptionKey ring ${this.ringText()} with the other instances' (${error.message}); ` +
          'start-up goes on without it, and if the app runs, the rings are compared once the store answers.',
      );
      this.schedule();
      return;
    }
    if (comparison.disjoint.length > 0) {
      await this.withdraw();
      throw new ElicitationConfigError('encryptionKey', refusalText(this.entry.keyIds, comparison.disjoint, KEY_RING_TTL_MS / 1000));
    }
    this.report(comparison);
    this.schedule();
  }

  /**
   * Calls `listener` once every other live instance seals with this instance's first key (at once on a store that
   * records no rings): from then on nothing new is sealed under an older key, so what was can be moved (`PasskeyReseal`).
   * Found by the first announcement where it holds, at start-up or later (an instance of the previous deploy gone).
   */
  whenSettled(listener: () => void): void {
    if (this.settled || !this.store.announceKeyRing) listener();
    else this.onSettled.push(listener);
  }

  /** Stops announcing and withdraws the entry, after an announcement in flight (which would record it again). */
  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.refreshing;
    if (this.store.announceKeyRing) await this.withdraw();
  }

  /** Announces the ring again; what it finds is reported (an app that already runs is not stopped). */
  refresh(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.refreshing ??= this.announce()
      .then((comparison) => this.report(comparison))
      .catch((error: unknown) => {
        this.logger.debug(`Could not announce the encryptionKey ring: ${error instanceof Error ? error.message : String(error)}`);
      })
      .finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private schedule(): void {
    this.timer ??= setInterval(() => void this.refresh(), KEY_RING_REFRESH_MS);
    this.timer.unref();
  }

  /** Records this instance's ring for `KEY_RING_TTL_MS` and compares it with the other live ones. */
  private async announce(): Promise<KeyRingComparison> {
    const live = await this.store.announceKeyRing!(this.entry, Date.now(), KEY_RING_TTL_MS);
    const others = live.filter((other) => other.instanceId !== this.entry.instanceId);
    this.announced?.update(others);
    if (!this.settled && others.every((other) => other.keyIds[0] === this.entry.keyIds[0])) {
      this.settled = true;
      for (const listener of this.onSettled.splice(0)) listener();
    }
    return compareKeyRings(this.entry.keyIds, others);
  }

  private async withdraw(): Promise<void> {
    await this.store.announceKeyRing!(this.entry, Date.now(), 0).catch(() => undefined);
  }

  /** Logs each finding once: a ring sharing no key as an error (the app runs already), the others as warnings. */
  private report(comparison: KeyRingComparison): void {
    const mine = this.entry.keyIds;
    if (comparison.disjoint.length > 0) {
      this.once(`ElicitationModule option "encryptionKey" ${refusalText(mine, comparison.disjoint, KEY_RING_TTL_MS / 1000)}.`, (text) =>
        this.logger.error(text),
      );
    }
    for (const text of warningTexts(mine, comparison)) this.once(text, (t) => this.logger.warn(t));
  }

  private once(text: string, log: (text: string) => void): void {
    if (this.reported.has(text)) return;
    this.reported.add(text);
    log(text);
  }

  private ringText(): string {
    return `[${this.entry.keyIds.join(', ')}]`;
  }
}
