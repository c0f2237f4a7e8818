import { ElicitationConfigError } from '../errors/elicitation-config.error.js';
import { DEFAULT_POSTGRES_NAMES, namesProblem } from './postgres.names.js';

/** Options of `PostgresElicitationStore`. */
export interface PostgresElicitationStoreOptions {
  /**
   * The schema of the store's tables and functions (created by `createSchema()` when missing). Lower-case letters,
   * digits and `_`.
   * @default 'public'
   */
  schema?: string;
  /**
   * The prefix of every table and function name (`elicitation_records`, …): give each deployment sharing a database
   * its own. Lower-case letters, digits and `_`.
   * @default 'elicitation_'
   */
  tablePrefix?: string;
  /**
   * Records (and counters, tasks, events) a sweep handles per statement; the sweep loops while a batch is full.
   * @default 500
   */
  sweepBatch?: number;
  /** How long the events table keeps an event, in milliseconds (trimmed by the sweep). @default 600000 (10 minutes) */
  eventsMaxAgeMs?: number;
  /** About how many events the events table keeps (trimmed by the sweep). @default 10000 */
  eventsMaxCount?: number;
  /**
   * How often an instance reads the events table without a notification, in milliseconds: the backstop for a
   * notification lost with its connection.
   * @default 5000
   */
  eventPollMs?: number;
  /**
   * The bound on every operation, in milliseconds: waiting for a pool client and the statement itself, on the store's
   * own pool and on yours. Past it the operation fails with `ElicitationStoreUnavailableError` (pages and the status
   * route answer 503 with `Retry-After`, a tool call a clear error), the connection it held is closed and the server
   * asked to cancel the statement. The store's own pool also sets `statement_timeout` and `lock_timeout` a little under
   * it on its connections (your pool's settings are left as they are).
   * @default 5000
   */
  operationTimeoutMs?: number;
}

/** The options with their defaults, checked. */
export interface ResolvedPostgresStoreOptions {
  readonly schema: string;
  readonly tablePrefix: string;
  readonly sweepBatch: number;
  readonly eventsMaxAgeMs: number;
  readonly eventsMaxCount: number;
  readonly eventPollMs: number;
  readonly operationTimeoutMs: number;
}

/** A whole number of at least `min`, else a config error naming the option and the value. */
function whole(option: keyof PostgresElicitationStoreOptions, value: number | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min) {
    throw new ElicitationConfigError(option, `must be a whole number of at least ${min}`, { value });
  }
  return value;
}

export function resolvePostgresStoreOptions(options: PostgresElicitationStoreOptions): ResolvedPostgresStoreOptions {
  const known = new Set(['schema', 'tablePrefix', 'sweepBatch', 'eventsMaxAgeMs', 'eventsMaxCount', 'eventPollMs', 'operationTimeoutMs']);
  const unknown = Object.keys(options).find((key) => !known.has(key));
  if (unknown) throw new ElicitationConfigError(unknown, `is not an option of PostgresElicitationStore (${[...known].join(', ')})`);
  const names = { schema: options.schema ?? DEFAULT_POSTGRES_NAMES.schema, prefix: options.tablePrefix ?? DEFAULT_POSTGRES_NAMES.prefix };
  const problem = namesProblem(names);
  if (problem) throw new ElicitationConfigError(problem.startsWith('schema') ? 'schema' : 'tablePrefix', problem.replace(/^\S+ /, ''));
  return {
    schema: names.schema,
    tablePrefix: names.prefix,
    sweepBatch: whole('sweepBatch', options.sweepBatch, 500, 1),
    eventsMaxAgeMs: whole('eventsMaxAgeMs', options.eventsMaxAgeMs, 600_000, 1_000),
    eventsMaxCount: whole('eventsMaxCount', options.eventsMaxCount, 10_000, 1),
    eventPollMs: whole('eventPollMs', options.eventPollMs, 5_000, 100),
    operationTimeoutMs: whole('operationTimeoutMs', options.operationTimeoutMs, 5_000, 100),
  };
}
