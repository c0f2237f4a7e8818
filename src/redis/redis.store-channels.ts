import type { ElicitationEvent } from '../core/elicitation.types.js';
import type { ElicitationEventChannelOptions, ElicitationEventContext } from '../stores/elicitation-store.js';
import { RedisEventChannel, type RedisEventChannelDeps } from './redis.event-channel.js';
import type { EventSealing } from '../stores/event-wire.js';

/** The CREATE script's event arguments when it appends no event (see EventScriptArgs). */
export const NO_EVENT = ['', '', '', '', ''] as const;

/** The event channels open on one Redis store: what they share of the store, and which one its scripts append for. */
export class RedisStoreChannels {
  private readonly channels = new Set<RedisEventChannel>();

  /** `stream`: the store's connection, scripts, event stream and its caps, shared by every channel. */
  constructor(private readonly stream: Omit<RedisEventChannelDeps, 'keys' | 'onClose'>) {}

  /**
   * Opens a channel on the event stream, reading from its end (events appended from now on); see
   * `RedisEventChannel`. Rejects with `ElicitationStoreUnavailableError` when Redis does not answer.
   */
  async open(
    keys: EventSealing,
    onRemoteEvent: (event: ElicitationEvent, context?: ElicitationEventContext) => void,
    options?: ElicitationEventChannelOptions,
  ): Promise<RedisEventChannel> {
    const deps = { ...this.stream, keys, onClose: (c: RedisEventChannel) => this.channels.delete(c) };
    const channel = await RedisEventChannel.open(deps, onRemoteEvent, options);
    this.channels.add(channel);
    return channel;
  }

  /**
   * The channel whose events the scripts append themselves: the only one open on this store (in the same step
   * as the change, no second round trip; the store's result then says the event was sent, `eventSent`, so the
   * module does not publish it). With several open (tests, two modules on one store) the scripts append none and
   * each module publishes its own, since the store cannot tell which module's channel made the move.
   */
  scriptChannel(): RedisEventChannel | undefined {
    return this.channels.size === 1 ? this.channels.values().next().value : undefined;
  }

  /** Closes every open channel. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.channels].map((c) => c.close()));
  }
}
