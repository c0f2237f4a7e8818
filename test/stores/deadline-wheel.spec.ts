/** `DeadlineWheel`, the memory store's buckets of deadlines: a sweep looks only at what is due. */
import { describe, expect, it } from '@jest/globals';
import { DeadlineWheel } from '../../src/stores/deadline-wheel.js';

describe('DeadlineWheel', () => {
  /** Drains `wheel` at `now` as the store does: whole buckets before now's, then the due items of now's. */
  function drain(wheel: DeadlineWheel<number>, now: number): number[] {
    const out: number[] = [];
    for (let b = wheel.takeDue(now); b; b = wheel.takeDue(now)) out.push(...b);
    const current = wheel.bucketAt(now);
    if (current) {
      let kept = 0;
      for (const d of current)
        if (d <= now) out.push(d);
        else current[kept++] = d;
      wheel.trim(now, kept);
    }
    return out;
  }

  it('gives back every item once its deadline is reached, whatever the order they were added in', () => {
    const wheel = new DeadlineWheel<number>(100);
    const values = Array.from({ length: 2_000 }, () => Math.floor(Math.random() * 10_000));
    for (const v of values) wheel.add(v, v);
    expect(wheel.size).toBe(values.length);
    const seen: number[] = [];
    for (let now = -1; now < 10_050; now += 37) {
      for (const d of drain(wheel, now)) {
        expect(d).toBeLessThanOrEqual(now);
        expect(d).toBeGreaterThan(now - 37);
        seen.push(d);
      }
      expect(wheel.size).toBe(values.filter((v) => v > now).length);
    }
    expect(seen.sort((a, b) => a - b)).toEqual([...values].sort((a, b) => a - b));
    expect(wheel.size).toBe(0);
    expect(wheel.takeDue(Infinity)).toBeUndefined();
  });

  it('takes a wholly due bucket in one step and leaves the bucket holding now in place', () => {
    const wheel = new DeadlineWheel<string>(1_000);
    wheel.add(2_500, 'b');
    wheel.add(1_200, 'a');
    wheel.add(2_900, 'c');
    wheel.add(NaN, 'never');
    expect(wheel.size).toBe(3);
    expect(wheel.takeDue(2_600)).toEqual(['a']);
    expect(wheel.takeDue(2_600)).toBeUndefined();
    expect(wheel.bucketAt(2_600)).toEqual(['b', 'c']);
    expect(wheel.keyOf(2_999)).toBe(wheel.keyOf(2_000));
  });

  it('files many items under one deadline at once, into a new bucket or an existing one', () => {
    const wheel = new DeadlineWheel<number>(10);
    const items = [1, 2, 3];
    wheel.addAll(55, items);
    items.push(4); // copied, not kept
    wheel.add(57, 5);
    wheel.addAll(58, [6, 7]);
    wheel.addAll(99, []);
    expect(wheel.size).toBe(6);
    expect(wheel.takeDue(60)).toEqual([1, 2, 3, 5, 6, 7]);
    expect(wheel.size).toBe(0);
    const many = Array.from({ length: 10_000 }, (_, i) => i);
    wheel.add(61, -1);
    wheel.addAll(62, many);
    expect(wheel.size).toBe(10_001);
    expect(wheel.takeDue(70)).toEqual([-1, ...many]);
  });

  it('keeps its bucket keys ordered when a later bucket empties before an earlier one', () => {
    const wheel = new DeadlineWheel<number>(10);
    for (const d of [5, 15, 25, 35, 45]) wheel.add(d, d);
    // The bucket of 25 empties while those of 5 and 15 are still held.
    const current = wheel.bucketAt(25)!;
    expect(current).toEqual([25]);
    wheel.trim(25, 0);
    expect(wheel.size).toBe(4);
    expect(drain(wheel, 100)).toEqual([5, 15, 35, 45]);
    expect(wheel.size).toBe(0);
  });
});
