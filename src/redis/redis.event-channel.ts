import { randomUUID } from 'node:crypto';
import type { ElicitationEvent, FinalStatus } from '../elicitation.types.js';
import type { ElicitationEventChannel } from '../stores/elicitation-store.js';
import { callRedis, duplicateClient, type RedisClient } from './redis.client.js';
import {
  decodeEventMessage,
  encodeEventMessage,
  eventMessageEnd,
  eventMessageHead,
  eventMessageStart,
  type EventSealing,
} from './redis.event-wire.js';

/**
 * Events whose PUBLISH a finish script already made, so that the channel does not send them again when the
 * service publishes them right after (id → `type:at`). Entries live one to two rotations (a second or two),
 * so an event that is never published through the channel costs nothing for long.
 *
 * It spares every finish a second PUBLISH round trip and lets the event leave from inside the script (guarded
 * by the redis.bench row "redis cross-instance completion latency p99").
 */
class SentInScript {
  private current = new Map<string, string>();
  private previous = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;

  add(id: string, tag: string): void {
    this.current.set(id, tag);
    if (!this.timer) {
      this.timer = setInterval(() => {
        this.previous = this.current;
        this.current = new Map();
        if (this.previous.size === 0) this.stop();
      }, 1_000);
      this.timer.unref();
    }
  }

  /** True (once) when the finish script already published this event. */
  take(id: string, tag: string): boolean {
    for (const map of [this.current, this.previous]) {
      if (map.get(id) === tag) {
        map.delete(id);
        return true;
      }
    }
    return false;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** What an event channel needs from the store that opens it. */
export interface RedisEventChannelDeps {
  /** The store's connection: duplicated for the subscriber, and used to publish. */
  readonly redis: RedisClient;
  /** The pub/sub channel of the store's key prefix. */
  readonly channelName: string;
  /** The store's keys: they seal the record's part of what this channel sends, and open what it receives. */
  readonly keys: EventSealing;
  /** Called when the channel closes. */
  readonly onClose: (channel: RedisEventChannel) => void;
}

/**
 * One event channel of a Redis store: a dedicated subscriber connection (a subscribed connection can run no
 * other command; ioredis resubscribes it after a reconnect) and publishing on the store's connection. Its
 * messages carry its own random origin, so it ignores what it sent itself. A message arrives with its user,
 * kind, type and session sealed (redis.event-wire.ts); the channel opens them, so listeners get the whole
 * event, and drops what it cannot open (another key ring).
 */
export class RedisEventChannel implements ElicitationEventChannel {
  /** What this channel's messages start with, up to the event's type (exclusive). */
  private readonly head: string;
  private readonly sent = new SentInScript();

  private constructor(
    private readonly deps: RedisEventChannelDeps,
    origin: string,
    private readonly subscriber: RedisClient,
  ) {
    this.head = eventMessageHead(origin);
  }

  /** Subscribes a new channel; `onRemoteEvent` receives the events other channels publish. */
  static async open(deps: RedisEventChannelDeps, onRemoteEvent: (event: ElicitationEvent) => void): Promise<RedisEventChannel> {
    const origin = randomUUID();
    const subscriber = duplicateClient(deps.redis);
    subscriber.on('error', () => undefined);
    subscriber.on('message', (channel: string, text: string) => {
      if (channel !== deps.channelName) return;
      const message = decodeEventMessage(text, deps.keys);
      if (message && message.origin !== origin) onRemoteEvent(message.event);
    });
    await subscriber.subscribe(deps.channelName);
    return new RedisEventChannel(deps, origin, subscriber);
  }

  /**
   * The FINISH script's last three arguments, so that it publishes the event of the record it finishes
   * itself: the channel, and the message's pieces before and after the record's part.
   */
  scriptPublishArgs(status: FinalStatus, now: number): [string, string, string] {
    return [this.deps.channelName, eventMessageStart(this.head, status), eventMessageEnd(now)];
  }

  /** Notes that a finish script published this event, so that `publish` does not send it again. */
  publishedInScript(id: string, status: FinalStatus, now: number): void {
    this.sent.add(id, tag(status, now));
  }

  async publish(event: ElicitationEvent): Promise<void> {
    if (this.sent.take(event.elicitationId, tag(event.type, event.at))) return;
    await callRedis('publish', () => this.deps.redis.publish(this.deps.channelName, encodeEventMessage(this.head, event, this.deps.keys)));
  }

  /** Whether the subscriber connection is up and subscribed (ioredis `ready`; it resubscribes after a reconnect). */
  isLive(): boolean {
    return this.subscriber.status === 'ready';
  }

  close(): Promise<void> {
    this.deps.onClose(this);
    this.sent.stop();
    this.subscriber.disconnect();
    return Promise.resolve();
  }
}

/** How SentInScript tells one event of a record from another. */
function tag(type: ElicitationEvent['type'], at: number): string {
  return `${type}:${at}`;
}
