import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { Observable } from 'rxjs';
import type { ElicitationEvent } from '../elicitation.types.js';
import { ElicitationStore, type ElicitationEventChannel } from '../stores/elicitation-store.js';

/** A function called for every lifecycle event. */
export type ElicitationEventListener = (event: ElicitationEvent) => void;

/**
 * The event bus: every lifecycle transition (`created`, `completed`, `declined`, `cancelled`,
 * `expired`) is published here once, by the instance that made it. Listeners run synchronously; one
 * that throws is logged and never disturbs the others or the request that caused the event.
 *
 * When the store is shared between instances (it offers `openEventChannel`, as the Redis store does),
 * events also travel to and from the other instances, so a page submitted on instance B wakes tools
 * and notifies MCP sessions on instance A. Events carry ids and status, never submitted data.
 */
@Injectable()
export class ElicitationEvents implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('ElicitationEvents');
  private readonly listeners = new Set<ElicitationEventListener>();
  private channel: ElicitationEventChannel | undefined;

  constructor(private readonly store: ElicitationStore) {}

  /** All events as an RxJS stream (hot; no replay). */
  readonly events$ = new Observable<ElicitationEvent>((subscriber) => this.subscribe((e) => subscriber.next(e)));

  async onModuleInit(): Promise<void> {
    if (this.store.openEventChannel) this.channel = await this.store.openEventChannel((event) => this.deliver(event));
  }

  async onModuleDestroy(): Promise<void> {
    const channel = this.channel;
    this.channel = undefined;
    await channel?.close().catch(() => undefined);
  }

  /** Calls `listener` for every event until the returned function is called. */
  subscribe(listener: ElicitationEventListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Number of current listeners (for leak checks in tests). */
  get listenerCount(): number {
    return this.listeners.size;
  }

  /** Delivers an event here and sends it to the other instances. A failed send is logged, never thrown. */
  publish(event: ElicitationEvent): void {
    this.deliver(event);
    this.channel?.publish(event).catch((error: unknown) => {
      this.logger.warn(
        `Could not send the "${event.type}" event of ${event.elicitationId} to other instances: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
  }

  private deliver(event: ElicitationEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.logger.error(
          `An elicitation event listener failed on "${event.type}" of ${event.elicitationId}`,
          error instanceof Error ? error.stack : String(error),
        );
      }
    }
  }
}
