import { ElicitationConfigError } from '../errors/elicitation-config.error.js';
import type { ElicitationStoreKeys } from './elicitation-store.js';

/**
 * The keys a shared store was handed (`ElicitationStore.useKeys`), for the Redis and PostgreSQL stores alike: one key
 * ring per store, since a store names and seals its data with it. `derive` makes, once, what the store reads of the
 * keys on every operation (the Redis store's names); `require` hands both over.
 */
export class StoreKeyHolder<Derived extends object> {
  private held: (Derived & { keys: ElicitationStoreKeys }) | undefined;
  /** The identity of the ring taken (`names('ring')`): the same for the same keys. */
  private ring: string | undefined;

  /** `store`: the class name the errors give (`RedisElicitationStore`, …). */
  constructor(
    private readonly store: string,
    private readonly derive: (keys: ElicitationStoreKeys) => Derived,
  ) {}

  /** Takes the module's keys; a config error when the store already has keys of another ring. */
  use(keys: ElicitationStoreKeys): void {
    const ring = keys.names('ring').join(',');
    if (this.ring !== undefined && this.ring !== ring) {
      throw new ElicitationConfigError(
        'store',
        `is already used with another encryptionKey: a ${this.store} names and seals its data with one key ring, so give each module its own store or the same encryptionKey`,
      );
    }
    this.held ??= { ...this.derive(keys), keys };
    this.ring = ring;
  }

  /** Whether `use` took keys. */
  has(): boolean {
    return this.held !== undefined;
  }

  /** The keys `use` took, with what was derived from them, or a config error naming what is missing. */
  require(): Derived & { keys: ElicitationStoreKeys } {
    if (this.held) return this.held;
    throw new ElicitationConfigError(
      'store',
      `has no keys yet: a ${this.store} names and seals its data with keys derived from encryptionKey, which ElicitationModule hands it when it starts (pass the store as its store option; outside the module, call useKeys)`,
    );
  }
}
