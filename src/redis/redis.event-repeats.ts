/**
 * The ids of the events a channel delivered lately (two generations of at most `generation` each), so that an event
 * the stream holds twice is delivered once. Only `RedisEventChannel.publish` can append an event twice: when the
 * store's connection drops after Redis ran its APPEND script but before the reply arrived, ioredis sends the
 * command again once it has reconnected (`autoResendUnfulfilledCommands`, on by default, so on the connections the
 * store opens and on most an app passes; a Cluster client retries as well), and Redis appends the event a second
 * time. The scripts that append an event within a move (CREATE, FINISH, EXTEND_EXPIRY, SWEEP) cannot: sent again,
 * they find the move made and append nothing. Nor do reads repeat an entry: each starts after the last id read,
 * across reconnects too.
 */
export class RecentIds {
  private current = new Set<string>();
  private previous = new Set<string>();

  constructor(private readonly generation: number) {}

  /** False when `id` was seen lately (a duplicate); otherwise remembers it and returns true. */
  add(id: string): boolean {
    if (this.current.has(id) || this.previous.has(id)) return false;
    if (this.current.size >= this.generation) {
      this.previous = this.current;
      this.current = new Set();
    }
    this.current.add(id);
    return true;
  }
}
