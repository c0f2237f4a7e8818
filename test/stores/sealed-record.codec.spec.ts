/**
 * The sealed record (stores/sealed-record.codec.ts), the two texts every shared store writes at a record's creation:
 * what they hold, that nothing in them is in clear but the id, and that they open as their own record only.
 */
import { describe, expect, it } from '@jest/globals';
import { StoreKeyRing } from '../../src/security/store-key-ring.js';
import { askedPartsOf, decodeData, openRecord, sealRecord } from '../../src/stores/sealed-record.codec.js';
import { pendingRecord } from '../../src/testing/store-contract.js';
import { TEST_STORE_KEYS } from '../support/store-keys.js';

describe('the sealed record', () => {
  it('opens to the record it sealed, with the status and expiry the store keeps beside it', () => {
    const record = pendingRecord({
      userId: 'alice@example.com',
      sessionId: 'session-of-alice',
      taskId: 'task-of-alice',
      askKey: 'ask-key-of-alice',
      metadata: { repo: 'alice-repository' },
    });
    const { eventPart, sealed } = sealRecord(record, TEST_STORE_KEYS);
    const opened = openRecord(eventPart, sealed, 'declined', record.expiresAt + 5, TEST_STORE_KEYS);
    expect(opened).toEqual({
      ...record,
      status: 'declined',
      expiresAt: record.expiresAt + 5,
      purgeAt: 0,
      finishedAt: undefined,
      data: undefined,
      consumedAt: undefined,
    });
    expect(askedPartsOf(record.id, sealed, TEST_STORE_KEYS)).toEqual({
      userId: record.userId,
      askKey: 'ask-key-of-alice',
      createdAt: record.createdAt,
    });
    for (const text of [eventPart, sealed]) {
      for (const clear of [record.userId, record.message, 'ask-key-of-alice', 'alice-repository', 'session-of-alice', 'task-of-alice'])
        expect(text).not.toContain(clear);
    }
    expect(decodeData('{"$sealed":"x"}')).toEqual({ $sealed: 'x' });
  });

  it('opens as its own record only, under the keys it was sealed with', () => {
    const a = pendingRecord();
    const b = pendingRecord();
    const sealedA = sealRecord(a, TEST_STORE_KEYS);
    const sealedB = sealRecord(b, TEST_STORE_KEYS);
    expect(() => openRecord(sealedB.eventPart, sealedA.sealed, 'pending', 1, TEST_STORE_KEYS)).toThrow();
    expect(() => openRecord(sealedA.eventPart, sealedA.sealed, 'pending', 1, new StoreKeyRing([Buffer.alloc(32, 9)]))).toThrow();
  });
});
