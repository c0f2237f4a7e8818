/**
 * The PostgreSQL store's tables and functions, as one SQL text (`schemaSql`): what `createSchema()` runs, and what
 * the newest file of sql/postgres/ ships for apps that run migrations with their own tool (the file is this text for
 * the default names; test/postgres/postgres.schema.spec.ts checks they agree). It brings a schema of an earlier
 * version forward and refuses a newer one (postgres.schema-version.ts). Every name is under one schema and one table
 * prefix (`PostgresNames`).
 *
 * What is in clear: ids, statuses, times, counts, and keyed hashes (HMAC, `ElicitationStoreKeys.names`) of user ids,
 * types, askKeys and counter keys. A record's user, type, message and metadata are sealed (`event_part`, `sealed`:
 * stores/sealed-record.codec.ts), as in Redis; an answer is sealed by the service before it reaches the store; a
 * task's user and body are sealed together; a notice's body is sealed (its id, elicitation id, times, attempts, owner
 * and last error are in clear); a passkey's user, public key, name and transports are sealed together (its id, counter
 * and times in clear); audit lines are in clear, under their stream's name (the module's, never a user's).
 *
 * Each store operation is one statement: a function here for each move (a transition and its event in one
 * transaction), a plain `SELECT` for each read, one statement each for the outbox's steps (postgres.notices.ts).
 * Events are rows of `events`, announced by `NOTIFY` with their id and the start of their message, which names the
 * sending channel (never anything sealed).
 */

import type pg from 'pg';
import { channelOf, DEFAULT_POSTGRES_NAMES, qualified, type PostgresNames } from './postgres.names.js';
import { OPEN_TASK_STATUSES } from '../stores/task-store.js';
import { EVENT_ORIGIN_CHARS } from '../stores/event-wire.js';
import { decisionsSchemaSql } from './postgres.schema.decisions.js';
import { isNewerSchema, newerSchemaError, readSchemaVersion, SCHEMA_VERSION, versionStepsSql } from './postgres.schema-version.js';

/**
 * The whole schema, idempotent (`IF NOT EXISTS`, `CREATE OR REPLACE`), ending with the version row; a schema of an
 * earlier version is brought forward, one of a later version refused and left as it is (`versionStepsSql`).
 */
