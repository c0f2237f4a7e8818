/**
 * What tells a CSRF token of another instance from a forged one (issue 28, item 7): the key ids the live instances
 * announced, as the announcer last read them (`AnnouncedKeyIds`), read again for an unknown key id at most once per
 * interval; and the warnings about a key id this instance lacks, at most once per key id per interval
 * (`KeyIdWarnings`).
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { ElicitationKeyRingAnnouncer } from '../../src/module/elicitation-key-ring.announcer.js';
import { AnnouncedKeyIds, KEY_ID_LOOKUP_INTERVAL_MS } from '../../src/security/announced-key-ids.js';
import { CsrfTokens } from '../../src/security/csrf.js';
import { KEY_ID_WARNING_INTERVAL_MS, KeyIdWarnings, keyIdOf } from '../../src/security/key-ids.js';
import type { KeyRingEntry } from '../../src/stores/elicitation-store.js';

/** A clock the test moves. */
function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

/** A store's `announceKeyRing` over a map of live entries, counting its calls. */
function ringStore(live: KeyRingEntry[]) {
  const store = {
    calls: 0,
    live,
    announceKeyRing(entry: KeyRingEntry, _now: number, ttlMs: number): Promise<KeyRingEntry[]> {
      store.calls++;
      const others = store.live.filter((e) => e.instanceId !== entry.instanceId);
      return Promise.resolve(ttlMs > 0 ? [...others, entry] : others);
    },
  };
  return store;
}

describe('AnnouncedKeyIds', () => {
  it('knows the key ids of the rings last read, and only those', () => {
    const announced = new AnnouncedKeyIds();
    expect(announced.has('aaaaaaaa')).toBe(false);
    announced.update([{ keyIds: ['aaaaaaaa', 'bbbbbbbb'] }, { keyIds: ['cccccccc'] }]);
    expect(['aaaaaaaa', 'bbbbbbbb', 'cccccccc', 'dddddddd'].map((id) => announced.has(id))).toEqual([true, true, true, false]);
    announced.update([{ keyIds: ['cccccccc'] }]);
    expect(announced.has('aaaaaaaa')).toBe(false);
  });

  it('reads the rings again for an unknown key id at most once per interval, one read at a time', async () => {
    const time = clock();
    const announced = new AnnouncedKeyIds(time.now);
    // Without a reader (a store that is not shared): no read, unknown.
    expect(await announced.lookUp('bbbbbbbb')).toBe(false);
    let reads = 0;
    let rings: string[][] = [];
    announced.readWith(async () => {
      reads++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      announced.update(rings.map((keyIds) => ({ keyIds })));
    });
    // Many unknown key ids at once (a browser making them up): one read.
    const looks = await Promise.all(Array.from({ length: 50 }, (_, i) => announced.lookUp(i.toString(16).padStart(8, '0'))));
    expect(looks.every((known) => !known)).toBe(true);
    expect(reads).toBe(1);
    // Within the interval: no read, even for a key id a new instance has announced meanwhile.
    rings = [['bbbbbbbb']];
    time.advance(KEY_ID_LOOKUP_INTERVAL_MS - 1);
    expect(await announced.lookUp('bbbbbbbb')).toBe(false);
    expect(reads).toBe(1);
    // After it: read again, and known from then on without a read.
    time.advance(1);
    expect(await announced.lookUp('bbbbbbbb')).toBe(true);
    expect(await announced.lookUp('bbbbbbbb')).toBe(true);
    expect(reads).toBe(2);
  });

  it('a reader that fails leaves the key id unknown, and the lookup resolves', async () => {
    const announced = new AnnouncedKeyIds();
    announced.readWith(() => Promise.reject(new Error('store down')));
    expect(await announced.lookUp('bbbbbbbb')).toBe(false);
  });
});

describe('CsrfTokens with the announced key ids', () => {
  const [K1, K2] = [randomBytes(32), randomBytes(32)];

  it('a token of an instance started since the rings were read: looked up, then ElicitationKeyError; a made-up key id: false', async () => {
    const { nonce, token } = new CsrfTokens([K2, K1]).issue('e1');
    const announced = new AnnouncedKeyIds();
    const store = ringStore([]);
    const announcer = new ElicitationKeyRingAnnouncer({ encryptionKeys: [K1] }, store, announced);
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    await announcer.start();
    const csrf = new CsrfTokens([K1], announced);
    // The other instance starts after this one read the rings.
    store.live = [{ instanceId: 'b', keyIds: [keyIdOf(K2), keyIdOf(K1)] }];
    expect(csrf.verify('e1', nonce, token)).toBe(false);
    await csrf.lookUpKeyOf(token);
    expect(() => csrf.verify('e1', nonce, token)).toThrow(expect.objectContaining({ name: 'ElicitationKeyError', keyId: keyIdOf(K2) }));
    // A made-up key id in the same shape: looked up (within the interval: no read), false.
    const calls = store.calls;
    const forged = `0badf00d.${token.slice(9)}`;
    await csrf.lookUpKeyOf(forged);
    expect(csrf.verify('e1', nonce, forged)).toBe(false);
    expect(store.calls).toBe(calls);
    // A token of this instance's own ring, or a malformed one, never reads the rings.
    await csrf.lookUpKeyOf(new CsrfTokens([K1]).issue('e1').token);
    await csrf.lookUpKeyOf('not-a-token');
    expect(store.calls).toBe(calls);
    await announcer.onModuleDestroy();
  });

  it('the announcer does not offer to read on a store without announceKeyRing', async () => {
    const announced = new AnnouncedKeyIds();
    const readWith = jest.spyOn(announced, 'readWith');
    const announcer = new ElicitationKeyRingAnnouncer({ encryptionKeys: [K1] }, {}, announced);
    await announcer.start();
    expect(readWith).not.toHaveBeenCalled();
    expect(await announced.lookUp(keyIdOf(K2))).toBe(false);
  });

  afterEach(() => {
    jest.restoreAllMocks();
  });
});

describe('KeyIdWarnings', () => {
  it('lets each key id be warned about once per interval', () => {
    const time = clock();
    const warnings = new KeyIdWarnings(KEY_ID_WARNING_INTERVAL_MS, time.now);
    expect([warnings.take('aaaaaaaa'), warnings.take('aaaaaaaa'), warnings.take('bbbbbbbb')]).toEqual([true, false, true]);
    time.advance(KEY_ID_WARNING_INTERVAL_MS - 1);
    expect(warnings.take('aaaaaaaa')).toBe(false);
    time.advance(1);
    expect([warnings.take('aaaaaaaa'), warnings.take('aaaaaaaa'), warnings.take('bbbbbbbb')]).toEqual([true, false, true]);
  });

  it('warns about at most 64 key ids per interval, then about new ones again once the interval passed', () => {
    const time = clock();
    const warnings = new KeyIdWarnings(60_000, time.now);
    const ids = Array.from({ length: 100 }, (_, i) => i.toString(16).padStart(8, '0'));
    expect(ids.filter((id) => warnings.take(id))).toHaveLength(64);
    time.advance(60_000);
    expect(warnings.take(ids[99])).toBe(true);
  });
});
