/**
 * Items filed by deadline in buckets of `widthMs` (bucket k holds the deadlines in [k·width, (k+1)·width)),
 * for a sweep whose cost follows what is due: every bucket before the one holding `now` is wholly due and
 * is taken out in one step, with no per-item ordering work; only the bucket holding `now` is looked at item
 * by item (see `bucketAt`). The keys of the buckets in use sit in a small binary min-heap (one entry per
 * bucket, not per item), so deadlines may be added in any order, in the past as well as the future.
 *
 * Items are never moved: a changed deadline is added again, and the owner recognises a stale entry when
 * its bucket comes up (`keyOf` tells whether an item's current deadline belongs to a bucket). An item costs
 * one array slot.
 */
export class DeadlineWheel<T> {
  private readonly buckets = new Map<number, T[]>();
  /** Min-heap of the keys of `buckets`. */
  private readonly keys: number[] = [];
  private entries = 0;
  /** The bucket `add` used last: consecutive deadlines mostly fall in the same bucket. */
  private lastKey = NaN;
  private lastBucket: T[] | undefined;

  constructor(readonly widthMs = 1_000) {
    if (!(widthMs > 0)) throw new RangeError('widthMs must be positive');
  }

  /** Entries held, stale ones included. */
  get size(): number {
    return this.entries;
  }

  /** The key of the bucket that holds `deadline` (NaN for NaN: no bucket). */
  keyOf(deadline: number): number {
    return Math.floor(deadline / this.widthMs);
  }

  /** Files `item` under `deadline`. A NaN deadline is never due: nothing is filed. */
  add(deadline: number, item: T): void {
    const key = Math.floor(deadline / this.widthMs);
    let bucket = key === this.lastKey ? this.lastBucket : this.buckets.get(key);
    if (bucket === undefined) {
      if (key !== key) return;
      bucket = [];
      this.buckets.set(key, bucket);
      pushKey(this.keys, key);
    }
    this.lastKey = key;
    this.lastBucket = bucket;
    bucket.push(item);
    this.entries++;
  }

  /** Files every item of `items` under one `deadline` (the array is copied, not kept). */
  addAll(deadline: number, items: readonly T[]): void {
    const n = items.length;
    if (n === 0) return;
    const key = Math.floor(deadline / this.widthMs);
    let bucket = key === this.lastKey ? this.lastBucket : this.buckets.get(key);
    if (bucket === undefined) {
      if (key !== key) return;
      bucket = [];
      this.buckets.set(key, bucket);
      pushKey(this.keys, key);
    }
    // One plain loop whatever `n` and the bucket: no path that only some calls take (and that would
    // send the optimised caller back to the interpreter the first time it is taken).
    for (let i = 0; i < n; i++) bucket.push(items[i]);
    this.lastKey = key;
    this.lastBucket = bucket;
    this.entries += n;
  }

  /**
   * Takes out and returns the earliest bucket if every deadline in it is at or before `now` (its key is
   * below `keyOf(now)`), else undefined. Call until undefined; then see `bucketAt(now)`.
   */
  takeDue(now: number): T[] | undefined {
    const keys = this.keys;
    if (keys.length === 0 || keys[0] >= Math.floor(now / this.widthMs)) return undefined;
    return this.remove(popKey(keys));
  }

  /**
   * The bucket holding `now`, left in place: some of its items may be due, some not. The caller walks it,
   * may add items (to it too: they are appended), packs the items to keep at its front and then calls
   * `trim(now, kept)`.
   */
  bucketAt(now: number): T[] | undefined {
    return this.buckets.get(Math.floor(now / this.widthMs));
  }

  /** Cuts the bucket holding `now` down to its first `kept` items, and drops it when that leaves none. */
  trim(now: number, kept: number): void {
    const key = Math.floor(now / this.widthMs);
    const bucket = this.buckets.get(key);
    if (bucket === undefined) return;
    this.entries -= bucket.length - kept;
    bucket.length = kept;
    if (kept > 0) return;
    this.remove(key);
    // Every earlier bucket has been taken (takeDue), so this key is the heap's smallest.
    if (this.keys[0] === key) popKey(this.keys);
    else removeKey(this.keys, key);
  }

  clear(): void {
    this.buckets.clear();
    this.keys.length = 0;
    this.entries = 0;
    this.lastKey = NaN;
    this.lastBucket = undefined;
  }

  private remove(key: number): T[] {
    const bucket = this.buckets.get(key)!;
    this.buckets.delete(key);
    this.entries -= bucket.length;
    if (key === this.lastKey) {
      this.lastKey = NaN;
      this.lastBucket = undefined;
    }
    return bucket;
  }
}

function pushKey(heap: number[], key: number): void {
  let i = heap.length;
  heap.push(key);
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (heap[parent] <= key) break;
    heap[i] = heap[parent];
    i = parent;
  }
  heap[i] = key;
}

function popKey(heap: number[]): number {
  const top = heap[0];
  const last = heap.pop()!;
  if (heap.length > 0) siftDown(heap, 0, last);
  return top;
}

/** Removes one key anywhere in the heap (rare: only when a bucket empties while an earlier one is held). */
function removeKey(heap: number[], key: number): void {
  let i = heap.indexOf(key);
  if (i < 0) return;
  const last = heap.pop()!;
  if (i === heap.length) return;
  while (i > 0 && heap[(i - 1) >> 1] > last) {
    heap[i] = heap[(i - 1) >> 1];
    i = (i - 1) >> 1;
  }
  siftDown(heap, i, last);
}

function siftDown(heap: number[], i: number, key: number): void {
  const n = heap.length;
  for (;;) {
    const l = 2 * i + 1;
    if (l >= n) break;
    const r = l + 1;
    const c = r < n && heap[r] < heap[l] ? r : l;
    if (heap[c] >= key) break;
    heap[i] = heap[c];
    i = c;
  }
  heap[i] = key;
}
