import type { PostgresQueries } from './postgres.bounded.js';
import { ElicitationConfigError } from '../errors/elicitation-config.error.js';
import { ElicitationStoreUnavailableError } from '../errors/elicitation-store-unavailable.error.js';
import { qualified, type PostgresNames } from './postgres.names.js';

/*
 * The versions of the PostgreSQL store's schema (the `meta` row `schema_version`): the one this release writes and
 * requires, the files that ship them, how the schema's text brings an older schema forward and refuses a newer one,
 * and the start-up check.
 *
 *   1  the first: a record's two sealed texts in columns `v` and `j`.
 *   2  those columns named for what they hold, `event_part` and `sealed` (stores/sealed-record.codec.ts), and the
 *      `create` function's parameters with them.
 *   3  finished tasks indexed by when they finished, each user's and all (`tasks.maxFinishedPerUser`, `maxFinished`),
 *      and the `call_states` table (a 2025-11-25 call's steps for its continuation): new objects only (the schema's
 *      text makes them; no step of its own).
 *   4  the sweep forgets what is past its time once per sweep (in its last call) rather than in every batch, each
 *      lookup in index order: the `sweep` function made anew (no step of its own).
 *   5  the inbox's index of each user's open records, newest first (`records_open`), the notifications' outbox
 *      (`notices`, `notices_delivered`), and the `sweep` function made anew to forget notices past their time: new
 *      objects only (no step of its own).
 *   6  users' passkeys (`passkeys`, the `add_passkey` function) and the audit chains (`audit_links`): new objects only
 *      (no step of its own).
 */

/** The version `createSchema()` writes and the store requires. */
export const SCHEMA_VERSION = 6;

/**
 * The files of sql/postgres/, oldest first: the one at index i is the whole schema at version i + 1 for the default
 * names, and brings a schema at any earlier version forward; the newest is `schemaSql()` (test/postgres/postgres.schema.spec.ts).
 */
export const SCHEMA_FILES: readonly string[] = [
  'sql/postgres/0001_elicitation.sql',
  'sql/postgres/0002_named_columns.sql',
  'sql/postgres/0003_finished_tasks.sql',
  'sql/postgres/0004_sweep_once.sql',
  'sql/postgres/0005_notices.sql',
  'sql/postgres/0006_passkeys.sql',
];

/**
 * The statements of the schema's text that come right after its `meta` table: a schema at a version above
 * `SCHEMA_VERSION` (made by a newer release) is refused, and the whole transaction with it, so it is left as it is;
 * a schema at version 1 is brought forward (its columns renamed, the function whose parameters changed dropped, to be
 * made anew by the text that follows, as every other function is).
 */
export function versionStepsSql(names: PostgresNames): string {
  const t = (object: string) => qualified(names, object);
  return `-- A schema made by a newer release is never downgraded: refused, and left as it is.
DO $$
DECLARE found text;
BEGIN
  SELECT value INTO found FROM ${t('meta')} WHERE name = 'schema_version';
  IF found ~ '^[0-9]+$' AND found::integer > ${SCHEMA_VERSION} THEN
    RAISE EXCEPTION 'nestjs-mcp-elicitation: the schema of ${t('*')} is at version %, newer than version ${SCHEMA_VERSION}, which this release knows; it is left as it is', found;
  END IF;
END $$;

-- Version 1 to 2: a record's sealed texts in columns named for what they hold (they were v and j).
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM information_schema.columns
    WHERE table_schema = '${names.schema}' AND table_name = '${names.prefix}records' AND column_name = 'v') THEN
    ALTER TABLE ${t('records')} RENAME COLUMN v TO event_part;
    ALTER TABLE ${t('records')} RENAME COLUMN j TO sealed;
    DROP FUNCTION IF EXISTS ${t('create')}(text, text, text, text, text[], text, text, bigint, bigint, bigint, text, bigint, integer, integer, integer, text);
  END IF;
END $$;
`;
}

/** The schema's version as the database holds it, `undefined` when there is none (`42P01`: no such table). */
export async function readSchemaVersion(pool: PostgresQueries, names: PostgresNames): Promise<string | undefined> {
  try {
    const { rows } = await pool.query<{ value: string }>(`SELECT value FROM ${qualified(names, 'meta')} WHERE name = 'schema_version'`);
    return rows[0]?.value;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === '42P01') return undefined;
    const fix = code ? CONNECTION_FIXES[code] : undefined;
    if (fix)
      throw new ElicitationConfigError(
        'store',
        `PostgresElicitationStore cannot use ${where(names)}: ${(error as Error).message} (${code}); ${fix}`,
      );
    throw new ElicitationStoreUnavailableError('schema check', error);
  }
}

/**
 * Refusals at start-up that waiting will not mend (the store is reachable, the settings are wrong): what to do, by
 * SQLSTATE. Their messages name the database or the role, never a password.
 */
const CONNECTION_FIXES: Readonly<Record<string, string>> = {
  '3D000': 'create that database, or point the connection string at one that exists',
  '28000': 'create that role, or point the connection string at one that exists',
  '28P01': 'the password for that role is wrong: check the connection string',
  '42501': 'grant the role the rights the store needs on its schema (see docs/stores.md, PostgreSQL)',
};

/** Whether `version` is a version above `SCHEMA_VERSION`: made by a newer release, never to be downgraded. */
export function isNewerSchema(version: string | undefined): version is string {
  return version !== undefined && /^[0-9]+$/.test(version) && Number(version) > SCHEMA_VERSION;
}

/**
 * Reads the schema's version: resolves at `SCHEMA_VERSION`; else a config error naming the fix (missing or older), or
 * refusing a newer one.
 */
export async function checkSchemaVersion(pool: PostgresQueries, names: PostgresNames): Promise<void> {
  const version = await readSchemaVersion(pool, names);
  if (version === String(SCHEMA_VERSION)) return;
  throw isNewerSchema(version) ? newerSchemaError(names, version) : schemaError(names, version);
}

/** SQLSTATEs of a statement that met no schema: no such table (`42P01`), no such function (`42883`). */
export const MISSING_SCHEMA_STATES: ReadonlySet<string> = new Set(['42P01', '42883']);

/** Where the schema lives, as the errors say it. */
function where(names: PostgresNames): string {
  return `${names.schema} (tables ${names.prefix}*)`;
}

/** The store's schema is missing (`version` undefined) or older: a config error that names the fix. */
export function schemaError(names: PostgresNames, version?: string): ElicitationConfigError {
  const known = version !== undefined && /^[1-9][0-9]*$/.test(version) ? Number(version) : 0;
  const files = SCHEMA_FILES.slice(Math.min(known, SCHEMA_VERSION - 1));
  const run = files.length === 1 ? files[0] : `${files.join(', ')} in order`;
  return new ElicitationConfigError(
    'store',
    `PostgresElicitationStore needs schema version ${SCHEMA_VERSION} in ${where(names)}, ` +
      `found ${version === undefined ? 'none' : `version ${version}`}: run ${run} with your ` +
      `migration tool, or await store.createSchema() before the app starts`,
  );
}

/** The store's schema is at a version above `SCHEMA_VERSION`: refused, never downgraded. */
export function newerSchemaError(names: PostgresNames, version: string): ElicitationConfigError {
  return new ElicitationConfigError(
    'store',
    `PostgresElicitationStore knows schema version ${SCHEMA_VERSION}, found version ${version} in ${where(names)}: a newer ` +
      'release of nestjs-mcp-elicitation made it, and a schema is never downgraded, so it is left as it is; run that release or a later one',
  );
}
