import { KEY_ID_SHAPE } from './key-ids.js';

/**
 * How this instance's `encryptionKey` ring compares with the rings the other live instances on a shared store
 * announced (`ElicitationStore.announceKeyRing`). Key ids only (`keyIdOf`: fingerprints, never keys).
 *
 * Each instance seals under the first key of its ring and opens under any. So against another ring:
 * - no key in common: neither can open anything of the other's (answers, records, `requestState`s, CSRF tokens):
 *   a new instance refuses to start;
 * - the other's first key missing here: this instance cannot open what the other seals now (it holds only an
 *   older key of theirs): a warning;
 * - this instance's first key missing there: the other cannot open what this one seals (a rotation done in one
 *   deploy instead of two): a warning.
 * The README's rotation in two deploys (`[old]` → `[old, new]` everywhere → `[new, old]`) never meets any of
 * these: every ring of one step holds the first key of every ring of the step before and after it.
 */

/** An announced ring (structurally a `KeyRingEntry`). */
export interface AnnouncedKeyRing {
  instanceId: string;
  keyIds: readonly string[];
}

/** An instance id in an announced ring: letters, digits and `-` (no `:` or `,`, which a store may separate parts with). */
const INSTANCE_ID = /^[A-Za-z0-9-]{1,64}$/;

/**
 * Refuses a ring a store is asked to record (`ElicitationStore.announceKeyRing`) unless its instance id and key ids
 * have their shapes (so that they read back from any store's encoding of them): a `TypeError`. Key ids only, never
 * keys.
 */
export function checkAnnouncedKeyRing(entry: AnnouncedKeyRing): void {
  if (!INSTANCE_ID.test(entry.instanceId) || entry.keyIds.length === 0 || !entry.keyIds.every((id) => KEY_ID_SHAPE.test(id))) {
    throw new TypeError('announceKeyRing takes an instanceId of letters, digits and "-" and at least one key id of 8 hex characters');
  }
}

/** The live instances with one ring, found to disagree with this one. */
export interface KeyRingGroup {
  /** Their ring's key ids, the first (sealing) key's first. */
  keyIds: readonly string[];
  /** How many live instances announced it. */
  instances: number;
}

/** What comparing rings found; all empty when every live ring agrees with this one. */
export interface KeyRingComparison {
  /** Rings sharing no key with this one. */
  disjoint: KeyRingGroup[];
  /** Rings whose sealing key this one lacks (it cannot open what they seal). */
  theirSealingKeyMissing: KeyRingGroup[];
  /** Rings lacking this one's sealing key (they cannot open what it seals). */
  mySealingKeyMissing: KeyRingGroup[];
}

/** Compares `mine` (this instance's key ids, first first) with the rings of the other live instances. */
export function compareKeyRings(mine: readonly string[], others: readonly AnnouncedKeyRing[]): KeyRingComparison {
  const groups = new Map<string, KeyRingGroup>();
  for (const other of others) {
    if (other.keyIds.length === 0) continue;
    const signature = other.keyIds.join(',');
    const group = groups.get(signature);
    if (group) group.instances++;
    else groups.set(signature, { keyIds: [...other.keyIds], instances: 1 });
  }
  const comparison: KeyRingComparison = { disjoint: [], theirSealingKeyMissing: [], mySealingKeyMissing: [] };
  for (const group of groups.values()) {
    if (!group.keyIds.some((id) => mine.includes(id))) {
      comparison.disjoint.push(group);
      continue;
    }
    if (!mine.includes(group.keyIds[0])) comparison.theirSealingKeyMissing.push(group);
    if (!group.keyIds.includes(mine[0])) comparison.mySealingKeyMissing.push(group);
  }
  return comparison;
}

/** `[a1b2c3d4, e5f6a7b8]`. */
function ring(keyIds: readonly string[]): string {
  return `[${keyIds.join(', ')}]`;
}

/** "1 live instance", "3 live instances". */
function instances(count: number): string {
  return `${count} live instance${count === 1 ? '' : 's'}`;
}

/** Each group as "2 live instances with [ids]". */
function groups(list: readonly KeyRingGroup[]): string {
  return list.map((g) => `${instances(g.instances)} with ${ring(g.keyIds)}`).join('; ');
}

/**
 * Why a new instance refuses to start, in the words of `ElicitationConfigError('encryptionKey', ...)` (it follows
 * `ElicitationModule option "encryptionKey" `). Names key ids, never keys.
 */
export function refusalText(mine: readonly string[], disjoint: readonly KeyRingGroup[], ttlSeconds: number): string {
  return (
    `shares no key with the other instances on this store: this instance's key ids are ${ring(mine)}, and ${groups(disjoint)} ` +
    'hold none of them, so neither could open the answers, records, requestStates and CSRF tokens the other seals. ' +
    'Give every instance the same encryptionKey; to change it, rotate in two deploys (README "Rotating encryptionKey"). ' +
    `Key ids are fingerprints derived from the keys, never the keys; an instance that stopped without shutting down is forgotten ${ttlSeconds} s after it last announced its ring`
  );
}

/** The warnings about rings that share a key with this one but not the sealing keys. Names key ids, never keys. */
export function warningTexts(mine: readonly string[], comparison: KeyRingComparison): string[] {
  const texts: string[] = [];
  if (comparison.theirSealingKeyMissing.length > 0) {
    texts.push(
      `encryptionKey holds only an older key of other instances: ${groups(comparison.theirSealingKeyMissing)} seal under a key ` +
        `this instance's ring ${ring(mine)} lacks, so it cannot open the answers, records and requestStates they seal. ` +
        'Give it their encryptionKey ring.',
    );
  }
  if (comparison.mySealingKeyMissing.length > 0) {
    texts.push(
      `encryptionKey: this instance seals under key id ${mine[0]}, which ${groups(comparison.mySealingKeyMissing)} lack, so they ` +
        'cannot open what it seals. Rotate in two deploys (README "Rotating encryptionKey"): add the new key last on every instance, then move it first.',
    );
  }
  return texts;
}
