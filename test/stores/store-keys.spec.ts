/**
 * The checks every shared store makes of the key rings it meets, written once: the keys a store is handed
 * (`StoreKeyHolder`, stores/store-keys.ts: one ring per store, and none is no keys) and a ring a store is asked to
 * record (`checkAnnouncedKeyRing`, security/key-ring-check.ts). The Redis and PostgreSQL stores both use them; on a
 * real server: test/redis/redis.personal-data.spec.ts and the store contract's key-ring group.
 */
import { describe, expect, it } from '@jest/globals';
import { ElicitationConfigError } from '../../src/errors/elicitation-config.error.js';
import { checkAnnouncedKeyRing } from '../../src/security/key-ring-check.js';
import { StoreKeyRing } from '../../src/security/store-key-ring.js';
import { StoreKeyHolder } from '../../src/stores/store-keys.js';
import { TEST_STORE_KEYS } from '../support/store-keys.js';

describe('StoreKeyHolder', () => {
  it('has no keys until it takes some, and says so naming the store', () => {
    const holder = new StoreKeyHolder('PostgresElicitationStore', () => ({}));
    expect(holder.has()).toBe(false);
    expect(() => holder.require()).toThrow(ElicitationConfigError);
    expect(() => holder.require()).toThrow(
      /"store" has no keys yet: a PostgresElicitationStore names and seals its data with keys derived from encryptionKey.*call useKeys/,
    );
  });

  it('takes the keys of one ring (again too), derives what the store reads once, and refuses another ring', () => {
    let derived = 0;
    const holder = new StoreKeyHolder('RedisElicitationStore', (keys) => ({ user: keys.names('user', 'alice')[0], n: ++derived }));
    holder.use(TEST_STORE_KEYS);
    holder.use(new StoreKeyRing([Buffer.alloc(32, 7)])); // the same ring, from another module
    expect(holder.has()).toBe(true);
    expect(holder.require()).toEqual({ keys: TEST_STORE_KEYS, user: TEST_STORE_KEYS.names('user', 'alice')[0], n: 1 });
    expect(() => holder.use(new StoreKeyRing([Buffer.alloc(32, 9)]))).toThrow(
      /"store" is already used with another encryptionKey: a RedisElicitationStore names and seals its data with one key ring/,
    );
    expect(holder.require().keys).toBe(TEST_STORE_KEYS);
  });
});

describe('checkAnnouncedKeyRing', () => {
  it('takes an instance id of letters, digits and "-" with key ids of 8 hex characters, and refuses anything else', () => {
    expect(() => checkAnnouncedKeyRing({ instanceId: 'a1b2-c3', keyIds: ['0123abcd', 'ffffffff'] })).not.toThrow();
    const refused = [
      { instanceId: 'a:b', keyIds: ['0123abcd'] },
      { instanceId: 'a,b', keyIds: ['0123abcd'] },
      { instanceId: '', keyIds: ['0123abcd'] },
      { instanceId: 'x'.repeat(65), keyIds: ['0123abcd'] },
      { instanceId: 'a', keyIds: [] },
      { instanceId: 'a', keyIds: ['0123ABCD'] },
      { instanceId: 'a', keyIds: ['0123abc'] },
      { instanceId: 'a', keyIds: ['0123abcd,'] },
    ];
    for (const entry of refused) {
      expect(() => checkAnnouncedKeyRing(entry)).toThrow(
        new TypeError('announceKeyRing takes an instanceId of letters, digits and "-" and at least one key id of 8 hex characters'),
      );
    }
  });
});
