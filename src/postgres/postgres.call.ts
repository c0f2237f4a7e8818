import type { Logger } from '@nestjs/common';
import { ElicitationConfigError } from '../errors/elicitation-config.error.js';
import { ElicitationStoreUnavailableError } from '../errors/elicitation-store-unavailable.error.js';

/**
 * Runs one operation of the PostgreSQL store: a failure to reach PostgreSQL is the store being unavailable
 * (`ElicitationStoreUnavailableError`: the pages answer 503); any other error (of the schema, of a statement) is
 * logged with its SQLSTATE and thrown as it is.
 */
export async function callPostgres<T>(logger: Logger, operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ElicitationConfigError) throw error;
    const code = (error as { code?: unknown }).code;
    // Not a SQLSTATE (a socket error: ECONNREFUSED, …), or the classes 08 (connection), 53 (resources), 57 (operator
    // intervention): the server is not there for us.
    const sqlState = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
    if (!sqlState || /^(08|53|57)/.test(code)) throw new ElicitationStoreUnavailableError(operation, error);
    logger.error(`${operation} failed: ${code} ${(error as Error).message}`);
    throw error;
  }
}
