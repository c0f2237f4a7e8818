import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { ElicitationEvent } from '../core/elicitation.types.js';
import { ElicitationEvents } from '../events/elicitation-events.js';
import { ElicitationTelemetry } from '../observability/elicitation-telemetry.js';
import type { SdkServerLike } from './sdk/sdk.types.js';

/**
 * Completion notification (protocol 2025-11-25): remembers which MCP session created which URL
 * elicitation, and when the elicitation finishes (on this instance or, through the store's event
 * channel, on another) sends `notifications/elicitation/complete` to that session only. A pairing is
 * forgotten when its elicitation ends or its session closes, so a closed session is never kept in memory.
 */
@Injectable()
export class CompletionNotifications implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('McpElicitation');
  /** elicitationId → the session's server and its completion notifier. */
  private readonly notifiers = new Map<string, { server: SdkServerLike; notify: () => Promise<void> }>();
  /** server (one per MCP session) → the elicitation ids it waits on. */
  private readonly bySession = new Map<SdkServerLike, Set<string>>();
  private readonly hooked = new WeakSet<SdkServerLike>();
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly events: ElicitationEvents,
    private readonly telemetry: ElicitationTelemetry,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.events.subscribe((event) => this.onEvent(event));
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
    this.notifiers.clear();
    this.bySession.clear();
  }

  /** Pairs an elicitation with the session that will be notified when it finishes. */
  track(server: SdkServerLike, elicitationId: string): void {
    const notify = server.createElicitationCompletionNotifier(elicitationId);
    this.notifiers.set(elicitationId, { server, notify });
    let ids = this.bySession.get(server);
    if (!ids) this.bySession.set(server, (ids = new Set()));
    ids.add(elicitationId);
    if (!this.hooked.has(server)) {
      this.hooked.add(server);
      const previous = server.onclose;
      server.onclose = () => {
        this.forgetSession(server);
        previous?.call(server);
      };
    }
  }

  /** Whether this elicitation is paired with this session. */
  tracks(elicitationId: string, server: SdkServerLike): boolean {
    return this.notifiers.get(elicitationId)?.server === server;
  }

  /** Whether this elicitation is paired with any session. */
  isPaired(elicitationId: string): boolean {
    return this.notifiers.has(elicitationId);
  }

  /** Forgets every pairing of this session. */
  forgetSession(server: SdkServerLike): void {
    const ids = this.bySession.get(server);
    if (!ids) return;
    for (const id of ids) this.notifiers.delete(id);
    this.bySession.delete(server);
  }

  /** Number of sessions and elicitations currently paired (for leak checks). */
  get tracked(): { sessions: number; elicitations: number } {
    return { sessions: this.bySession.size, elicitations: this.notifiers.size };
  }

  private onEvent(event: ElicitationEvent): void {
    // Only a final status ends the elicitation: `extended` leaves it pending.
    if (event.type === 'created' || event.type === 'extended') return;
    const entry = this.notifiers.get(event.elicitationId);
    if (!entry) return;
    this.notifiers.delete(event.elicitationId);
    const ids = this.bySession.get(entry.server);
    ids?.delete(event.elicitationId);
    if (ids?.size === 0) this.bySession.delete(entry.server);
    // Never thrown into the request that finished the elicitation (a page submit): logged only.
    const attributes = { 'elicitation.kind': event.kind, 'elicitation.outcome': event.type };
    // Linked to the span of the instance where the elicitation finished, when another one did.
    const sent = this.telemetry.inSpan('elicitation.notification', attributes, () => entry.notify(), [this.events.traceOf(event)]);
    sent.catch((error: unknown) => {
      this.logger.warn(
        `Could not send notifications/elicitation/complete for ${event.elicitationId}: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
  }
}
