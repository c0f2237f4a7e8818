import type { Logger } from '@nestjs/common';
import { ElicitationConfigError } from '../errors/elicitation-config.error.js';
import { ElicitationStoreUnavailableError } from '../errors/elicitation-store-unavailable.error.js';
import type { PostgresNames } from './postgres.names.js';
import { PostgresTimeoutError } from './postgres.bounded.js';
import { MISSING_SCHEMA_STATES, schemaError } from './postgres.schema-version.js';

/**
 * Runs one operation of the PostgreSQL store: a failure to reach PostgreSQL, or no answer within `operationTimeoutMs`,
 * is the store being unavailable (`ElicitationStoreUnavailableError`: the pages answer 503); a missing table or
 * function is the schema missing (the config error naming the fix); any other error is logged with its SQLSTATE and
 * thrown as it is.
 */
export async function callPostgres<T>(logger: Logger, names: PostgresNames, operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ElicitationConfigError) throw error;
    if (error instanceof PostgresTimeoutError) throw new ElicitationStoreUnavailableError(operation, error);
    const code = (error as { code?: unknown }).code;
    // Not a SQLSTATE (a socket error: ECONNREFUSED, …), the classes 08 (connection), 53 (resources), 57 (operator
    // intervention, and statement_timeout's 57014), or lock_timeout's 55P03: the server is not there for us in time.
    const sqlState = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
    // A table or function of the schema missing (an operation before the start-up check, as the key ring's): the fix.
    if (sqlState && MISSING_SCHEMA_STATES.has(code)) throw schemaError(names);
    if (!sqlState || /^(08|53|57)/.test(code) || code === '55P03') throw new ElicitationStoreUnavailableError(operation, error);
    logger.error(`${operation} failed: ${code} ${(error as Error).message}`);
    throw error;
  }
}
