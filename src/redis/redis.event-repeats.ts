import type { ElicitationEvent } from '../core/elicitation.types.js';

/**
 * Events whose append a script already made (CREATE, FINISH, EXTEND_EXPIRY, SWEEP), so that the channel does not send them
 * again when the service publishes them right after (by `tag`). Entries live one to two rotations (a second
 * or two), so an event that is never published through the channel costs nothing for long; one published
 * later than that goes out again and the readers drop it by its id.
 *
 * It spares every create and finish a second round trip and lets the event leave from inside the script
 * (guarded by the redis.bench rows "redis round trips per create / finish" and "redis cross-instance
 * completion latency p99").
 */
export class SentInScript {
  private current = new Set<string>();
  private previous = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  add(tag: string): void {
    this.current.add(tag);
    if (!this.timer) {
      this.timer = setInterval(() => {
        this.previous = this.current;
        this.current = new Set();
        if (this.previous.size === 0) this.stop();
      }, 1_000);
      this.timer.unref();
    }
  }

  /** True (once) when a script already appended this event. */
  take(tag: string): boolean {
    return this.current.delete(tag) || this.previous.delete(tag);
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** The ids of the events delivered lately (two generations of at most `generation` each), to drop a second copy. */
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

/** How SentInScript tells one event from another. */
export function eventTag(id: string, type: ElicitationEvent['type'], at: number): string {
  return `${id} ${type} ${at}`;
}
