/** Kysely driver for the embedded PGlite engine: one connection, serialized through a mutex so two
 * requests can never interleave inside one another's transaction. */
import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler,
  type DatabaseConnection, type Dialect, type Driver, type Kysely, type QueryResult,
} from 'kysely';
import { Mutex } from './mutex.ts';
import { SqlTransactions } from './sql-transactions.ts';
import { noteStatement } from './statement-observers.ts';

class PgliteConnection implements DatabaseConnection {
  constructor(private readonly pg: PGlite) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    noteStatement(query.sql);
    // Parameterless text (migrations, DDL) may hold several statements: run it on the simple protocol.
    const res = query.parameters.length === 0
      ? (await this.pg.exec(query.sql)).at(-1) ?? { rows: [] as R[], affectedRows: 0 }
      : await this.pg.query<R>(query.sql, query.parameters as unknown[]);
    const affected = res.affectedRows;
    return {
      rows: res.rows as R[],
      ...(affected !== undefined && /^\s*(\/\*.*?\*\/\s*)?(insert|update|delete|merge)/i.test(query.sql)
        ? { numAffectedRows: BigInt(affected) } : {}),
    };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('PGlite driver does not stream');
  }
}

class PgliteDriver extends SqlTransactions implements Driver {
  readonly #mutex = new Mutex();
  readonly #connection: PgliteConnection;

  constructor(private readonly pg: PGlite) {
    super();
    this.#connection = new PgliteConnection(pg);
  }

  async init(): Promise<void> {
    await this.pg.waitReady;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#mutex.acquire();
    return this.#connection;
  }


  async releaseConnection(): Promise<void> {
    this.#mutex.release();
  }

  async destroy(): Promise<void> {
    await this.pg.close();
  }
}

export class PgliteDialect implements Dialect {
  constructor(private readonly pg: PGlite) {}
  createAdapter() { return new PostgresAdapter(); }
  createDriver() { return new PgliteDriver(this.pg); }
  createQueryCompiler() { return new PostgresQueryCompiler(); }
  createIntrospector(db: Kysely<any>) { return new PostgresIntrospector(db); }
}
