import { qualified, type PostgresNames } from './postgres.names.js';

/**
 * The part of the schema that proves decisions (version 6 on): users' passkeys and the audit chains, with the function
 * that adds a passkey. Spliced into `schemaSql` (its text, blank line at the end included, is the schema's as before).
 */
export function decisionsSchemaSql(names: PostgresNames): string {
  const t = (object: string) => qualified(names, object);
  return `-- Users' passkeys, kept until an operator deletes them (a removed one's public key still verifies what it signed): its
-- user, public key, name and transports sealed together; its user's name (a keyed hash) for the list and the cap.
CREATE TABLE IF NOT EXISTS ${t('passkeys')} (
  id text PRIMARY KEY,
  user_name text NOT NULL,
  sealed text NOT NULL,
  counter bigint NOT NULL,
  created_at bigint NOT NULL,
  last_used_at bigint,
  removed_at bigint
);
CREATE INDEX IF NOT EXISTS ${names.prefix}passkeys_user ON ${t('passkeys')} (user_name, created_at) WHERE removed_at IS NULL;
-- Audit chains: each stream's lines, the seq-th appended only as the next (after seq - 1).
CREATE TABLE IF NOT EXISTS ${t('audit_links')} (stream text NOT NULL, seq bigint NOT NULL, line text NOT NULL, PRIMARY KEY (stream, seq));

-- A passkey added under one lock per user: 'exists' for an id kept (removed or not, whoever's), 'limit' at the cap.
CREATE OR REPLACE FUNCTION ${t('add_passkey')}(
  p_id text, p_user text, p_users text[], p_sealed text, p_counter bigint, p_created bigint, p_max integer
) RETURNS text LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('${t('passkeys')}:' || p_user));
  IF EXISTS (SELECT 1 FROM ${t('passkeys')} WHERE id = p_id) THEN RETURN 'exists'; END IF;
  SELECT count(*) INTO n FROM ${t('passkeys')} WHERE user_name = ANY(p_users) AND removed_at IS NULL;
  IF n >= p_max THEN RETURN 'limit'; END IF;
  INSERT INTO ${t('passkeys')} (id, user_name, sealed, counter, created_at)
    VALUES (p_id, p_user, p_sealed, p_counter, p_created)
    ON CONFLICT (id) DO NOTHING;
  IF NOT FOUND THEN RETURN 'exists'; END IF;
  RETURN 'added';
END $$;

`;
}
