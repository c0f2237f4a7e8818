/**
 * What a shared store seals of a passkey, and what `resealPasskeys` makes of it after a rotation: a passkey sealed under
 * the ring's first key stays; one sealed under an older key is sealed again under the first (it then opens without the
 * older key, for the same id only); one the ring cannot open, or that holds no user, is counted unreadable.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { StoreKeyRing } from '../../src/security/store-key-ring.js';
import { openPasskey, resealMoves, sealPasskey } from '../../src/stores/sealed-passkey.codec.js';
import type { StoredPasskey } from '../../src/stores/passkey-store.js';

const [K1, K2, K3] = [randomBytes(32), randomBytes(32), randomBytes(32)];
const PASSKEY: StoredPasskey = {
  id: 'cred-1',
  userId: 'bob',
  publicKey: 'pk-1',
  counter: 3,
  transports: ['internal'],
  name: 'Laptop',
  createdAt: 1_000,
};
const CLEAR = { counter: 3, createdAt: 1_000 };

describe('sealed passkeys across a rotation', () => {
  it('seals again under the first key only what an older key sealed', () => {
    const old = new StoreKeyRing([K1, K2]);
    const rotated = new StoreKeyRing([K2, K1]);
    const underK1 = sealPasskey(PASSKEY, old);
    const underK2 = sealPasskey({ ...PASSKEY, id: 'cred-2' }, rotated);
    const { moves, unreadable } = resealMoves(
      [
        ['cred-1', underK1],
        ['cred-2', underK2],
      ],
      rotated,
    );
    expect(unreadable).toBe(0);
    expect(moves.map((m) => [m.id, m.old, m.userId])).toEqual([['cred-1', underK1, 'bob']]);
    // The new sealed part opens with K2 alone, as the passkey it was, and only for its own id.
    const only = new StoreKeyRing([K2]);
    expect(openPasskey('cred-1', moves[0].sealed, CLEAR, only)).toEqual(PASSKEY);
    expect(() => openPasskey('cred-2', moves[0].sealed, CLEAR, only)).toThrow();
    expect(() => openPasskey('cred-1', underK1, CLEAR, only)).toThrow();
  });

  it('counts as unreadable what the ring cannot open, moved to another id, or holding no user', () => {
    const rotated = new StoreKeyRing([K2, K1]);
    const elsewhere = sealPasskey(PASSKEY, new StoreKeyRing([K3]));
    const underK1 = new StoreKeyRing([K1]);
    const noUser = underK1.seal(JSON.stringify({ publicKey: 'pk', name: 'x' }), 'passkey:cred-3');
    const notJson = underK1.seal('not json', 'passkey:cred-4');
    const found = [
      ['cred-1', elsewhere],
      ['cred-9', sealPasskey(PASSKEY, underK1)],
      ['cred-3', noUser],
      ['cred-4', notJson],
      ['cred-5', 'v1.garbage'],
    ] as const;
    expect(resealMoves(found, rotated)).toEqual({ moves: [], unreadable: 5 });
  });
});
