/** The Database port: PGlite (embedded, default) or a Postgres server through `pg`, behind one Kysely
 * instance. Every query in core/ goes through `run` with the executor it was handed (the Kysely
 * instance or a transaction), so a request's statements always share its transaction. */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { CompiledQuery, Kysely, type Transaction } from 'kysely';
import { openPgliteInWorker } from './pglite-worker-driver.ts';
import { pgliteModuleUrl } from './pglite-worker.ts';
import { PgDialect, createPool } from './pg-driver.ts';
import { openCommitQueue, runBeforeCommit, runCommitQueue, type CommitHooks } from './after-commit.ts';

/** Prefix for statement text whose shape repeats (hot reads and writes): run as a named prepared statement
 * on a Postgres server, so it is parsed and planned once per connection. */
export { PREPARE_MARK } from './pg-driver.ts';

export type Executor = Kysely<any> | Transaction<any>;

export interface Database {
  readonly kind: 'pglite' | 'pg';
  readonly db: Kysely<any>;
  close(): Promise<void>;
  /** PGlite only: a dump of the data dir (tests clone one migrated template from it). */
  dump?(): Promise<Blob>;
}

export interface DatabaseOptions {
  databaseUrl: string | null;
  dataDir?: string;
  poolMax?: number;
  /** Postgres server only: every connection's `statement_timeout` in ms (DB_STATEMENT_TIMEOUT; 0 or absent = none).
   * The embedded engine can't interrupt a statement, so it has no such budget (core/db/statement-budget.ts). */
  statementTimeoutMs?: number;
  /** Postgres server only: every connection's `idle_in_transaction_session_timeout` in ms (DB_IDLE_IN_TRANSACTION_TIMEOUT;
   * 0 or absent = none). */
  idleInTransactionTimeoutMs?: number;
  /** A PGlite data dir dump (tests clone one migrated template this way). */
  loadDataDir?: Blob | File;
  /** Keep PGlite in memory instead of under dataDir. */
  inMemory?: boolean;
  /** PGlite's WASM compiler: `baseline` compiles with Liftoff only. V8 otherwise also compiles hot functions with
   * TurboFan and keeps both codes, ~55MB more RSS, for queries up to ~30% faster. The flag is process-wide and
   * applies to WASM compiled after it is set, which here is only PGlite's. Default `optimizing`. */
  wasmCompiler?: 'baseline' | 'optimizing';
}

/** The embedded engine's memory: Postgres' shared buffers live in the WASM heap, and every page of them that is
 * touched stays resident, so initdb's 128MB default costs ~128MB of RSS. Files are read through Node's fs, which
 * the OS page cache serves, so small buffers cost little speed. */
const PGLITE_SETTINGS = ['shared_buffers=16MB', 'temp_buffers=2MB', 'maintenance_work_mem=16MB', 'work_mem=4MB'];

/** A new data dir is made (initdb) in a short-lived child process: initdb's WASM heaps (~450MB) become garbage
 * afterwards, but external memory the JS heap's GC is in no hurry to collect, so they would stay resident. */
async function initDataDir(dir: string): Promise<void> {
  if (existsSync(`${dir}/PG_VERSION`)) return;
  const code = `const { PGlite } = await import(${JSON.stringify(pgliteModuleUrl('@electric-sql/pglite'))});
    const pg = await PGlite.create(${JSON.stringify(dir)}); await pg.close();`;
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('error', reject);
    child.once('exit', (status) => (status === 0 ? resolve() : reject(new Error(`creating the embedded database in ${dir} failed (exit ${status})`))));
  });
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  if (opts.databaseUrl) {
    const pool = createPool(opts.databaseUrl, opts.poolMax ?? 10, {
      statementTimeoutMs: opts.statementTimeoutMs, idleInTransactionTimeoutMs: opts.idleInTransactionTimeoutMs,
    });
    const db = new Kysely<any>({ dialect: new PgDialect(pool) });
    return { kind: 'pg', db, close: () => db.destroy() };
  }
  // V8's flags are process-wide: set here, the flag applies to the worker's WASM compile too.
  if (opts.wasmCompiler === 'baseline') setFlagsFromString('--liftoff-only');
  let dataDir: string | undefined;
  if (!opts.inMemory && !opts.loadDataDir) {
    dataDir = opts.dataDir ?? './data';
    mkdirSync(dataDir, { recursive: true });
    dataDir = `${dataDir}/pg`;
    await initDataDir(dataDir);
  }
  // PGlite runs in a worker thread (core/db/pglite-worker.ts), with pg_trgm loaded so a collection's trigram search
  // index works on the embedded engine too, and the session's time zone set to UTC.
  const embedded = await openPgliteInWorker({
    dataDir,
    startParams: PGLITE_SETTINGS.flatMap((s) => ['-c', s]),
    ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}),
  });
  return { kind: 'pglite', ...embedded };
}

/** Runs parameterised SQL on an executor and returns its rows. */
export async function run<R = Record<string, unknown>>(ex: Executor, sql: string, params: readonly unknown[] = []): Promise<R[]> {
  const res = await ex.executeQuery<R>(CompiledQuery.raw(sql, params as unknown[]));
  return res.rows;
}

/** Runs fn inside a transaction, or inside the one already open on ex. */
export async function inTransaction<T>(ex: Executor, fn: (trx: Transaction<any>) => Promise<T>): Promise<T> {
  if (ex.isTransaction) return fn(ex as Transaction<any>);
  const opened: { hooks?: CommitHooks } = {};
  const result = await (ex as Kysely<any>).transaction().execute(async (trx) => {
    const hooks = openCommitQueue(trx);
    opened.hooks = hooks;
    const value = await fn(trx);
    // Part of the transaction: the action events of the change (core/events/bus.ts).
    if (hooks.before.length) await runBeforeCommit(hooks);
    return value;
  });
  if (opened.hooks?.after.length) runCommitQueue(opened.hooks);
  return result;
}

/** Quotes an identifier that has already been checked against the schema overview. */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
