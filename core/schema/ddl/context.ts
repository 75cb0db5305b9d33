/** What schema-management calls receive, and the one way DDL runs: a transaction holding the schema lock,
 * validated against an overview read inside that transaction, and a cache invalidation after commit. */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Kysely, Transaction } from 'kysely';
import type { Accountability } from '../../access/accountability.ts';
import type { Config } from '../../config.ts';
import { inTransaction, run } from '../../db/database.ts';
import { allowLongStatements, withLongStatements } from '../../db/statement-budget.ts';
import { ForbiddenError, InvalidPayloadError, mapDatabaseError, ServiceError } from '../../errors.ts';
import type { SchemaCache } from '../cache.ts';
import { loadSchemaOverview } from '../load.ts';
import type { SchemaOverview } from '../types.ts';
import { buildFieldIndexes, reconcileSearchIndexes, type IndexJob } from './indexes.ts';

export interface SchemaServiceContext {
  db: Kysely<any>;
  cache: SchemaCache;
  accountability: Accountability;
  config: Config;
}

export interface DdlScope {
  trx: Transaction<any>;
  /** The overview as of the start of this transaction (after the lock), not updated by the change itself. */
  schema: SchemaOverview;
  /** Indexes to build after commit, outside the transaction (core/schema/ddl/indexes.ts). */
  indexJobs: IndexJob[];
}

export function requireAdmin(ctx: SchemaServiceContext): void {
  if (!ctx.accountability.admin) throw new ForbiddenError();
}

/** Runs fn under the schema lock in one transaction; after commit bumps the schema version everywhere and
 * returns fn's result with the fresh overview. */
export async function withSchemaChange<T>(ctx: SchemaServiceContext, fn: (scope: DdlScope) => Promise<T>): Promise<{ result: T; schema: SchemaOverview }> {
  requireAdmin(ctx);
  const indexJobs: IndexJob[] = [];
  const result = await inTransaction(ctx.db, async (trx) => {
    // A table rewrite, a constraint check over every row, or waiting for another schema change's lock may take
    // longer than an ordinary statement: the change runs with DB_LONG_STATEMENT_TIMEOUT.
    await allowLongStatements(trx, ctx.config);
    await run(trx, "select pg_advisory_xact_lock(hashtext('svc_schema'))");
    const schema = await loadSchemaOverview(trx, 'ddl');
    return fn({ trx, schema, indexJobs });
  });
  let failure: unknown = null;
  if (indexJobs.length) {
    await withLongStatements(ctx.db, ctx.config, (db) => buildFieldIndexes(db, indexJobs)).catch((err: unknown) => { failure = err; });
  }
  const schema = await ctx.cache.invalidate();
  await withLongStatements(ctx.db, ctx.config, (db) => reconcileSearchIndexes(db, schema)).catch((err: unknown) => { failure ??= err; });
  if (failure) throw failure;
  return { result, schema };
}

/** Collects the DDL statements run inside `ddlRecorder.run(list, fn)` (a schema apply's dry run prints them). */
export const ddlRecorder = new AsyncLocalStorage<string[]>();

/** Runs one DDL statement; a Postgres refusal (bad cast, incompatible types, existing data that breaks
 * the new rule) is the caller's mistake, so it becomes INVALID_PAYLOAD rather than a 500. */
export async function ddl(trx: Transaction<any>, sql: string, params: readonly unknown[] = []): Promise<void> {
  ddlRecorder.getStore()?.push(sql.replace(/\s+/g, ' '));
  try {
    await run(trx, sql, params);
  } catch (err) {
    const mapped = mapDatabaseError(err);
    if (mapped instanceof ServiceError) throw mapped;
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && /^(22|23|42|0A)/.test(code)) {
      throw new InvalidPayloadError('The schema change is not possible with this table or its data.', {}, String((err as Error).message));
    }
    throw err;
  }
}
