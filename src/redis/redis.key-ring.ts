import type { KeyRingEntry } from '../stores/elicitation-store.js';
import { StoreKeyHolder } from '../stores/store-keys.js';
import { redisNames, type RedisNames } from './redis.key-space.js';

/** An entry as the KEY_RINGS script stores it: `<instanceId>:<keyId>,<keyId>...`. */
export function keyRingEntryOf(member: string): KeyRingEntry {
  const at = member.indexOf(':');
  return { instanceId: member.slice(0, at), keyIds: member.slice(at + 1).split(',') };
}

/** The keys a Redis store was handed (`useKeys`), with the names they give (`RedisNames`). */
export type RedisStoreKeys = StoreKeyHolder<{ names: RedisNames }>;

/** A Redis store's key holder: the names derived once, when it takes its keys. */
export function redisStoreKeys(): RedisStoreKeys {
  return new StoreKeyHolder('RedisElicitationStore', (keys) => ({ names: redisNames(keys) }));
}
