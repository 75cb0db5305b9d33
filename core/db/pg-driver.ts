/** Kysely driver for a Postgres server through a `pg` pool. Statements the query compiler marks with a
 * leading PREPARE_MARK are run as named prepared statements, so hot read shapes are parsed and planned
 * once per connection. */
import pg from 'pg';
import {
  CompiledQuery, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler,
  type DatabaseConnection, type Dialect, type Driver, type Kysely, type QueryResult,
} from 'kysely';
import { idleTransactionEndedError } from '../errors.ts';
import { connectionLostError, isConnectionLoss } from './connection-loss.ts';
import { SqlTransactions } from './sql-transactions.ts';
import { noteStatement } from './statement-observers.ts';

export const PREPARE_MARK = '/*p*/';
const MAX_NAMED = 2000;
const statementNames = new Map<string, string>();

function statementName(sql: string): string | undefined {
  if (!sql.startsWith(PREPARE_MARK)) return undefined;
  let name = statementNames.get(sql);
  if (name === undefined && statementNames.size < MAX_NAMED) {
    name = `svc_${statementNames.size}`;
    statementNames.set(sql, name);
  }
  return name;
}

const INT8 = 20;
pg.types.setTypeParser(INT8, (v: string) => {
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : v;
});

/** Clients whose session the server ended for sitting idle in a transaction (SQLSTATE 25P03): their next statement
 * fails with pg's generic "not queryable", which is reported as what happened instead. */
const endedIdle = new WeakSet<pg.ClientBase>();
const IDLE_IN_TRANSACTION_TIMEOUT = '25P03';

class PgConnection implements DatabaseConnection {
  constructor(readonly client: pg.PoolClient) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    noteStatement(query.sql);
    const name = statementName(query.sql);
    let res: pg.QueryResult<R & pg.QueryResultRow>;
    try {
      res = await this.client.query<R & pg.QueryResultRow>({ text: query.sql, values: query.parameters as unknown[], name });
    } catch (err) {
      if (endedIdle.has(this.client)) throw idleTransactionEndedError(err instanceof Error ? err.message : String(err));
      throw isConnectionLoss(err) ? connectionLostError(err) : err;
    }
    const isWrite = res.command === 'INSERT' || res.command === 'UPDATE' || res.command === 'DELETE' || res.command === 'MERGE';
    return { rows: res.rows ?? [], ...(isWrite && res.rowCount !== null ? { numAffectedRows: BigInt(res.rowCount) } : {}) };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not used');
  }
}

class PgDriver extends SqlTransactions implements Driver {
  constructor(private readonly pool: pg.Pool) {
    super();
  }

  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    try {
      return new PgConnection(await this.pool.connect());
    } catch (err) {
      // Whatever keeps a connection from being made (refused, timed out, the database not accepting
      // connections during a restart) makes the service unavailable, not the request wrong.
      throw connectionLostError(err);
    }
  }
  async releaseConnection(conn: DatabaseConnection): Promise<void> {
    (conn as PgConnection).client.release();
  }
  async destroy(): Promise<void> {
    await this.pool.end();
  }
}

export class PgDialect implements Dialect {
  constructor(private readonly pool: pg.Pool) {}
  createAdapter() { return new PostgresAdapter(); }
  createDriver() { return new PgDriver(this.pool); }
  createQueryCompiler() { return new PostgresQueryCompiler(); }
  createIntrospector(db: Kysely<any>) { return new PostgresIntrospector(db); }
}

/** Every pooled connection's budgets in ms (0 = none): `statement_timeout`, and `idle_in_transaction_session_timeout`
 * (a transaction left idle longer has its session ended by the server, which rolls it back and releases its locks). */
export interface ConnectionBudget {
  statementTimeoutMs?: number;
  idleInTransactionTimeoutMs?: number;
}

export function createPool(url: string, max: number, budget: ConnectionBudget = {}): pg.Pool {
  // The budgets travel in the connection's startup message, like the time zone: the server enforces them on every
  // statement and transaction with no statement of ours per request. Work that needs longer raises them for itself
  // (core/db/statement-budget.ts).
  const { statementTimeoutMs = 0, idleInTransactionTimeoutMs = 0 } = budget;
  const pool = new pg.Pool({
    connectionString: url, max, options: '-c TimeZone=UTC', connectionTimeoutMillis: 5000,
    ...(statementTimeoutMs > 0 ? { statement_timeout: statementTimeoutMs } : {}),
    ...(idleInTransactionTimeoutMs > 0 ? { idle_in_transaction_session_timeout: idleInTransactionTimeoutMs } : {}),
  });
  // A client losing its server (a terminated backend, a restart, a failover) emits 'error'. The pool listens
  // only while a client is idle; a checked-out client between two statements of a transaction would crash
  // the process with an unhandled 'error' event. Every client gets its own listener for its whole life: the
  // statement in flight fails on its own (-> 503), and the pool discards the client on release because it is
  // no longer queryable, so the next request connects afresh.
  pool.on('connect', (client) => {
    client.on('error', (err: Error & { code?: unknown }) => { if (err.code === IDLE_IN_TRANSACTION_TIMEOUT) endedIdle.add(client); });
  });
  pool.on('error', () => {});
  return pool;
}
