/**
 * The bytes file uploads may hold in memory at once, in this process, and one upload in flight per elicitation. A
 * file page post reserves, before any byte of its file is kept, the most it can hold (the elicitation's `maxBytes`,
 * or less when the request's `Content-Length` says so); a post that would take the reserved total past the
 * capacity is refused, as is a second post to an elicitation whose first is still being read. What a post holds
 * (`hold`) never passes what it reserved, so the bytes held stay under the capacity. A leaf: it imports nothing.
 */

/** Why an upload was not admitted: another one to the same elicitation is in flight, or the budget is spent. */
export type UploadRefusal = 'busy' | 'full';

/** An admitted upload's share of the budget, given back once (`release`) when its request is done. */
export interface UploadLease {
  /** Bytes reserved for this upload. */
  readonly reservedBytes: number;
  /** Counts `bytes` more of the file kept in memory. */
  hold(bytes: number): void;
  /** Gives the reservation back and ends the upload's turn on its elicitation; later calls do nothing. */
  release(): void;
}

/** What the budget holds now, and the most it held (for tests and operators). */
export interface UploadBudgetUsage {
  /** The capacity, in bytes (`limits.uploadBufferBytes`). */
  readonly capacityBytes: number;
  /** Bytes reserved by the uploads in flight. */
  readonly reservedBytes: number;
  /** Bytes of files kept in memory by the uploads in flight. */
  readonly heldBytes: number;
  /** The most bytes held at once since the budget was made. */
  readonly peakHeldBytes: number;
  /** Uploads in flight (one per elicitation at most). */
  readonly inFlight: number;
}

export class UploadBudget {
  private readonly inFlight = new Set<string>();
  private reserved = 0;
  private held = 0;
  private peakHeld = 0;

  /** @param capacityBytes the most bytes the uploads in flight may reserve together. */
  constructor(readonly capacityBytes: number) {}

  /**
   * Admits an upload to elicitation `key` that may keep up to `bytes` in memory, or says why not: `busy` when an
   * upload to the same elicitation is in flight, `full` when `bytes` more would pass the capacity.
   */
  admit(key: string, bytes: number): { ok: true; lease: UploadLease } | { ok: false; reason: UploadRefusal } {
    if (this.inFlight.has(key)) return { ok: false, reason: 'busy' };
    const reservedBytes = Math.max(0, Math.ceil(bytes));
    if (this.reserved + reservedBytes > this.capacityBytes) return { ok: false, reason: 'full' };
    this.inFlight.add(key);
    this.reserved += reservedBytes;
    let held = 0;
    let released = false;
    const lease: UploadLease = {
      reservedBytes,
      hold: (more) => {
        if (released) return;
        // Counted as they are (a file keeps at most `maxBytes` and at most its request's length, so at most its
        // reservation): the peak is what was really held.
        held += more;
        this.held += more;
        if (this.held > this.peakHeld) this.peakHeld = this.held;
      },
      release: () => {
        if (released) return;
        released = true;
        this.inFlight.delete(key);
        this.reserved -= reservedBytes;
        this.held -= held;
      },
    };
    return { ok: true, lease };
  }

  /** What the budget holds now. */
  usage(): UploadBudgetUsage {
    return {
      capacityBytes: this.capacityBytes,
      reservedBytes: this.reserved,
      heldBytes: this.held,
      peakHeldBytes: this.peakHeld,
      inFlight: this.inFlight.size,
    };
  }
}
