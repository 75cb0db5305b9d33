/** Kysely driver for a Postgres server through a `pg` pool. Statements the query compiler marks with a
 * leading PREPARE_MARK are run as named prepared statements, so hot read shapes are parsed and planned
 * once per connection. */
import pg from 'pg';
import {
  CompiledQuery, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler,
  type DatabaseConnection, type Dialect, type Driver, type Kysely, type QueryResult,
} from 'kysely';
import { SqlTransactions } from './sql-transactions.ts';

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

class PgConnection implements DatabaseConnection {
  constructor(readonly client: pg.PoolClient) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const name = statementName(query.sql);
    const res = await this.client.query<R & pg.QueryResultRow>({ text: query.sql, values: query.parameters as unknown[], name });
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
    return new PgConnection(await this.pool.connect());
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

export function createPool(url: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, options: '-c TimeZone=UTC', connectionTimeoutMillis: 5000 });
  // An idle client losing its server must not crash the process; the next checkout reconnects.
  pool.on('error', () => {});
  return pool;
}
