import { ElicitationConfigError } from '../errors/elicitation-config.error.js';
import type { ElicitationStoreKeys, KeyRingEntry } from '../stores/elicitation-store.js';
import { redisNames, type RedisNames } from './redis.key-space.js';

/** An instance id in a key-ring entry (`announceKeyRing`): no `:` or `,`, which separate the member's parts. */
const INSTANCE_ID = /^[A-Za-z0-9-]{1,64}$/;
/** A key id (`keyIdOf`). */
const KEY_ID = /^[0-9a-f]{8}$/;

/** Refuses an entry whose parts would not read back from its member of `{prefix}:v2:k`. Key ids only, never keys. */
export function checkKeyRingEntry(entry: KeyRingEntry): void {
  if (!INSTANCE_ID.test(entry.instanceId) || entry.keyIds.length === 0 || !entry.keyIds.every((id) => KEY_ID.test(id))) {
    throw new TypeError('announceKeyRing takes an instanceId of letters, digits and "-" and at least one key id of 8 hex characters');
  }
}

/** An entry as the KEY_RINGS script stores it: `<instanceId>:<keyId>,<keyId>...`. */
export function keyRingEntryOf(member: string): KeyRingEntry {
  const at = member.indexOf(':');
  return { instanceId: member.slice(0, at), keyIds: member.slice(at + 1).split(',') };
}

/** The keys a store was handed (`useKeys`) and the names they give: one key ring per store. */
export class RedisStoreKeys {
  private keyed: { keys: ElicitationStoreKeys; names: RedisNames } | undefined;

  /** Takes the module's keys; a config error when the store already has other keys. */
  use(keys: ElicitationStoreKeys): void {
    const names = redisNames(keys);
    if (this.keyed && this.keyed.names.ring !== names.ring) {
      throw new ElicitationConfigError(
        'store',
        'is already used with another encryptionKey: a RedisElicitationStore names and seals its data with one key ring, so give each module its own store or the same encryptionKey',
      );
    }
    this.keyed ??= { keys, names };
  }

  /** Whether `use` took keys. */
  has(): boolean {
    return this.keyed !== undefined;
  }

  /** The keys `use` took, or a config error naming what is missing. */
  require(): { keys: ElicitationStoreKeys; names: RedisNames } {
    if (this.keyed) return this.keyed;
    throw new ElicitationConfigError(
      'store',
      'has no keys yet: a RedisElicitationStore names and seals its data with keys derived from encryptionKey, which ElicitationModule hands it when it starts (pass the store as its store option; outside the module, call useKeys)',
    );
  }
}
