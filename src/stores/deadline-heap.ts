/**
 * A binary min-heap of (deadline, id) pairs kept in two parallel arrays, so an entry costs two array
 * slots rather than an object. Entries are never updated in place: a changed deadline is pushed again
 * and the stale entry is recognised and skipped when it surfaces.
 */
export class DeadlineHeap {
  private readonly at: number[] = [];
  private readonly ids: string[] = [];

  get size(): number {
    return this.at.length;
  }

  push(deadline: number, id: string): void {
    const at = this.at;
    const ids = this.ids;
    let i = at.length;
    at.push(deadline);
    ids.push(id);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (at[parent] <= deadline) break;
      at[i] = at[parent];
      ids[i] = ids[parent];
      i = parent;
    }
    at[i] = deadline;
    ids[i] = id;
  }

  /** The earliest deadline, or `Infinity` when empty. */
  peek(): number {
    return this.at.length ? this.at[0] : Infinity;
  }

  /** Removes the earliest entry and returns its id. Call only when `size > 0`. */
  pop(): string {
    const at = this.at;
    const ids = this.ids;
    const top = ids[0];
    const lastAt = at.pop()!;
    const lastId = ids.pop()!;
    const n = at.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const c = r < n && at[r] < at[l] ? r : l;
        if (at[c] >= lastAt) break;
        at[i] = at[c];
        ids[i] = ids[c];
        i = c;
      }
      at[i] = lastAt;
      ids[i] = lastId;
    }
    return top;
  }

  clear(): void {
    this.at.length = 0;
    this.ids.length = 0;
  }
}
