/** Kysely driver for the embedded PGlite engine running in a worker thread (core/db/pglite-worker.ts), so a
 * statement's work never blocks this thread's event loop: one connection, serialized through a mutex so two
 * requests can never interleave inside one another's transaction. */
import {
  Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler,
  type CompiledQuery, type DatabaseConnection, type Dialect, type Driver, type QueryResult,
} from 'kysely';
import { Mutex } from './mutex.ts';
import { PgliteWorker, type EngineOptions } from './pglite-worker.ts';
import { SqlTransactions } from './sql-transactions.ts';
import { noteStatement } from './statement-observers.ts';

class PgliteWorkerConnection implements DatabaseConnection {
  constructor(private readonly pg: PgliteWorker) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    noteStatement(query.sql);
    // Parameterless text (migrations, DDL) may hold several statements: run it on the simple protocol.
    const res = query.parameters.length === 0
      ? await this.pg.exec(query.sql)
      : await this.pg.query(query.sql, query.parameters);
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

class PgliteWorkerDriver extends SqlTransactions implements Driver {
  readonly #mutex = new Mutex();
  readonly #connection: PgliteWorkerConnection;

  constructor(private readonly pg: PgliteWorker) {
    super();
    this.#connection = new PgliteWorkerConnection(pg);
  }

  async init(): Promise<void> {
    // The worker answers only once PGlite is open (PgliteWorker.start).
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

export class PgliteWorkerDialect implements Dialect {
  constructor(private readonly pg: PgliteWorker) {}
  createAdapter() { return new PostgresAdapter(); }
  createDriver() { return new PgliteWorkerDriver(this.pg); }
  createQueryCompiler() { return new PostgresQueryCompiler(); }
  createIntrospector(db: Kysely<any>) { return new PostgresIntrospector(db); }
}

export interface WorkerDatabase {
  db: Kysely<any>;
  close(): Promise<void>;
  dump(): Promise<Blob>;
}

/** Starts the worker (PGlite with pg_trgm, the given start parameters, the time zone UTC) and a Kysely instance on it. */
export async function openPgliteInWorker(opts: EngineOptions): Promise<WorkerDatabase> {
  const engine = await PgliteWorker.start(opts);
  const db = new Kysely<any>({ dialect: new PgliteWorkerDialect(engine) });
  // Kysely destroys its driver only once it has run a statement: the worker is closed here in any case.
  return { db, close: async () => { await db.destroy(); await engine.close(); }, dump: () => engine.dump() };
}
