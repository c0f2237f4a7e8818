import { Injectable, Logger } from '@nestjs/common';
import { Observable } from 'rxjs';
import type { ElicitationEvent } from '../elicitation.types.js';

/** A function called for every lifecycle event. */
export type ElicitationEventListener = (event: ElicitationEvent) => void;

/**
 * The in-process event bus: every lifecycle transition (`created`, `completed`, `declined`,
 * `cancelled`, `expired`) is published here once, by the service that made it. Listeners run
 * synchronously; one that throws is logged and never disturbs the others or the request that caused
 * the event. Events carry ids and status, never submitted data.
 */
@Injectable()
export class ElicitationEvents {
  private readonly logger = new Logger('ElicitationEvents');
  private readonly listeners = new Set<ElicitationEventListener>();

  /** All events as an RxJS stream (hot; no replay). */
  readonly events$ = new Observable<ElicitationEvent>((subscriber) => this.subscribe((e) => subscriber.next(e)));

  /** Calls `listener` for every event until the returned function is called. */
  subscribe(listener: ElicitationEventListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Number of current listeners (for leak checks in tests). */
  get listenerCount(): number {
    return this.listeners.size;
  }

  publish(event: ElicitationEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.logger.error(`An elicitation event listener failed on "${event.type}" of ${event.elicitationId}`, error instanceof Error ? error.stack : String(error));
      }
    }
  }
}
