import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { ElicitationConfigError } from '../errors/elicitation-config.error.js';

/**
 * A statement of the store, or its wait for a pool client, that ran past `operationTimeoutMs`: `callPostgres` makes it
 * the store being unavailable, named with the operation.
 */
export class PostgresTimeoutError extends Error {
  override readonly name = 'PostgresTimeoutError';
}

/** What the store's parts run their statements on: one statement at a time, each ended within the bound. */
export interface PostgresQueries {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

/** A pool client, as the store uses one (the app's pool may come from another copy of `pg`: no `instanceof`). */
interface PoolClient {
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
  release(destroy?: boolean | Error): void;
  processID?: number | null;
  secretKey?: number | null;
}

/** The protocol's code of a cancel request (1234 in the high 16 bits, 5678 in the low). */
const CANCEL_REQUEST_CODE = 80877102;

/** SQLSTATEs of the server's own bounds: `statement_timeout` (57014, query_canceled) and `lock_timeout` (55P03). */
const SERVER_TIMEOUTS: ReadonlySet<string> = new Set(['57014', '55P03']);

/** The statement and lock timeouts the store's own connections start with: a little under the bound, so that the
 * server ends a statement first (its error says why) and the client's deadline is the backstop. */
export function serverTimeouts(operationTimeoutMs: number): { statement_timeout: number; lock_timeout: number } {
  const server = Math.max(50, operationTimeoutMs - Math.min(250, Math.floor(operationTimeoutMs / 10)));
  return { statement_timeout: server, lock_timeout: server };
}

/**
 * What is wrong with a connection string, or `undefined`: a URL (`postgres:` or `postgresql:`) or a socket path, as
 * `pg` reads them. Anything else `pg` would take for a host name (`not-a-url` reaches DNS as `base`). Says what it got
 * without repeating it (a connection string may carry a password).
 */
function connectionStringProblem(value: string): string | undefined {
  if (value.startsWith('/') || value.startsWith('socket:')) return undefined;
  if (!/^postgres(ql)?:\/\//i.test(value))
    return `a string of ${value.length} characters that starts with neither postgres:// nor postgresql://`;
  try {
    new URL(value);
    return undefined;
  } catch {
    return `a postgres:// string of ${value.length} characters that is not a valid URL`;
  }
}

/**
 * Every statement of the PostgreSQL store ends within `timeoutMs`, on the store's own pool and on the app's alike:
 * waiting for a pool client, and the statement itself (a held lock, a slow server). Past the bound the call fails
 * with `PostgresTimeoutError` (which `callPostgres` makes `ElicitationStoreUnavailableError`: pages and the status
 * route answer 503), the connection it held is closed (never handed back to the pool mid-statement), and the server
 * is asked to cancel the statement (PostgreSQL's cancel request, on a connection of its own: it needs no pool
 * client). A client taken after its wait ran out goes straight back to the pool. So a table locked for minutes
 * costs each caller `timeoutMs`, never the pool.
 */
export class BoundedPool implements PostgresQueries {
  constructor(
    private readonly pool: pg.Pool,
    private readonly timeoutMs: number,
    /** How to reach the server for a cancel request (the pool's connection options). */
    private readonly connection: pg.ClientConfig,
  ) {}

  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    const deadline = performance.now() + this.timeoutMs;
    const client = await this.acquire(deadline);
    const running = client.query<R>(text, values);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(this.timeout('the statement')), Math.max(0, deadline - performance.now()));
    });
    try {
      const result = await Promise.race([running, timedOut]);
      client.release();
      return result;
    } catch (error) {
      if (error instanceof PostgresTimeoutError) {
        running.catch(() => undefined);
        this.cancel(client);
        client.release(error);
        throw error;
      }
      // A statement error leaves the connection usable; a broken connection is the pool's to drop.
      client.release(isConnectionError(error) ? (error as Error) : undefined);
      // The server's own statement or lock timeout (the store's pool sets them under the bound): the same refusal.
      if (SERVER_TIMEOUTS.has(String((error as { code?: unknown }).code))) throw this.timeout('the statement', error);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** A pool client before the deadline; one that comes later is released at once. */
  private async acquire(deadline: number): Promise<PoolClient> {
    const connecting = this.pool.connect() as Promise<PoolClient>;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(this.timeout('a connection from the pool')), Math.max(0, deadline - performance.now()));
    });
    try {
      return await Promise.race([connecting, timedOut]);
    } catch (error) {
      connecting.then((late) => late.release()).catch(() => undefined);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Asks the server to cancel what `client` runs: PostgreSQL's cancel request (its backend's id and secret) on a
   * connection of its own, bounded too. Best effort: the statement also ends at the server's own timeouts.
   */
  private cancel(client: PoolClient): void {
    const { processID, secretKey } = client;
    if (typeof processID !== 'number' || typeof secretKey !== 'number') return;
    const { host, port } = new pg.Client(this.connection) as unknown as { host: string; port: number };
    const socket = host.startsWith('/') ? connect(`${host}/.s.PGSQL.${port}`) : connect(port, host);
    socket.setTimeout(this.timeoutMs, () => socket.destroy());
    socket.on('error', () => socket.destroy());
    socket.on('connect', () => {
      const message = Buffer.alloc(16);
      message.writeInt32BE(16, 0);
      message.writeInt32BE(CANCEL_REQUEST_CODE, 4);
      message.writeInt32BE(processID, 8);
      message.writeInt32BE(secretKey, 12);
      socket.end(message);
    });
  }

  private timeout(waitingFor: string, cause?: unknown): PostgresTimeoutError {
    return new PostgresTimeoutError(`no answer within operationTimeoutMs (${this.timeoutMs} ms) waiting for ${waitingFor}`, { cause });
  }
}

/** Not a SQLSTATE: the connection itself failed (a socket error). */
function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return !(typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code));
}

/**
 * The pool a store uses: the app's (`pool` a `pg` Pool, left as it is), or its own for a connection string, whose
 * connections start with the server's timeouts a little under `bound` and which drops a wait for a connection after
 * twice it (the store's own deadline, `BoundedPool`, has answered the caller by then).
 */
export function openPool(pool: pg.Pool | string, bound: number): { pool: pg.Pool; owned: boolean } {
  if (typeof pool === 'string') {
    const problem = connectionStringProblem(pool);
    if (problem)
      throw new ElicitationConfigError(
        'store',
        `PostgresElicitationStore needs a connection string such as postgres://user@host:5432/database; it got ${problem}`,
      );
    const own = new pg.Pool({ connectionString: pool, ...serverTimeouts(bound), connectionTimeoutMillis: 2 * bound });
    own.on('error', () => undefined); // an idle client's error: the next query reports it
    return { pool: own, owned: true };
  }
  if (pool && typeof (pool as Partial<pg.Pool>).query === 'function') return { pool, owned: false };
  throw new ElicitationConfigError('store', 'PostgresElicitationStore takes a pg Pool or a connection string', { value: pool });
}
