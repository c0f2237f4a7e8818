import { randomUUID } from 'node:crypto';
import type { ElicitationRecordStore } from '../stores/elicitation-store.js';
import { T0, type ContractGroupApi } from './contract-test-api.js';

/** The passkey group's methods, as the record contract declares them (the kit imports no other part of the stores). */
type ElicitationPasskeyStore = Required<
  Pick<ElicitationRecordStore, 'addPasskey' | 'getPasskey' | 'listPasskeys' | 'removePasskey' | 'usePasskey'>
>;
type StoredPasskey = Parameters<ElicitationPasskeyStore['addPasskey']>[0];

/**
 * The passkeys group of the record contract: run when `offers` lists `addPasskey`, `getPasskey`, `listPasskeys`,
 * `removePasskey` and `usePasskey`. Ids and users are the test's own (the store may be shared between tests).
 */
export function passkeyTests({ itIfOffered, expect }: ContractGroupApi<ElicitationRecordStore>): void {
  const of = (s: ElicitationRecordStore): ElicitationPasskeyStore => {
    if (!s.addPasskey || !s.getPasskey || !s.listPasskeys || !s.removePasskey || !s.usePasskey)
      throw new Error(
        'the store lacks one of addPasskey, getPasskey, listPasskeys, removePasskey, usePasskey, but options.offers lists them',
      );
    return {
      addPasskey: s.addPasskey.bind(s),
      getPasskey: s.getPasskey.bind(s),
      listPasskeys: s.listPasskeys.bind(s),
      removePasskey: s.removePasskey.bind(s),
      usePasskey: s.usePasskey.bind(s),
    };
  };
  const userOf = (name: string) => `contract-${name}-${randomUUID()}`;
  const passkeyOf = (userId: string, overrides: Partial<StoredPasskey> = {}): StoredPasskey => ({
    id: `cred-${randomUUID()}`,
    userId,
    publicKey: `pk-${randomUUID()}`,
    counter: 0,
    transports: ['internal', 'hybrid'],
    name: 'Laptop (added 2027-01-15)',
    createdAt: T0,
    ...overrides,
  });

  itIfOffered('addPasskey', 'adds passkeys, reads each back by id and lists a user’s own, oldest first', async (store) => {
    const passkeys = of(store);
    const alice = userOf('alice');
    const bob = userOf('bob');
    const second = passkeyOf(alice, { createdAt: T0 + 20, transports: undefined, name: 'Phone' });
    const first = passkeyOf(alice, { createdAt: T0 + 10 });
    const bobs = passkeyOf(bob, { createdAt: T0 + 5 });
    await expect(passkeys.addPasskey(second, 5)).resolves.toBe('added');
    await expect(passkeys.addPasskey(first, 5)).resolves.toBe('added');
    await expect(passkeys.addPasskey(bobs, 5)).resolves.toBe('added');
    await expect(passkeys.getPasskey(first.id)).resolves.toEqual(first);
    await expect(passkeys.getPasskey(second.id)).resolves.toEqual({ ...second, transports: undefined });
    await expect(passkeys.getPasskey(`cred-${randomUUID()}`)).resolves.toBeUndefined();
    await expect(passkeys.listPasskeys(alice)).resolves.toEqual([first, { ...second, transports: undefined }]);
    await expect(passkeys.listPasskeys(bob)).resolves.toEqual([bobs]);
    await expect(passkeys.listPasskeys(userOf('nobody'))).resolves.toEqual([]);
  });

  itIfOffered('addPasskey', 'hands out copies: changing what it was given or what it returned changes nothing kept', async (store) => {
    const passkeys = of(store);
    const alice = userOf('alice');
    const passkey = passkeyOf(alice);
    const kept = { ...passkey, transports: [...(passkey.transports ?? [])] };
    await passkeys.addPasskey(passkey, 5);
    passkey.name = 'changed';
    passkey.transports?.push('usb');
    const read = await passkeys.getPasskey(passkey.id);
    expect(read).toEqual(kept);
    if (read) {
      read.counter = 99;
      read.transports?.push('nfc');
    }
    const [listed] = await passkeys.listPasskeys(alice);
    listed.name = 'changed again';
    await expect(passkeys.getPasskey(passkey.id)).resolves.toEqual(kept);
  });

  itIfOffered('addPasskey', 'answers exists for an id kept, removed or not, whoever’s: nothing written', async (store) => {
    const passkeys = of(store);
    const alice = userOf('alice');
    const mallory = userOf('mallory');
    const passkey = passkeyOf(alice);
    await expect(passkeys.addPasskey(passkey, 5)).resolves.toBe('added');
    await expect(passkeys.addPasskey({ ...passkey, publicKey: 'other', name: 'again' }, 5)).resolves.toBe('exists');
    await expect(passkeys.addPasskey({ ...passkey, userId: mallory, publicKey: 'theirs' }, 5)).resolves.toBe('exists');
    await expect(passkeys.listPasskeys(mallory)).resolves.toEqual([]);
    await expect(passkeys.getPasskey(passkey.id)).resolves.toEqual(passkey);
    await expect(passkeys.removePasskey(alice, passkey.id, T0 + 1)).resolves.toBe(true);
    await expect(passkeys.addPasskey({ ...passkey, publicKey: 'after removal' }, 5)).resolves.toBe('exists');
    await expect(passkeys.getPasskey(passkey.id)).resolves.toEqual({ ...passkey, removedAt: T0 + 1 });
  });

  itIfOffered(
    'addPasskey',
    'answers limit at maxPerUser passkeys not removed; removed ones do not count, others’ neither',
    async (store) => {
      const passkeys = of(store);
      const alice = userOf('alice');
      const kept = [passkeyOf(alice, { createdAt: T0 + 1 }), passkeyOf(alice, { createdAt: T0 + 2 })];
      for (const passkey of kept) await expect(passkeys.addPasskey(passkey, 2)).resolves.toBe('added');
      const third = passkeyOf(alice, { createdAt: T0 + 3 });
      await expect(passkeys.addPasskey(third, 2)).resolves.toBe('limit');
      await expect(passkeys.getPasskey(third.id)).resolves.toBeUndefined();
      await expect(passkeys.addPasskey(passkeyOf(userOf('bob')), 2)).resolves.toBe('added');
      await expect(passkeys.removePasskey(alice, kept[0].id, T0 + 4)).resolves.toBe(true);
      await expect(passkeys.addPasskey(third, 2)).resolves.toBe('added');
      await expect(passkeys.listPasskeys(alice)).resolves.toEqual([kept[1], third]);
      await expect(passkeys.addPasskey(passkeyOf(alice, { createdAt: T0 + 5 }), 2)).resolves.toBe('limit');
    },
  );

  itIfOffered(
    'removePasskey',
    'removes a user’s own passkey once: not listed, still read by id; another user’s is left alone',
    async (store) => {
      const passkeys = of(store);
      const alice = userOf('alice');
      const mallory = userOf('mallory');
      const passkey = passkeyOf(alice);
      const other = passkeyOf(alice, { createdAt: T0 + 1 });
      await passkeys.addPasskey(passkey, 5);
      await passkeys.addPasskey(other, 5);
      await expect(passkeys.removePasskey(mallory, passkey.id, T0 + 2)).resolves.toBe(false);
      await expect(passkeys.getPasskey(passkey.id)).resolves.toEqual(passkey);
      await expect(passkeys.removePasskey(alice, `cred-${randomUUID()}`, T0 + 2)).resolves.toBe(false);
      await expect(passkeys.removePasskey(alice, passkey.id, T0 + 3)).resolves.toBe(true);
      await expect(passkeys.removePasskey(alice, passkey.id, T0 + 4)).resolves.toBe(false);
      await expect(passkeys.getPasskey(passkey.id)).resolves.toEqual({ ...passkey, removedAt: T0 + 3 });
      await expect(passkeys.listPasskeys(alice)).resolves.toEqual([other]);
    },
  );

  itIfOffered(
    'usePasskey',
    'writes a use as a compare-and-set of the counter; refuses a stale counter and a removed passkey',
    async (store) => {
      const passkeys = of(store);
      const alice = userOf('alice');
      const passkey = passkeyOf(alice, { counter: 5 });
      await passkeys.addPasskey(passkey, 5);
      await expect(passkeys.usePasskey(passkey.id, 4, 6, T0 + 1)).resolves.toBe(false);
      await expect(passkeys.getPasskey(passkey.id)).resolves.toEqual(passkey);
      await expect(passkeys.usePasskey(passkey.id, 5, 6, T0 + 2)).resolves.toBe(true);
      await expect(passkeys.getPasskey(passkey.id)).resolves.toEqual({ ...passkey, counter: 6, lastUsedAt: T0 + 2 });
      await expect(passkeys.listPasskeys(alice)).resolves.toEqual([{ ...passkey, counter: 6, lastUsedAt: T0 + 2 }]);
      await expect(passkeys.usePasskey(passkey.id, 5, 7, T0 + 3)).resolves.toBe(false);
      await expect(passkeys.usePasskey(`cred-${randomUUID()}`, 0, 1, T0 + 3)).resolves.toBe(false);
      // An authenticator that keeps no counter: 0 over 0.
      const zero = passkeyOf(alice, { createdAt: T0 + 1 });
      await passkeys.addPasskey(zero, 5);
      await expect(passkeys.usePasskey(zero.id, 0, 0, T0 + 4)).resolves.toBe(true);
      await expect(passkeys.usePasskey(zero.id, 0, 0, T0 + 5)).resolves.toBe(true);
      await expect(passkeys.removePasskey(alice, passkey.id, T0 + 6)).resolves.toBe(true);
      await expect(passkeys.usePasskey(passkey.id, 6, 7, T0 + 7)).resolves.toBe(false);
      await expect(passkeys.getPasskey(passkey.id)).resolves.toEqual({ ...passkey, counter: 6, lastUsedAt: T0 + 2, removedAt: T0 + 6 });
    },
  );

  itIfOffered('usePasskey', 'lets one of ten uses at once over the same counter write it', async (store) => {
    const passkeys = of(store);
    const passkey = passkeyOf(userOf('alice'), { counter: 1 });
    await passkeys.addPasskey(passkey, 5);
    const used = await Promise.all(Array.from({ length: 10 }, (_, i) => passkeys.usePasskey(passkey.id, 1, 2 + i, T0 + i)));
    expect(used.filter(Boolean)).toHaveLength(1);
    const winner = used.indexOf(true);
    await expect(passkeys.getPasskey(passkey.id)).resolves.toEqual({ ...passkey, counter: 2 + winner, lastUsedAt: T0 + winner });
  });

  itIfOffered('addPasskey', 'adds one of ten passkeys of one id added at once, by as many users', async (store) => {
    const passkeys = of(store);
    const id = `cred-${randomUUID()}`;
    const tries = Array.from({ length: 10 }, (_, i) => passkeyOf(userOf(`racer${i}`), { id, publicKey: `pk-${i}` }));
    const results = await Promise.all(tries.map((passkey) => passkeys.addPasskey(passkey, 5)));
    expect(results.filter((r) => r === 'added')).toHaveLength(1);
    expect(results.filter((r) => r === 'exists')).toHaveLength(9);
    const winner = tries[results.indexOf('added')];
    await expect(passkeys.getPasskey(id)).resolves.toEqual(winner);
    const listed = await Promise.all(tries.map((passkey) => passkeys.listPasskeys(passkey.userId)));
    expect(listed.map((list) => list.length)).toEqual(tries.map((passkey) => (passkey === winner ? 1 : 0)));
  });

  itIfOffered('addPasskey', 'adds exactly maxPerUser of ten passkeys of one user added at once', async (store) => {
    const passkeys = of(store);
    const alice = userOf('alice');
    const tries = Array.from({ length: 10 }, (_, i) => passkeyOf(alice, { createdAt: T0 + i }));
    const results = await Promise.all(tries.map((passkey) => passkeys.addPasskey(passkey, 3)));
    expect(results.filter((r) => r === 'added')).toHaveLength(3);
    expect(results.filter((r) => r === 'limit')).toHaveLength(7);
    const added = tries.filter((_, i) => results[i] === 'added');
    await expect(passkeys.listPasskeys(alice)).resolves.toEqual(added);
    for (const [i, passkey] of tries.entries()) {
      await expect(passkeys.getPasskey(passkey.id)).resolves.toEqual(results[i] === 'added' ? passkey : undefined);
    }
  });
}
