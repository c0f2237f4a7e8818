/** Where the store's objects live: a schema and a prefix for every table and function. */
export interface PostgresNames {
  schema: string;
  prefix: string;
}

/** The default names: tables `public.elicitation_records`, …; functions `public.elicitation_create`, …. */
export const DEFAULT_POSTGRES_NAMES: PostgresNames = { schema: 'public', prefix: 'elicitation_' };

/** A schema or prefix the store accepts: lower-case letters, digits and `_` (no quoting needed anywhere). */
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,39}$/;
const PREFIX = /^[a-z0-9_]{0,30}$/;

/** Whether `names` are usable identifiers; the message names the option and the value otherwise. */
export function namesProblem(names: PostgresNames): string | undefined {
  if (!IDENTIFIER.test(names.schema))
    return `schema must be lower-case letters, digits and _ (at most 40), got ${JSON.stringify(names.schema)}`;
  if (!PREFIX.test(names.prefix))
    return `tablePrefix must be lower-case letters, digits and _ (at most 30), got ${JSON.stringify(names.prefix)}`;
  return undefined;
}

/** The qualified name of a table or function. */
export function qualified(names: PostgresNames, object: string): string {
  return `${names.schema}.${names.prefix}${object}`;
}

/** The notification channel of a schema and prefix (a channel name is an identifier: at most 63 bytes). */
export function channelOf(names: PostgresNames): string {
  return `${names.schema}_${names.prefix}events`.slice(0, 63);
}