export function schemaSql(names: PostgresNames = DEFAULT_POSTGRES_NAMES): string {
  const t = (object: string) => qualified(names, object);
  const lock = `hashtext('${t('create')}')`;
  // The statuses of an open task: the one definition (stores/task-store.ts).
  const openTasks = OPEN_TASK_STATUSES.map((status) => `'${status}'`).join(', ');
  return `-- nestjs-mcp-elicitation: the PostgreSQL store's schema, version ${SCHEMA_VERSION}
-- One text, one transaction: instances that start together create it one after the other. A schema of an earlier
-- version is brought forward; one of a later version (a newer release's) is refused, and nothing is changed.
SELECT pg_advisory_xact_lock(hashtext('${t('schema')}'));
CREATE SCHEMA IF NOT EXISTS ${names.schema};

CREATE TABLE IF NOT EXISTS ${t('meta')} (name text PRIMARY KEY, value text NOT NULL);

${versionStepsSql(names)}
-- One row per elicitation: its part of its events and the sealed record, written at creation; the rest changes with
-- the record's life.
CREATE TABLE IF NOT EXISTS ${t('records')} (
  id text PRIMARY KEY,
  event_part text NOT NULL,
  sealed text NOT NULL,
  user_name text NOT NULL,
  type_name text NOT NULL,
  ask_name text,
  status text NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  purge_at bigint NOT NULL,
  finished_at bigint,
  data text,
  consumed_at bigint,
  extended_at bigint,
  extended_from bigint
);
CREATE INDEX IF NOT EXISTS ${names.prefix}records_user ON ${t('records')} (user_name, created_at);
CREATE INDEX IF NOT EXISTS ${names.prefix}records_due ON ${t('records')} (expires_at) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS ${names.prefix}records_purge ON ${t('records')} (purge_at);
CREATE INDEX IF NOT EXISTS ${names.prefix}records_completed ON ${t('records')} (type_name, finished_at)
  WHERE status = 'completed' AND consumed_at IS NULL;
CREATE INDEX IF NOT EXISTS ${names.prefix}records_asked ON ${t('records')} (ask_name, created_at) WHERE ask_name IS NOT NULL;

-- Fixed-window counters (aligned windows: reset_at is the window's end).
CREATE TABLE IF NOT EXISTS ${t('counters')} (name text PRIMARY KEY, reset_at bigint NOT NULL, count integer NOT NULL);
CREATE INDEX IF NOT EXISTS ${names.prefix}counters_reset ON ${t('counters')} (reset_at);

-- Lifecycle events between instances: appended with the move, announced by NOTIFY (the id only).
CREATE TABLE IF NOT EXISTS ${t('events')} (id bigserial PRIMARY KEY, at bigint NOT NULL, message text NOT NULL);
CREATE INDEX IF NOT EXISTS ${names.prefix}events_at ON ${t('events')} (at);

-- The key rings of the live instances (key ids only).
CREATE TABLE IF NOT EXISTS ${t('key_rings')} (instance_id text PRIMARY KEY, key_ids text NOT NULL, until bigint NOT NULL);

-- MCP tasks: user and body sealed together; user_name for the per-user cap.
CREATE TABLE IF NOT EXISTS ${t('tasks')} (
  id text PRIMARY KEY,
  user_name text NOT NULL,
  status text NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  version integer NOT NULL,
  lease_owner text,
  lease_until bigint,
  sealed text NOT NULL
);
CREATE INDEX IF NOT EXISTS ${names.prefix}tasks_open ON ${t('tasks')} (user_name) WHERE status IN (${openTasks});
CREATE INDEX IF NOT EXISTS ${names.prefix}tasks_expiry ON ${t('tasks')} (expires_at);
-- What a 2025-11-25 call that ended before its tool ran leaves for its continuation (its steps' results, sealed).
CREATE TABLE IF NOT EXISTS ${t('call_states')} (key text PRIMARY KEY, value text NOT NULL, expires_at bigint NOT NULL);

-- Finished tasks by when they finished, each user's and all: the oldest past tasks.maxFinishedPerUser or maxFinished go.
CREATE INDEX IF NOT EXISTS ${names.prefix}tasks_finished_user ON ${t('tasks')} (user_name, updated_at) WHERE status NOT IN (${openTasks});
CREATE INDEX IF NOT EXISTS ${names.prefix}tasks_finished ON ${t('tasks')} (updated_at) WHERE status NOT IN (${openTasks});

-- Each user's open records, newest first (the inbox's pages, listOpen); ids in byte order, whatever the collation.
CREATE INDEX IF NOT EXISTS ${names.prefix}records_open ON ${t('records')} (user_name, created_at DESC, id COLLATE "C" DESC)
  WHERE status = 'pending';

-- The notifications' outbox: a row per notice (record_id, the elicitation it is about) until it is delivered or dropped
-- (a failed one until its forget_at), its body sealed. A claim is a lease: its owner, and due_at moved to the lease's end.
CREATE TABLE IF NOT EXISTS ${t('notices')} (
  id text PRIMARY KEY,
  record_id text NOT NULL,
  state text NOT NULL,
  due_at bigint NOT NULL,
  forget_at bigint NOT NULL,
  attempts integer NOT NULL,
  owner text,
  last_error text,
  body text NOT NULL
);
CREATE INDEX IF NOT EXISTS ${names.prefix}notices_due ON ${t('notices')} (due_at) WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS ${names.prefix}notices_forget ON ${t('notices')} (forget_at);
-- How many notices were delivered: one row, counted in the statement that forgets the notice.
CREATE TABLE IF NOT EXISTS ${t('notices_delivered')} (one boolean PRIMARY KEY DEFAULT true CHECK (one), count bigint NOT NULL);
INSERT INTO ${t('notices_delivered')} (one, count) VALUES (true, 0) ON CONFLICT (one) DO NOTHING;

-- An event row and its announcement, in the caller's transaction (NOTIFY is sent at commit): its id, and the start of
-- its message, which names the sending channel in clear (so that the sender need not read its own rows).
CREATE OR REPLACE FUNCTION ${t('emit')}(p_at bigint, p_message text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE event_id bigint;
BEGIN
  INSERT INTO ${t('events')} (at, message) VALUES (p_at, p_message) RETURNING id INTO event_id;
  PERFORM pg_notify('${channelOf(names)}', event_id::text || ' ' || left(p_message, ${EVENT_ORIGIN_CHARS}));
END $$;

CREATE OR REPLACE FUNCTION ${t('hit')}(p_name text, p_reset_at bigint) RETURNS integer LANGUAGE sql AS $$
  INSERT INTO ${t('counters')} AS c (name, reset_at, count) VALUES (p_name, p_reset_at, 1)
  ON CONFLICT (name) DO UPDATE SET count = CASE WHEN c.reset_at = EXCLUDED.reset_at THEN c.count + 1 ELSE 1 END,
    reset_at = EXCLUDED.reset_at
  RETURNING count
$$;

-- A new pending record, unless a limit refuses it: creations with a quota take one lock, so the counts hold across instances.
CREATE OR REPLACE FUNCTION ${t('create')}(
  p_id text, p_event_part text, p_sealed text, p_user text, p_users text[], p_type text, p_ask text,
  p_created bigint, p_expires bigint, p_purge bigint,
  p_rate text, p_rate_reset bigint, p_rate_limit integer, p_max_user integer, p_max_all integer, p_event text
) RETURNS text LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  IF p_rate IS NOT NULL THEN
    PERFORM pg_advisory_xact_lock(${lock});
    IF ${t('hit')}(p_rate, p_rate_reset) > p_rate_limit THEN RETURN 'rate-limited'; END IF;
    SELECT count(*) INTO n FROM ${t('records')} WHERE user_name = ANY(p_users) AND status = 'pending';
    IF n >= p_max_user THEN RETURN 'user-pending-limit'; END IF;
    SELECT count(*) INTO n FROM ${t('records')} WHERE status = 'pending';
    IF n >= p_max_all THEN RETURN 'pending-limit'; END IF;
  END IF;
  INSERT INTO ${t('records')} (id, event_part, sealed, user_name, type_name, ask_name, status, created_at, expires_at, purge_at)
    VALUES (p_id, p_event_part, p_sealed, p_user, p_type, p_ask, 'pending', p_created, p_expires, p_purge);
  IF p_event IS NOT NULL THEN PERFORM ${t('emit')}(p_created, p_event); END IF;
  RETURN 'created';
END $$;

-- Out of pending, once: the row as it is after the call, and whether this call moved it.
CREATE OR REPLACE FUNCTION ${t('finish')}(
  p_id text, p_status text, p_data text, p_now bigint, p_purge bigint, p_event_start text, p_event_end text
) RETURNS TABLE (moved boolean, row_json text) LANGUAGE plpgsql AS $$
DECLARE r ${t('records')};
BEGIN
  SELECT * INTO r FROM ${t('records')} WHERE id = p_id AND purge_at > p_now FOR UPDATE;
  IF NOT FOUND THEN RETURN; END IF;
  IF r.status <> 'pending' OR (p_status <> 'expired' AND r.expires_at <= p_now) THEN
    RETURN QUERY SELECT false, row_to_json(r)::text;
    RETURN;
  END IF;
  UPDATE ${t('records')} SET status = p_status, data = p_data, finished_at = p_now, purge_at = p_purge
    WHERE id = p_id RETURNING * INTO r;
  IF p_event_start IS NOT NULL THEN PERFORM ${t('emit')}(p_now, p_event_start || r.event_part || p_event_end); END IF;
  RETURN QUERY SELECT true, row_to_json(r)::text;
END $$;

-- More time, once, for a pending record before its expiry.
CREATE OR REPLACE FUNCTION ${t('extend')}(
  p_id text, p_expires bigint, p_purge bigint, p_now bigint, p_event_start text, p_event_end text
) RETURNS TABLE (moved boolean, row_json text) LANGUAGE plpgsql AS $$
DECLARE r ${t('records')};
BEGIN
  SELECT * INTO r FROM ${t('records')} WHERE id = p_id AND purge_at > p_now FOR UPDATE;
  IF NOT FOUND THEN RETURN; END IF;
  IF r.status <> 'pending' OR r.expires_at <= p_now OR r.extended_at IS NOT NULL THEN
    RETURN QUERY SELECT false, row_to_json(r)::text;
    RETURN;
  END IF;
  UPDATE ${t('records')} SET expires_at = p_expires, purge_at = p_purge, extended_at = p_now, extended_from = r.expires_at
    WHERE id = p_id RETURNING * INTO r;
  IF p_event_start IS NOT NULL THEN PERFORM ${t('emit')}(p_now, p_event_start || r.event_part || p_event_end); END IF;
  RETURN QUERY SELECT true, row_to_json(r)::text;
END $$;

-- Read-once delivery: a completed record's data, taken.
CREATE OR REPLACE FUNCTION ${t('consume')}(p_id text, p_now bigint) RETURNS text LANGUAGE sql AS $$
  WITH taken AS (
    SELECT id, data FROM ${t('records')}
    WHERE id = p_id AND status = 'completed' AND consumed_at IS NULL AND purge_at > p_now FOR UPDATE
  )
  UPDATE ${t('records')} r SET consumed_at = p_now, data = NULL FROM taken WHERE r.id = taken.id
  RETURNING json_build_object('row', row_to_json(r), 'data', taken.data)::text
$$;

-- Expires one batch of what is due (the caller calls again while a batch is full), skipping rows a page post holds;
-- the last call of a sweep (a batch not full) also forgets what is past its time, once per sweep. Each lookup walks
-- its index in order, so that the plan cached for the function never scans a whole table.
CREATE OR REPLACE FUNCTION ${t('sweep')}(
  p_now bigint, p_retention bigint, p_batch integer, p_event_start text, p_event_end text,
  p_events_before bigint, p_events_kept integer
) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  r ${t('records')};
  n integer;
  expired integer := 0;
BEGIN
  FOR r IN
    WITH due AS (
      SELECT id FROM ${t('records')} WHERE status = 'pending' AND expires_at <= p_now
      ORDER BY expires_at LIMIT p_batch FOR UPDATE SKIP LOCKED
    )
    UPDATE ${t('records')} x SET status = 'expired', finished_at = p_now, purge_at = p_now + p_retention
    FROM due WHERE x.id = due.id RETURNING x.*
  LOOP
    expired := expired + 1;
    IF p_event_start IS NOT NULL THEN PERFORM ${t('emit')}(p_now, p_event_start || r.event_part || p_event_end); END IF;
    RETURN NEXT row_to_json(r)::text;
  END LOOP;
  IF expired >= p_batch THEN RETURN; END IF;
  -- Finished records past their time, ended counters, expired tasks and notices past their forget_at: in batches until
  -- none is left.
  LOOP
    DELETE FROM ${t('records')} WHERE id IN (
      SELECT id FROM ${t('records')} WHERE purge_at <= p_now ORDER BY purge_at LIMIT p_batch FOR UPDATE SKIP LOCKED);
    GET DIAGNOSTICS n = ROW_COUNT;
    EXIT WHEN n < p_batch;
  END LOOP;
  LOOP
    DELETE FROM ${t('counters')} WHERE name IN (
      SELECT name FROM ${t('counters')} WHERE reset_at <= p_now ORDER BY reset_at LIMIT p_batch FOR UPDATE SKIP LOCKED);
    GET DIAGNOSTICS n = ROW_COUNT;
    EXIT WHEN n < p_batch;
  END LOOP;
  LOOP
    DELETE FROM ${t('tasks')} WHERE id IN (
      SELECT id FROM ${t('tasks')} WHERE expires_at <= p_now ORDER BY expires_at LIMIT p_batch FOR UPDATE SKIP LOCKED);
    GET DIAGNOSTICS n = ROW_COUNT;
    EXIT WHEN n < p_batch;
  END LOOP;
  LOOP
    DELETE FROM ${t('notices')} WHERE id IN (
      SELECT id FROM ${t('notices')} WHERE forget_at <= p_now ORDER BY forget_at LIMIT p_batch FOR UPDATE SKIP LOCKED);
    GET DIAGNOSTICS n = ROW_COUNT;
    EXIT WHEN n < p_batch;
  END LOOP;
  DELETE FROM ${t('key_rings')} WHERE until <= p_now;
  DELETE FROM ${t('call_states')} WHERE expires_at <= p_now;
  DELETE FROM ${t('events')} WHERE at < p_events_before
    OR id <= (SELECT max(id) FROM ${t('events')}) - p_events_kept;
END $$;

-- An instance's key ring until p_until (0: gone); the live rings.
CREATE OR REPLACE FUNCTION ${t('announce')}(p_instance text, p_key_ids text, p_until bigint, p_now bigint)
RETURNS TABLE (instance_id text, key_ids text) LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM ${t('key_rings')} k WHERE k.until <= p_now OR k.instance_id = p_instance;
  IF p_until > p_now THEN
    INSERT INTO ${t('key_rings')} (instance_id, key_ids, until) VALUES (p_instance, p_key_ids, p_until);
  END IF;
  RETURN QUERY SELECT k.instance_id, k.key_ids FROM ${t('key_rings')} k ORDER BY k.instance_id;
END $$;

-- A new task, unless its user has too many open ones (one lock per user name: the count holds across instances).
CREATE OR REPLACE FUNCTION ${t('create_task')}(
  p_id text, p_user text, p_users text[], p_status text, p_created bigint, p_updated bigint, p_expires bigint,
  p_version integer, p_lease_owner text, p_lease_until bigint, p_sealed text, p_max_open integer
) RETURNS text LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('${t('tasks')}:' || p_user));
  SELECT count(*) INTO n FROM ${t('tasks')}
    WHERE user_name = ANY(p_users) AND status IN (${openTasks}) AND expires_at > p_created;
  IF n >= p_max_open THEN RETURN 'user-task-limit'; END IF;
  INSERT INTO ${t('tasks')} (id, user_name, status, created_at, updated_at, expires_at, version, lease_owner, lease_until, sealed)
    VALUES (p_id, p_user, p_status, p_created, p_updated, p_expires, p_version, p_lease_owner, p_lease_until, p_sealed)
    ON CONFLICT (id) DO NOTHING;
  IF NOT FOUND THEN RETURN 'exists'; END IF;
  RETURN 'created';
END $$;

${decisionsSchemaSql(names)}INSERT INTO ${t('meta')} (name, value) VALUES ('schema_version', '${SCHEMA_VERSION}')
  ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value;
`;
}

/**
 * What `PostgresElicitationStore.createSchema()` does: nothing for a schema at `SCHEMA_VERSION` (no DDL, so no lock on a
 * live database's tables); a config error naming both versions, and nothing changed, for a schema at a later version;
 * else `schemaSql` in one transaction (`run` maps a failure to reach PostgreSQL).
 */
export async function createSchema(
  pool: pg.Pool,
  names: PostgresNames,
  run: (query: () => Promise<unknown>) => Promise<unknown>,
): Promise<void> {
  const found = await readSchemaVersion(pool, names).catch(() => undefined);
  if (found === String(SCHEMA_VERSION)) return;
  if (isNewerSchema(found)) throw newerSchemaError(names, found);
  await run(() =>
    pool.query(schemaSql(names)).catch(async (error: unknown) => {
      // A newer release moved the schema on meanwhile: the text refused it, and its transaction changed nothing.
      const now = await readSchemaVersion(pool, names).catch(() => undefined);
      throw isNewerSchema(now) ? newerSchemaError(names, now) : error;
    }),
  );
}
