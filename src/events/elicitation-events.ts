import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { Observable } from 'rxjs';
import type { ElicitationEvent, ElicitationRecord } from '../core/elicitation.types.js';
import { ElicitationTelemetry } from '../observability/elicitation-telemetry.js';
import {
  ElicitationStore,
  type ElicitationEventChannel,
  type ElicitationEventContext,
  type EventSentReport,
} from '../stores/elicitation-store.js';

/**
 * The lifecycle event of `record` (ids, kind, type, session and task, never data): the one shape every publisher sends. An
 * `extended` event also carries the record's new `expiresAt`.
 */
export function lifecycleEvent(type: ElicitationEvent['type'], record: ElicitationRecord, at: number): ElicitationEvent {
  const event: ElicitationEvent = {
    type,
    elicitationId: record.id,
    userId: record.userId,
    kind: record.kind,
    elicitationType: record.type,
    sessionId: record.sessionId,
    at,
  };
  if (record.taskId !== undefined) event.taskId = record.taskId;
  if (type === 'extended') event.expiresAt = record.expiresAt;
  return event;
}

/** A function called for every lifecycle event. */
export type ElicitationEventListener = (event: ElicitationEvent) => void;

/**
 * The event bus: every lifecycle transition (`created`, `completed`, `declined`, `cancelled`,
 * `expired`) is published here once, by the instance that made it, and so is `extended` (a pending elicitation
 * given more time: still pending, with the new `expiresAt`). Listeners run synchronously; one
 * that throws is logged and never disturbs the others or the request that caused the event.
 *
 * When the store is shared between instances (it offers `openEventChannel`, as the Redis store does),
 * events also travel to and from the other instances, so a page submitted on instance B wakes tools
 * and notifies MCP sessions on instance A. Events carry ids and status, never submitted data. A listener
 * gets the same whole event whichever instance made the transition: the store's channel may carry the user
 * and type sealed (the Redis store does) but opens them before the event is delivered here.
 *
 * `events$` and `subscribe` are the one way to listen to them.
 */
@Injectable()
export class ElicitationEvents implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('ElicitationEvents');
  private readonly listeners = new Set<ElicitationEventListener>();
  /** Listeners of the events that arrived from other instances only. */
  private readonly remoteListeners = new Set<ElicitationEventListener>();
  private channel: ElicitationEventChannel | undefined;

  /** The trace context another instance sent beside each of its events (`traceOf`). */
  private readonly remoteTraces = new WeakMap<ElicitationEvent, string>();

  constructor(
    private readonly store: ElicitationStore,
    private readonly telemetry: ElicitationTelemetry,
  ) {}

  /** All events as an RxJS stream (hot; no replay). */
  readonly events$ = new Observable<ElicitationEvent>((subscriber) => this.subscribe((e) => subscriber.next(e)));

  async onModuleInit(): Promise<void> {
    if (!this.store.openEventChannel) return;
    // Each event carries the trace context of the span that made the transition here (read as the store sends it).
    const trace = () => this.telemetry.traceparent();
    this.channel = await this.store.openEventChannel((event, context) => this.deliverRemote(event, context), { trace });
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

  /**
   * Calls `listener` only for the events another instance published (they arrive through the store's event
   * channel), until the returned function is called. The instance that makes a transition acts on it
   * directly, so this is for what it cannot know otherwise.
   * @internal for the service, which wakes its waiters on another instance's transitions
   */
  subscribeRemote(listener: ElicitationEventListener): () => void {
    this.remoteListeners.add(listener);
    return () => void this.remoteListeners.delete(listener);
  }

  /**
   * Whether lifecycle events travel between instances now: `'live'` while the store's event channel is connected
   * (a channel that cannot tell, without `isLive`, counts as live), `'down'` while it is not (its connection
   * dropped, not open yet, or closed on shutdown), `'in-process'` when the store has no channel (the memory
   * store: one process, nothing to carry). Read by health checks.
   */
  get channelStatus(): 'live' | 'down' | 'in-process' {
    if (!this.store.openEventChannel) return 'in-process';
    return this.channel && (this.channel.isLive?.() ?? true) ? 'live' : 'down';
  }

  /** Number of current listeners, remote-only ones included (for leak checks in tests). */
  get listenerCount(): number {
    return this.listeners.size + this.remoteListeners.size;
  }

  /**
   * Delivers an event here and sends it to the other instances, unless the store already sent it (`eventSent`: the
   * store's move said so, see `EventSentReport`). A failed send is logged, never thrown.
   * @internal the service publishes each transition it makes (and wakes its own waiters itself)
   */
  publish(event: ElicitationEvent, { eventSent = false }: EventSentReport = {}): void {
    this.notify(this.listeners, event);
    if (eventSent) return;
    this.channel?.publish(event).catch((error: unknown) => {
      this.logger.warn(
        `Could not send the "${event.type}" event of ${event.elicitationId} to other instances: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
  }

  /**
   * The W3C `traceparent` another instance sent beside `event` (the span of the transition there), for a span here
   * to link to; `undefined` for this instance's own events and for events sent without one.
   * @internal for the completion notification's span
   */
  traceOf(event: ElicitationEvent): string | undefined {
    return this.remoteTraces.get(event);
  }

  /** An event from another instance: its remote-only listeners first, then every listener. */
  private deliverRemote(event: ElicitationEvent, context?: ElicitationEventContext): void {
    if (context?.trace) this.remoteTraces.set(event, context.trace);
    this.notify(this.remoteListeners, event);
    this.notify(this.listeners, event);
  }

  private notify(listeners: Set<ElicitationEventListener>, event: ElicitationEvent): void {
    for (const listener of listeners) {
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
