-- nestjs-mcp-elicitation: the PostgreSQL store's schema, version 6
-- One text, one transaction: instances that start together create it one after the other. A schema of an earlier
-- version is brought forward; one of a later version (a newer release's) is refused, and nothing is changed.
SELECT pg_advisory_xact_lock(hashtext('public.elicitation_schema'));
CREATE SCHEMA IF NOT EXISTS public;

CREATE TABLE IF NOT EXISTS public.elicitation_meta (name text PRIMARY KEY, value text NOT NULL);

-- A schema made by a newer release is never downgraded: refused, and left as it is.
DO $$
DECLARE found text;
BEGIN
  SELECT value INTO found FROM public.elicitation_meta WHERE name = 'schema_version';
  IF found ~ '^[0-9]+$' AND found::integer > 6 THEN
    RAISE EXCEPTION 'nestjs-mcp-elicitation: the schema of public.elicitation_* is at version %, newer than version 6, which this release knows; it is left as it is', found;
  END IF;
END $$;

-- Version 1 to 2: a record's sealed texts in columns named for what they hold (they were v and j).
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM information_schema.columns
    WHERE table_schema = 'public' AND table_name = 'elicitation_records' AND column_name = 'v') THEN
    ALTER TABLE public.elicitation_records RENAME COLUMN v TO event_part;
    ALTER TABLE public.elicitation_records RENAME COLUMN j TO sealed;
    DROP FUNCTION IF EXISTS public.elicitation_create(text, text, text, text, text[], text, text, bigint, bigint, bigint, text, bigint, integer, integer, integer, text);
  END IF;
END $$;

