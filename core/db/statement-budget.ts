/** The statement time budget. On a Postgres server every pooled connection starts with DB_STATEMENT_TIMEOUT as its
 * `statement_timeout` (a startup parameter, core/db/pg-driver.ts), so an ordinary request pays no statement for it;
 * a statement over it is cancelled by the server (SQLSTATE 57014, answered 503 by core/errors.ts). The few kinds of
 * work that are allowed to run longer raise it for themselves only: schema changes, index builds, imports and
 * administrators' exports to DB_LONG_STATEMENT_TIMEOUT, migrations to none.
 *
 * The embedded engine runs a statement synchronously inside this process and ignores statement_timeout (PGlite
 * has no timer signal), so nothing here applies to it; there the work a client controls is bounded before it
 * reaches the database (core/query/regex-limits.ts). */
import type { Kysely, Transaction } from 'kysely';
import type { Config } from '../config.ts';
import { run } from './database.ts';

type BudgetConfig = Pick<Config, 'databaseUrl' | 'dbStatementTimeoutMs' | 'dbLongStatementTimeoutMs'>;

/** Whether the long budget differs from the one every connection already has (a Postgres server only). */
export function hasLongBudget(config: BudgetConfig): boolean {
  return config.databaseUrl !== null && config.dbLongStatementTimeoutMs !== config.dbStatementTimeoutMs;
}

/** Gives the rest of the transaction trx the long budget (SET LOCAL: it ends with the transaction). */
export async function allowLongStatements(trx: Transaction<any>, config: BudgetConfig): Promise<void> {
  if (!hasLongBudget(config)) return;
  await run(trx, "select set_config('statement_timeout', $1, true)", [String(config.dbLongStatementTimeoutMs)]);
}

/** Runs fn on one connection of a Postgres server with `statement_timeout` set to timeoutMs (0 = none) for that
 * session, for statements that may not run inside a transaction (CREATE INDEX CONCURRENTLY) or work that opens its
 * own (migrations); the connection's own budget is restored before it goes back to the pool. fn must use only the
 * executor it is given (on the embedded engine another would wait for this one forever). */
export async function onSessionWithTimeout<T>(db: Kysely<any>, timeoutMs: number, fn: (db: Kysely<any>) => Promise<T>): Promise<T> {
  return db.connection().execute(async (conn) => {
    await run(conn, "select set_config('statement_timeout', $1, false)", [String(timeoutMs)]);
    let result: T;
    try {
      result = await fn(conn);
    } catch (err) {
      await run(conn, 'reset statement_timeout').catch(() => {});
      throw err;
    }
    // RESET returns to the value of the startup message: DB_STATEMENT_TIMEOUT.
    await run(conn, 'reset statement_timeout');
    return result;
  });
}

/** Runs fn with the long budget on one session (see onSessionWithTimeout); as is where the budget is the same. */
export async function withLongStatements<T>(db: Kysely<any>, config: BudgetConfig, fn: (db: Kysely<any>) => Promise<T>): Promise<T> {
  return hasLongBudget(config) ? onSessionWithTimeout(db, config.dbLongStatementTimeoutMs, fn) : fn(db);
}
