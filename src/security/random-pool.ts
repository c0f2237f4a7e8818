import { randomBytes } from 'node:crypto';

/**
 * Random bytes drawn from a pool refilled 4 KiB at a time: one getrandom call serves hundreds of nonces
 * and IVs (a call per value cost a fifth of the page and cycle time in the profiles; bench rows
 * `cycle create→complete→getResult (memory store)` and `http <adapter> GET /elicit/:id/api-key (page)`).
 * The bytes are as random as `randomBytes`; only the system calls are batched.
 */
class RandomPool {
  private pool = Buffer.alloc(0);
  private offset = 0;

  constructor(private readonly poolBytes = 4096) {}

  /** `n` fresh random bytes (a view into the pool; copy it if you keep it past the next call). */
  take(n: number): Buffer {
    if (this.offset + n > this.pool.length) {
      this.pool = randomBytes(Math.max(this.poolBytes, n));
      this.offset = 0;
    }
    const out = this.pool.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }
}

/** The process-wide pool. */
export const randomPool = new RandomPool();