-- One row per elicitation: its part of its events and the sealed record, written at creation; the rest changes with
-- the record's life.
CREATE TABLE IF NOT EXISTS public.elicitation_records (
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
CREATE INDEX IF NOT EXISTS elicitation_records_user ON public.elicitation_records (user_name, created_at);
CREATE INDEX IF NOT EXISTS elicitation_records_due ON public.elicitation_records (expires_at) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS elicitation_records_purge ON public.elicitation_records (purge_at);
CREATE INDEX IF NOT EXISTS elicitation_records_completed ON public.elicitation_records (type_name, finished_at)
  WHERE status = 'completed' AND consumed_at IS NULL;
CREATE INDEX IF NOT EXISTS elicitation_records_asked ON public.elicitation_records (ask_name, created_at) WHERE ask_name IS NOT NULL;

-- Fixed-window counters (aligned windows: reset_at is the window's end).
CREATE TABLE IF NOT EXISTS public.elicitation_counters (name text PRIMARY KEY, reset_at bigint NOT NULL, count integer NOT NULL);
CREATE INDEX IF NOT EXISTS elicitation_counters_reset ON public.elicitation_counters (reset_at);

-- Lifecycle events between instances: appended with the move, announced by NOTIFY (the id only).
CREATE TABLE IF NOT EXISTS public.elicitation_events (id bigserial PRIMARY KEY, at bigint NOT NULL, message text NOT NULL);
CREATE INDEX IF NOT EXISTS elicitation_events_at ON public.elicitation_events (at);

-- The key rings of the live instances (key ids only).
CREATE TABLE IF NOT EXISTS public.elicitation_key_rings (instance_id text PRIMARY KEY, key_ids text NOT NULL, until bigint NOT NULL);

-- MCP tasks: user and body sealed together; user_name for the per-user cap.
CREATE TABLE IF NOT EXISTS public.elicitation_tasks (
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
CREATE INDEX IF NOT EXISTS elicitation_tasks_open ON public.elicitation_tasks (user_name) WHERE status IN ('working', 'input_required');
CREATE INDEX IF NOT EXISTS elicitation_tasks_expiry ON public.elicitation_tasks (expires_at);
-- What a 2025-11-25 call that ended before its tool ran leaves for its continuation (its steps' results, sealed).
CREATE TABLE IF NOT EXISTS public.elicitation_call_states (key text PRIMARY KEY, value text NOT NULL, expires_at bigint NOT NULL);

-- Finished tasks by when they finished, each user's and all: the oldest past tasks.maxFinishedPerUser or maxFinished go.
CREATE INDEX IF NOT EXISTS elicitation_tasks_finished_user ON public.elicitation_tasks (user_name, updated_at) WHERE status NOT IN ('working', 'input_required');
CREATE INDEX IF NOT EXISTS elicitation_tasks_finished ON public.elicitation_tasks (updated_at) WHERE status NOT IN ('working', 'input_required');

-- Each user's open records, newest first (the inbox's pages, listOpen); ids in byte order, whatever the collation.
CREATE INDEX IF NOT EXISTS elicitation_records_open ON public.elicitation_records (user_name, created_at DESC, id COLLATE "C" DESC)
  WHERE status = 'pending';

-- The notifications' outbox: a row per notice (record_id, the elicitation it is about) until it is delivered or dropped
-- (a failed one until its forget_at), its body sealed. A claim is a lease: its owner, and due_at moved to the lease's end.
CREATE TABLE IF NOT EXISTS public.elicitation_notices (
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
CREATE INDEX IF NOT EXISTS elicitation_notices_due ON public.elicitation_notices (due_at) WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS elicitation_notices_forget ON public.elicitation_notices (forget_at);
-- How many notices were delivered: one row, counted in the statement that forgets the notice.
CREATE TABLE IF NOT EXISTS public.elicitation_notices_delivered (one boolean PRIMARY KEY DEFAULT true CHECK (one), count bigint NOT NULL);
INSERT INTO public.elicitation_notices_delivered (one, count) VALUES (true, 0) ON CONFLICT (one) DO NOTHING;

-- An event row and its announcement, in the caller's transaction (NOTIFY is sent at commit): its id, and the start of
-- its message, which names the sending channel in clear (so that the sender need not read its own rows).
CREATE OR REPLACE FUNCTION public.elicitation_emit(p_at bigint, p_message text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE event_id bigint;
BEGIN
  INSERT INTO public.elicitation_events (at, message) VALUES (p_at, p_message) RETURNING id INTO event_id;
  PERFORM pg_notify('public_elicitation_events', event_id::text || ' ' || left(p_message, 48));
END $$;

CREATE OR REPLACE FUNCTION public.elicitation_hit(p_name text, p_reset_at bigint) RETURNS integer LANGUAGE sql AS $$
  INSERT INTO public.elicitation_counters AS c (name, reset_at, count) VALUES (p_name, p_reset_at, 1)
  ON CONFLICT (name) DO UPDATE SET count = CASE WHEN c.reset_at = EXCLUDED.reset_at THEN c.count + 1 ELSE 1 END,
    reset_at = EXCLUDED.reset_at
  RETURNING count
$$;

-- A new pending record, unless a limit refuses it: creations with a quota take one lock, so the counts hold across instances.
CREATE OR REPLACE FUNCTION public.elicitation_create(
  p_id text, p_event_part text, p_sealed text, p_user text, p_users text[], p_type text, p_ask text,
  p_created bigint, p_expires bigint, p_purge bigint,
  p_rate text, p_rate_reset bigint, p_rate_limit integer, p_max_user integer, p_max_all integer, p_event text
) RETURNS text LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  IF p_rate IS NOT NULL THEN
    PERFORM pg_advisory_xact_lock(hashtext('public.elicitation_create'));
    IF public.elicitation_hit(p_rate, p_rate_reset) > p_rate_limit THEN RETURN 'rate-limited'; END IF;
    SELECT count(*) INTO n FROM public.elicitation_records WHERE user_name = ANY(p_users) AND status = 'pending';
    IF n >= p_max_user THEN RETURN 'user-pending-limit'; END IF;
    SELECT count(*) INTO n FROM public.elicitation_records WHERE status = 'pending';
    IF n >= p_max_all THEN RETURN 'pending-limit'; END IF;
  END IF;
  INSERT INTO public.elicitation_records (id, event_part, sealed, user_name, type_name, ask_name, status, created_at, expires_at, purge_at)
    VALUES (p_id, p_event_part, p_sealed, p_user, p_type, p_ask, 'pending', p_created, p_expires, p_purge);
  IF p_event IS NOT NULL THEN PERFORM public.elicitation_emit(p_created, p_event); END IF;
  RETURN 'created';
END $$;

-- Out of pending, once: the row as it is after the call, and whether this call moved it.
CREATE OR REPLACE FUNCTION public.elicitation_finish(
  p_id text, p_status text, p_data text, p_now bigint, p_purge bigint, p_event_start text, p_event_end text
) RETURNS TABLE (moved boolean, row_json text) LANGUAGE plpgsql AS $$
DECLARE r public.elicitation_records;
BEGIN
  SELECT * INTO r FROM public.elicitation_records WHERE id = p_id AND purge_at > p_now FOR UPDATE;
  IF NOT FOUND THEN RETURN; END IF;
  IF r.status <> 'pending' OR (p_status <> 'expired' AND r.expires_at <= p_now) THEN
    RETURN QUERY SELECT false, row_to_json(r)::text;
    RETURN;
  END IF;
  UPDATE public.elicitation_records SET status = p_status, data = p_data, finished_at = p_now, purge_at = p_purge
    WHERE id = p_id RETURNING * INTO r;
  IF p_event_start IS NOT NULL THEN PERFORM public.elicitation_emit(p_now, p_event_start || r.event_part || p_event_end); END IF;
  RETURN QUERY SELECT true, row_to_json(r)::text;
END $$;

-- More time, once, for a pending record before its expiry.
CREATE OR REPLACE FUNCTION public.elicitation_extend(
  p_id text, p_expires bigint, p_purge bigint, p_now bigint, p_event_start text, p_event_end text
) RETURNS TABLE (moved boolean, row_json text) LANGUAGE plpgsql AS $$
DECLARE r public.elicitation_records;
BEGIN
  SELECT * INTO r FROM public.elicitation_records WHERE id = p_id AND purge_at > p_now FOR UPDATE;
  IF NOT FOUND THEN RETURN; END IF;
  IF r.status <> 'pending' OR r.expires_at <= p_now OR r.extended_at IS NOT NULL THEN
    RETURN QUERY SELECT false, row_to_json(r)::text;
    RETURN;
  END IF;
  UPDATE public.elicitation_records SET expires_at = p_expires, purge_at = p_purge, extended_at = p_now, extended_from = r.expires_at
    WHERE id = p_id RETURNING * INTO r;
  IF p_event_start IS NOT NULL THEN PERFORM public.elicitation_emit(p_now, p_event_start || r.event_part || p_event_end); END IF;
  RETURN QUERY SELECT true, row_to_json(r)::text;
END $$;

-- Read-once delivery: a completed record's data, taken.
CREATE OR REPLACE FUNCTION public.elicitation_consume(p_id text, p_now bigint) RETURNS text LANGUAGE sql AS $$
  WITH taken AS (
    SELECT id, data FROM public.elicitation_records
    WHERE id = p_id AND status = 'completed' AND consumed_at IS NULL AND purge_at > p_now FOR UPDATE
  )
  UPDATE public.elicitation_records r SET consumed_at = p_now, data = NULL FROM taken WHERE r.id = taken.id
  RETURNING json_build_object('row', row_to_json(r), 'data', taken.data)::text
$$;

-- Expires one batch of what is due (the caller calls again while a batch is full), skipping rows a page post holds;
-- the last call of a sweep (a batch not full) also forgets what is past its time, once per sweep. Each lookup walks
-- its index in order, so that the plan cached for the function never scans a whole table.
CREATE OR REPLACE FUNCTION public.elicitation_sweep(
  p_now bigint, p_retention bigint, p_batch integer, p_event_start text, p_event_end text,
  p_events_before bigint, p_events_kept integer
) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  r public.elicitation_records;
  n integer;
  expired integer := 0;
BEGIN
  FOR r IN
    WITH due AS (
      SELECT id FROM public.elicitation_records WHERE status = 'pending' AND expires_at <= p_now
      ORDER BY expires_at LIMIT p_batch FOR UPDATE SKIP LOCKED
    )
    UPDATE public.elicitation_records x SET status = 'expired', finished_at = p_now, purge_at = p_now + p_retention
    FROM due WHERE x.id = due.id RETURNING x.*
  LOOP
    expired := expired + 1;
    IF p_event_start IS NOT NULL THEN PERFORM public.elicitation_emit(p_now, p_event_start || r.event_part || p_event_end); END IF;
    RETURN NEXT row_to_json(r)::text;
  END LOOP;
  IF expired >= p_batch THEN RETURN; END IF;
  -- Finished records past their time, ended counters, expired tasks and notices past their forget_at: in batches until
  -- none is left.
  LOOP
    DELETE FROM public.elicitation_records WHERE id IN (
      SELECT id FROM public.elicitation_records WHERE purge_at <= p_now ORDER BY purge_at LIMIT p_batch FOR UPDATE SKIP LOCKED);
    GET DIAGNOSTICS n = ROW_COUNT;
    EXIT WHEN n < p_batch;
  END LOOP;
  LOOP
    DELETE FROM public.elicitation_counters WHERE name IN (
      SELECT name FROM public.elicitation_counters WHERE reset_at <= p_now ORDER BY reset_at LIMIT p_batch FOR UPDATE SKIP LOCKED);
    GET DIAGNOSTICS n = ROW_COUNT;
    EXIT WHEN n < p_batch;
  END LOOP;
  LOOP
    DELETE FROM public.elicitation_tasks WHERE id IN (
      SELECT id FROM public.elicitation_tasks WHERE expires_at <= p_now ORDER BY expires_at LIMIT p_batch FOR UPDATE SKIP LOCKED);
    GET DIAGNOSTICS n = ROW_COUNT;
    EXIT WHEN n < p_batch;
  END LOOP;
  LOOP
    DELETE FROM public.elicitation_notices WHERE id IN (
      SELECT id FROM public.elicitation_notices WHERE forget_at <= p_now ORDER BY forget_at LIMIT p_batch FOR UPDATE SKIP LOCKED);
    GET DIAGNOSTICS n = ROW_COUNT;
    EXIT WHEN n < p_batch;
  END LOOP;
  DELETE FROM public.elicitation_key_rings WHERE until <= p_now;
  DELETE FROM public.elicitation_call_states WHERE expires_at <= p_now;
  DELETE FROM public.elicitation_events WHERE at < p_events_before
    OR id <= (SELECT max(id) FROM public.elicitation_events) - p_events_kept;
END $$;

-- An instance's key ring until p_until (0: gone); the live rings.
CREATE OR REPLACE FUNCTION public.elicitation_announce(p_instance text, p_key_ids text, p_until bigint, p_now bigint)
RETURNS TABLE (instance_id text, key_ids text) LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM public.elicitation_key_rings k WHERE k.until <= p_now OR k.instance_id = p_instance;
  IF p_until > p_now THEN
    INSERT INTO public.elicitation_key_rings (instance_id, key_ids, until) VALUES (p_instance, p_key_ids, p_until);
  END IF;
  RETURN QUERY SELECT k.instance_id, k.key_ids FROM public.elicitation_key_rings k ORDER BY k.instance_id;
END $$;

-- A new task, unless its user has too many open ones (one lock per user name: the count holds across instances).
CREATE OR REPLACE FUNCTION public.elicitation_create_task(
  p_id text, p_user text, p_users text[], p_status text, p_created bigint, p_updated bigint, p_expires bigint,
  p_version integer, p_lease_owner text, p_lease_until bigint, p_sealed text, p_max_open integer
) RETURNS text LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('public.elicitation_tasks:' || p_user));
  SELECT count(*) INTO n FROM public.elicitation_tasks
    WHERE user_name = ANY(p_users) AND status IN ('working', 'input_required') AND expires_at > p_created;
  IF n >= p_max_open THEN RETURN 'user-task-limit'; END IF;
  INSERT INTO public.elicitation_tasks (id, user_name, status, created_at, updated_at, expires_at, version, lease_owner, lease_until, sealed)
    VALUES (p_id, p_user, p_status, p_created, p_updated, p_expires, p_version, p_lease_owner, p_lease_until, p_sealed)
    ON CONFLICT (id) DO NOTHING;
  IF NOT FOUND THEN RETURN 'exists'; END IF;
  RETURN 'created';
END $$;

-- Users' passkeys, kept until an operator deletes them (a removed one's public key still verifies what it signed): its
-- user, public key, name and transports sealed together; its user's name (a keyed hash) for the list and the cap.
CREATE TABLE IF NOT EXISTS public.elicitation_passkeys (
  id text PRIMARY KEY,
  user_name text NOT NULL,
  sealed text NOT NULL,
  counter bigint NOT NULL,
  created_at bigint NOT NULL,
  last_used_at bigint,
  removed_at bigint
);
CREATE INDEX IF NOT EXISTS elicitation_passkeys_user ON public.elicitation_passkeys (user_name, created_at) WHERE removed_at IS NULL;
-- Audit chains: each stream's lines, the seq-th appended only as the next (after seq - 1).
CREATE TABLE IF NOT EXISTS public.elicitation_audit_links (stream text NOT NULL, seq bigint NOT NULL, line text NOT NULL, PRIMARY KEY (stream, seq));

-- A passkey added under one lock per user: 'exists' for an id kept (removed or not, whoever's), 'limit' at the cap.
CREATE OR REPLACE FUNCTION public.elicitation_add_passkey(
  p_id text, p_user text, p_users text[], p_sealed text, p_counter bigint, p_created bigint, p_max integer
) RETURNS text LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('public.elicitation_passkeys:' || p_user));
  IF EXISTS (SELECT 1 FROM public.elicitation_passkeys WHERE id = p_id) THEN RETURN 'exists'; END IF;
  SELECT count(*) INTO n FROM public.elicitation_passkeys WHERE user_name = ANY(p_users) AND removed_at IS NULL;
  IF n >= p_max THEN RETURN 'limit'; END IF;
  INSERT INTO public.elicitation_passkeys (id, user_name, sealed, counter, created_at)
    VALUES (p_id, p_user, p_sealed, p_counter, p_created)
    ON CONFLICT (id) DO NOTHING;
  IF NOT FOUND THEN RETURN 'exists'; END IF;
  RETURN 'added';
END $$;

INSERT INTO public.elicitation_meta (name, value) VALUES ('schema_version', '6')
  ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value;
