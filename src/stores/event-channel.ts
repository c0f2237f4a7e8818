import type { ElicitationEvent } from '../core/elicitation.types.js';

/**
 * What travels with a cross-instance event besides the event: handed to `openEventChannel`'s `onRemoteEvent`
 * next to the event, never inside it (so `events$` listeners see the same `ElicitationEvent` everywhere).
 */
export interface ElicitationEventContext {
  /** The W3C `traceparent` of the span that made the transition on the sending instance, when it sent one (opaque to stores). */
  trace?: string;
}

/** Options of `openEventChannel`. */
export interface ElicitationEventChannelOptions {
  /**
   * Returns the trace context (a W3C `traceparent`) to send with an event, or `undefined` for none. The store
   * calls it synchronously when it sends an event: at the start of the operation that makes the transition
   * (`create`, `finish`, `extend`, `sweep`, when its script appends the event) or in `publish`, so it sees that call's
   * active span. A value that throws or is not a short string is not sent.
   */
  trace?: () => string | undefined;
}

/**
 * A channel that carries lifecycle events between app instances sharing one store (a Redis Stream for the
 * Redis store). Events never carry submitted data.
 */
export interface ElicitationEventChannel {
  /**
   * Sends an event to the other instances (not back to this one). The module publishes here each event of a move
   * the store did not say it sent itself (`EventSentReport`).
   */
  publish(event: ElicitationEvent): Promise<void>;
  /** Stops listening and closes what the channel opened. */
  close(): Promise<void>;
  /**
   * Optional: whether events from the other instances can arrive now (its connection is up; false once closed).
   * Read by health checks (`nestjs-mcp-elicitation/terminus`); a channel without it counts as live.
   */
  isLive?(): boolean;
}
