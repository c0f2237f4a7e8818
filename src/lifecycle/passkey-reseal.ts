import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { ELICITATION_OBSERVED_STORE } from '../observability/observed-store.js';
import type { ElicitationStore } from '../stores/elicitation-store.js';

/** Passkeys looked at per store call. */
const RESEAL_BATCH = 100;
/** How long after a pass the store failed the pass is tried again, in milliseconds. */
const RESEAL_RETRY_MS = 60_000;

/** What a pass did: the passkeys it moved, and those it found sealed under a key the ring lacks. */
export interface ResealPass {
  moved: number;
  unreadable: number;
}

/**
 * Keeps passkeys readable across a rotation of `encryptionKey`. A passkey lives until its user removes it (and its
 * public key after that, for the receipts it signed), longer than an older key stays in the ring; a shared store seals
 * each under the first key of the ring it was added with. Once every instance sharing the store seals with this one's
 * first key (the key-ring announcer says when: `request`), one pass moves every passkey still kept under an older key
 * under the first, `RESEAL_BATCH` at a time, so that the older key can leave the ring. One pass per process, as a
 * rotation is a deploy; a pass the store failed is tried again `RESEAL_RETRY_MS` later.
 */
@Injectable()
export class PasskeyReseal implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('ElicitationModule');
  private requested = false;
  private started = false;
  private stopped = false;
  private pass: Promise<ResealPass> | undefined;
  private retry: NodeJS.Timeout | undefined;

  constructor(@Inject(ELICITATION_OBSERVED_STORE) private readonly store: ElicitationStore) {}

  /** Asks for the pass: made once the app has started (at once when it has), once. */
  request(): void {
    this.requested = true;
    if (this.started) this.begin();
  }

  onApplicationBootstrap(): void {
    this.started = true;
    if (this.requested) this.begin();
  }

  /** Stops between two steps, after the one in flight. */
  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    await this.pass;
  }

  /** The pass once it has begun (what it did when it ends), else `undefined`. */
  get done(): Promise<ResealPass> | undefined {
    return this.pass;
  }

  private begin(): void {
    if (this.pass || this.stopped) return;
    this.pass = this.run().catch((error: unknown) => {
      if (this.stopped) return { moved: 0, unreadable: 0 };
      this.logger.warn(
        `Could not move the passkeys kept under an older encryptionKey (${error instanceof Error ? error.message : String(error)}); ` +
          `trying again in ${RESEAL_RETRY_MS / 1000} s.`,
      );
      this.retry = setTimeout(() => {
        this.pass = undefined;
        this.begin();
      }, RESEAL_RETRY_MS);
      this.retry.unref();
      return { moved: 0, unreadable: 0 };
    });
  }

  private async run(): Promise<ResealPass> {
    const pass: ResealPass = { moved: 0, unreadable: 0 };
    if (!this.store.resealPasskeys) return pass;
    let cursor: string | undefined;
    do {
      const step = await this.store.resealPasskeys(cursor, RESEAL_BATCH);
      pass.moved += step.moved;
      pass.unreadable += step.unreadable;
      cursor = step.next;
    } while (cursor !== undefined && !this.stopped);
    if (pass.moved > 0) this.logger.log(`Moved ${pass.moved} passkey(s) kept under an older encryptionKey under the ring's first key.`);
    if (pass.unreadable > 0) {
      this.logger.warn(
        `${pass.unreadable} passkey(s) in the store are sealed under a key this instance's encryptionKey ring lacks: their users ` +
          'cannot sign with them, and their receipts do not verify, until that key is back in the ring (see docs/stores.md, Rotating encryptionKey).',
      );
    }
    return pass;
  }
}
