/**
 * The upload budget (#28, item 5), the pure part: one upload in flight per elicitation, reservations within the
 * capacity, what is held counted as it is, a lease given back once.
 */
import { describe, expect, it } from '@jest/globals';
import { UploadBudget, type UploadLease } from '../../src/uploads/upload-budget.js';

const leaseOf = (admitted: ReturnType<UploadBudget['admit']>): UploadLease => {
  if (!admitted.ok) throw new Error(`refused: ${admitted.reason}`);
  return admitted.lease;
};

describe('UploadBudget', () => {
  it('admits one upload per elicitation: a second is busy until the first is released', () => {
    const budget = new UploadBudget(1000);
    const first = leaseOf(budget.admit('a', 100));
    expect(budget.admit('a', 1)).toEqual({ ok: false, reason: 'busy' });
    expect(budget.admit('b', 100).ok).toBe(true);
    first.release();
    expect(budget.admit('a', 100).ok).toBe(true);
  });

  it('refuses a reservation that would pass the capacity, and takes it once there is room', () => {
    const budget = new UploadBudget(300);
    const a = leaseOf(budget.admit('a', 200));
    expect(budget.admit('b', 101)).toEqual({ ok: false, reason: 'full' });
    const b = leaseOf(budget.admit('b', 100));
    expect(budget.usage()).toMatchObject({ reservedBytes: 300, inFlight: 2 });
    a.release();
    expect(budget.admit('c', 200).ok).toBe(true);
    b.release();
  });

  it('a busy elicitation is refused as busy even when the budget is spent', () => {
    const budget = new UploadBudget(100);
    leaseOf(budget.admit('a', 100));
    expect(budget.admit('a', 100)).toEqual({ ok: false, reason: 'busy' });
    expect(budget.admit('b', 1)).toEqual({ ok: false, reason: 'full' });
  });

  it('counts what is held and its peak, and gives everything back once', () => {
    const budget = new UploadBudget(1000);
    const a = leaseOf(budget.admit('a', 400));
    const b = leaseOf(budget.admit('b', 400));
    a.hold(300);
    b.hold(250);
    expect(budget.usage()).toEqual({ capacityBytes: 1000, reservedBytes: 800, heldBytes: 550, peakHeldBytes: 550, inFlight: 2 });
    a.release();
    a.release();
    a.hold(100);
    expect(budget.usage()).toEqual({ capacityBytes: 1000, reservedBytes: 400, heldBytes: 250, peakHeldBytes: 550, inFlight: 1 });
    b.release();
    expect(budget.usage()).toEqual({ capacityBytes: 1000, reservedBytes: 0, heldBytes: 0, peakHeldBytes: 550, inFlight: 0 });
  });
});
