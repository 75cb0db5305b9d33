/** The statement time budget. On a Postgres server every pooled connection starts with DB_STATEMENT_TIMEOUT as its
 * `statement_timeout` and DB_IDLE_IN_TRANSACTION_TIMEOUT as its `idle_in_transaction_session_timeout` (startup
 * parameters, core/db/pg-driver.ts), so every transaction of every path (REST, GraphQL, extensions' items API, the
 * notification and tus workers, workflows) runs under them and an ordinary request pays no statement for them. A
 * statement over the budget is cancelled by the server (SQLSTATE 57014, answered 503 by core/errors.ts) and its
 * transaction rolled back; a transaction left idle longer has its session ended (SQLSTATE 25P03, 503 as well), which
 * rolls it back and releases its locks. The few kinds of work that are allowed to run longer raise both for
 * themselves only: schema changes, index builds, imports and administrators' exports to DB_LONG_STATEMENT_TIMEOUT,
 * migrations to none.
 *
 * The embedded engine ignores both (PGlite runs a statement synchronously and has no timer signal), so nothing here
 * applies to it; it runs in a worker thread (core/db/pglite-worker.ts), so a slow statement holds the engine but not
 * the event loop, and the work a client controls is bounded before it reaches the database
 * (core/query/regex-limits.ts). */
import type { Kysely, Transaction } from 'kysely';
import type { Config } from '../config.ts';
import { run } from './database.ts';

type BudgetConfig = Pick<Config, 'databaseUrl' | 'dbStatementTimeoutMs' | 'dbLongStatementTimeoutMs' | 'dbIdleInTransactionTimeoutMs'>;

/** The idle time a transaction with the long budget may take: DB_LONG_STATEMENT_TIMEOUT, never less than the ordinary
 * one, none when either is off. */
function longIdleMs(config: BudgetConfig): number {
  const idle = config.dbIdleInTransactionTimeoutMs;
  return idle === 0 || config.dbLongStatementTimeoutMs === 0 ? 0 : Math.max(idle, config.dbLongStatementTimeoutMs);
}

/** Whether the long budget differs from the ones every connection already has (a Postgres server only). */
export function hasLongBudget(config: BudgetConfig): boolean {
  return config.databaseUrl !== null && (config.dbLongStatementTimeoutMs !== config.dbStatementTimeoutMs
    || longIdleMs(config) !== config.dbIdleInTransactionTimeoutMs);
}

/** Gives the rest of the transaction trx the long budget, for its statements and for its idle time between them (an
 * import reading its upload, an export waiting for its client): SET LOCAL, so it ends with the transaction. */
export async function allowLongStatements(trx: Transaction<any>, config: BudgetConfig): Promise<void> {
  if (!hasLongBudget(config)) return;
  await run(trx, "select set_config('statement_timeout', $1, true), set_config('idle_in_transaction_session_timeout', $2, true)",
    [String(config.dbLongStatementTimeoutMs), String(longIdleMs(config))]);
}

/** Runs fn on one connection of a Postgres server with `statement_timeout` and `idle_in_transaction_session_timeout`
 * set to timeoutMs (0 = none) for that session, for statements that may not run inside a transaction (CREATE INDEX CONCURRENTLY) or work that opens its
 * own (migrations); the connection's own budget is restored before it goes back to the pool. fn must use only the
 * executor it is given (on the embedded engine another would wait for this one forever). */
export async function onSessionWithTimeout<T>(db: Kysely<any>, timeoutMs: number, fn: (db: Kysely<any>) => Promise<T>): Promise<T> {
  return db.connection().execute(async (conn) => {
    await run(conn, "select set_config('statement_timeout', $1, false), set_config('idle_in_transaction_session_timeout', $1, false)", [String(timeoutMs)]);
    let result: T;
    try {
      result = await fn(conn);
    } catch (err) {
      await resetBudgets(conn).catch(() => {});
      throw err;
    }
    await resetBudgets(conn);
    return result;
  });
}

/** RESET returns to the values of the startup message: DB_STATEMENT_TIMEOUT and DB_IDLE_IN_TRANSACTION_TIMEOUT. */
async function resetBudgets(conn: Kysely<any>): Promise<void> {
  await run(conn, 'reset statement_timeout');
  await run(conn, 'reset idle_in_transaction_session_timeout');
}

/** Runs fn with the long budget on one session (see onSessionWithTimeout); as is where the budget is the same. */
export async function withLongStatements<T>(db: Kysely<any>, config: BudgetConfig, fn: (db: Kysely<any>) => Promise<T>): Promise<T> {
  return hasLongBudget(config) ? onSessionWithTimeout(db, config.dbLongStatementTimeoutMs, fn) : fn(db);
}
