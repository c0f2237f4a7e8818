import { StoreKeyRing } from '../../src/security/store-key-ring.js';
import type { ElicitationStore } from '../../src/stores/elicitation-store.js';

/** The `encryptionKey` of stores built outside a module in tests. */
export const TEST_ENCRYPTION_KEY = Buffer.alloc(32, 7);

/** The keys a module with `TEST_ENCRYPTION_KEY` hands its store. */
export const TEST_STORE_KEYS = new StoreKeyRing([TEST_ENCRYPTION_KEY]);

/**
 * `store` after `useKeys`, as ElicitationModule does when it starts (a RedisElicitationStore refuses to work
 * without keys): the keys of `encryptionKeys`, by default `TEST_ENCRYPTION_KEY`.
 */
export function keyed<S extends ElicitationStore>(store: S, encryptionKeys: Buffer[] = [TEST_ENCRYPTION_KEY]): S {
  store.useKeys?.(
    encryptionKeys.length === 1 && encryptionKeys[0] === TEST_ENCRYPTION_KEY ? TEST_STORE_KEYS : new StoreKeyRing(encryptionKeys),
  );
  return store;
}
