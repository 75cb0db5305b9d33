/** Shared plumbing of the notify admin services: reads through the items read service (standard query,
 * permissions) parsed, one-record reads with the not-found rule, and writes in one transaction through the
 * items write service (activity and revisions recorded; events after commit). */
import type { ServiceContext } from '../context.ts';
import { inTransaction } from '../db/database.ts';
import { ForbiddenError, NotFoundError } from '../errors.ts';
import { readItemData, readItems, type QueryInput, type PrimaryKey } from '../items/read.ts';
import type { Query } from '../query/types.ts';
import { notifyContext } from './admin-access.ts';

export type Row = Record<string, unknown>;

export async function listRecords(ctx: ServiceContext, collection: string, input: QueryInput | Query): Promise<{ data: Row[]; meta?: Row }> {
  return JSON.parse(await readItems(notifyContext(ctx), collection, input)) as { data: Row[]; meta?: Row };
}

/** One record. Missing: 404 for admins; for others missing and invisible look the same (403), as Directus
 * answers for items. */
export async function oneRecord(ctx: ServiceContext, collection: string, key: PrimaryKey, input: QueryInput | Query, label: string): Promise<Row> {
  const text = await readItemData(notifyContext(ctx), collection, key, input);
  if (text === null) {
    if (ctx.accountability.admin) throw new NotFoundError(`${label} "${String(key).slice(0, 128)}" doesn't exist.`);
    throw new ForbiddenError();
  }
  return JSON.parse(text) as Row;
}

export function notFound(ctx: ServiceContext, label: string, key: PrimaryKey): never {
  if (ctx.accountability.admin) throw new NotFoundError(`${label} "${String(key).slice(0, 128)}" doesn't exist.`);
  throw new ForbiddenError();
}

/** Runs a change in one transaction with a context bound to it (ctx.system set). */
export async function inNotifyTransaction<T>(ctx: ServiceContext, fn: (trx: ServiceContext) => Promise<T>): Promise<T> {
  return inTransaction(ctx.db, (trx) => fn({ ...notifyContext(ctx), db: trx }));
}

export function nowIso(): string {
  return new Date().toISOString();
}
