import type { DeadlineWheel } from './deadline-wheel.js';
import type { CounterHit } from './elicitation-store.js';

/** The memory store's fixed-window counters: key → hits and window end. */
export type WindowCounters = Map<string, CounterHit>;

/**
 * A fixed-window counter (windows aligned to multiples of windowMs): one more hit on `key`. A new window's key is
 * filed in `ends` under the window's end, so that `dropEndedCounters` finds it without a scan.
 */
export function countHit(counters: WindowCounters, ends: DeadlineWheel<string>, key: string, windowMs: number, now: number): CounterHit {
  let counter = counters.get(key);
  const resetAt = (Math.floor(now / windowMs) + 1) * windowMs;
  if (!counter || counter.resetAt !== resetAt) {
    counters.set(key, (counter = { count: 0, resetAt }));
    ends.add(resetAt, key);
  }
  counter.count++;
  return counter;
}

/** The hits on `key` in the window holding `now` (0 when it has none). */
export function peekCount(counters: WindowCounters, key: string, windowMs: number, now: number): number {
  const counter = counters.get(key);
  return counter && counter.resetAt === (Math.floor(now / windowMs) + 1) * windowMs ? counter.count : 0;
}

/** Drops the counters whose window has ended (an entry in `ends` for an earlier window of a key is stale). */
export function dropEndedCounters(counters: WindowCounters, ends: DeadlineWheel<string>, now: number): void {
  const wheel = ends;
  for (let bucket = wheel.takeDue(now); bucket !== undefined; bucket = wheel.takeDue(now)) {
    for (let i = 0; i < bucket.length; i++) {
      const counter = counters.get(bucket[i]);
      if (counter !== undefined && counter.resetAt <= now) counters.delete(bucket[i]);
    }
  }
  const current = wheel.bucketAt(now);
  if (current === undefined) return;
  const key = wheel.keyOf(now);
  let kept = 0;
  for (let i = 0; i < current.length; i++) {
    const counter = counters.get(current[i]);
    if (counter === undefined) continue;
    if (counter.resetAt <= now) counters.delete(current[i]);
    else if (wheel.keyOf(counter.resetAt) === key) current[kept++] = current[i];
  }
  wheel.trim(now, kept);
}
