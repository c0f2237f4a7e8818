import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { ElicitationKeyError } from '../errors/elicitation-key.error.js';
import type { RedisClient } from './redis.client.js';
import type { RedisKeySpace, RedisNames } from './redis.key-space.js';
import { askedPartsOf, type RecordSealing } from '../stores/sealed-record.codec.js';
import type { Scripts } from './redis.scripts.js';

/** Records one step reads (ZSCAN's COUNT, a hint: Redis may hand a few more or fewer). */
export const ASKED_UPGRADE_BATCH = 500;
/** How long the lease of the instance that files lasts without a step renewing it: another may take over after it. */
export const ASKED_UPGRADE_LEASE_MS = 30_000;
/**
 * How long the marker says `done`: a year, so that no start scans again (every key of the store has a TTL; the start
 * after it scans once more, and finds nothing to file but what instances of a version before the index wrote since).
 */
export const ASKED_UPGRADE_DONE_MS = 365 * 24 * 3_600_000;

/** What the upgrade needs of the store. */
export interface AskedUpgradeDeps {
  /** The store's connection: it marks the upgrade done. */
  readonly redis: RedisClient;
  readonly scripts: Pick<Scripts, 'elicitAskedStart' | 'elicitAskedScan' | 'elicitAskedFile'>;
  /** The key space of the store's prefix: the records are those in its `deadlines`. */
  readonly keys: RedisKeySpace;
  /** Opens the records' `j` fields. */
  readonly sealing: RecordSealing;
  /** Names the asked indexes (under the first key of the ring, as `create` does). */
  readonly names: RedisNames;
  /** True once the store is closing: the upgrade stops after the step under way (the next start takes it up). */
  readonly stopped: () => boolean;
}

/** What one run of the upgrade did. */
export interface AskedUpgradeRun {
  /** Records it filed in the asked index. */
  filed: number;
  /** Records it could not open (sealed under a key this instance's ring lacks): not filed. */
  unopened: number;
  /** Whether it went over every record and marked the upgrade done. */
  done: boolean;
}

/**
 * Files the records written before the asked index existed (an earlier version of this layout: the record's askKey
 * sealed in `j`, but no `a` field and no entry in `{prefix}:v2:a:<name>`) in the index, as `create` files new ones,
 * so that `findByAskKey` finds them too. Once per key prefix: the instance whose start takes the marker
 * (`askedUpgrade`, ASKED_START: no marker yet, and the prefix holds records) walks every record in batches (one
 * ZSCAN step over the deadlines, where every record is until it is purged, then one script that files the batch's
 * records and renews the lease: two round trips per ASKED_UPGRADE_BATCH records), then sets the marker to `done`
 * for ASKED_UPGRADE_DONE_MS. Every later start of any instance costs that one script call, and so does a start on
 * a prefix without records, which writes no key (the first start once records are there walks them once, filing
 * nothing new). Filing is idempotent (a record with an `a` field is left as it is), so a run taken over after its
 * lease ran out, or run twice, files nothing twice. Resolves `undefined` when it did not run (done already, another
 * instance holds the lease, or no record); rejects when Redis fails (the lease then runs out, and the next start
 * runs it).
 */
export async function upgradeAskedIndex(deps: AskedUpgradeDeps): Promise<AskedUpgradeRun | undefined> {
  const { keys } = deps;
  const token = randomUUID();
  if ((await deps.scripts.elicitAskedStart(keys.askedUpgrade, keys.deadlines, token, ASKED_UPGRADE_LEASE_MS)) !== 1) return undefined;
  const run: AskedUpgradeRun = { filed: 0, unopened: 0, done: false };
  let cursor = '0';
  do {
    if (deps.stopped()) return run;
    const [next, found] = await deps.scripts.elicitAskedScan(keys.deadlines, cursor, ASKED_UPGRADE_BATCH, keys.base);
    cursor = next;
    const filed = await deps.scripts.elicitAskedFile(
      keys.askedUpgrade,
      token,
      ASKED_UPGRADE_LEASE_MS,
      keys.base,
      ...filings(found, deps, run),
    );
    // The lease ran out and another instance took the marker (or finished): it goes over every record itself.
    if (filed < 0) return run;
    run.filed += filed;
  } while (cursor !== '0');
  await deps.redis.set(keys.askedUpgrade, 'done', 'PX', ASKED_UPGRADE_DONE_MS);
  run.done = true;
  return run;
}

/**
 * Runs the upgrade when the store starts (`RedisElicitationStore.onModuleInit`, in the background) and says what it
 * did in the store's log; a failure is logged, never thrown (the next instance that starts after the lease does it).
 */
export async function runAskedUpgrade(deps: AskedUpgradeDeps): Promise<void> {
  const logger = new Logger('RedisElicitationStore');
  try {
    const run = await upgradeAskedIndex(deps);
    if (run?.filed) logger.log(`Filed ${run.filed} record(s) written before the askKey index in it (once for ${deps.keys.base}).`);
    if (run?.unopened) {
      logger.warn(`${run.unopened} record(s) written before the askKey index are sealed under keys this instance lacks: not filed in it.`);
    }
  } catch (error) {
    logger.warn(
      `Could not file the records written before the askKey index (${error instanceof Error ? error.message : String(error)}): ` +
        `an instance that starts after ${ASKED_UPGRADE_LEASE_MS / 1000} s does it.`,
    );
  }
}

/** The FILE script's arguments for the records of one step that have an askKey: id, asked name, createdAt. */
function filings(found: string[], deps: AskedUpgradeDeps, run: AskedUpgradeRun): Array<string | number> {
  const args: Array<string | number> = [];
  for (let i = 0; i < found.length; i += 2) {
    const id = found[i];
    try {
      const { userId, askKey, createdAt } = askedPartsOf(id, found[i + 1], deps.sealing);
      if (askKey !== undefined) args.push(id, deps.names.asked(userId, askKey)[0], createdAt);
    } catch (error) {
      if (!(error instanceof ElicitationKeyError)) throw error;
      run.unopened++;
    }
  }
  return args;
}
