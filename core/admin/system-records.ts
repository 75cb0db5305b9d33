/** Shared plumbing of the access-management endpoints (roles, policies, permissions, access, app
 * permissions): admin gate, reads through the query language under the caller's permissions (ctx.system),
 * writes through the items write service in one transaction (so each is recorded in activity and revisions,
 * cascades included), then the schema version bump every change to access data needs (access caches are
 * keyed on it). */
import type { ServiceContext } from '../context.ts';
import { ident, inTransaction, run } from '../db/database.ts';
import { ForbiddenError } from '../errors.ts';
import { readItemData, readItems } from '../items/read.ts';
import { deleteItems, updateItems } from '../items/write/index.ts';
import type { Query } from '../query/types.ts';
import { loadPermissions } from '../access/permissions.ts';
import type { SchemaPort } from '../ports.ts';

export type RecordData = Record<string, unknown>;

export function requireAdmin(ctx: ServiceContext): void {
  if (!ctx.accountability.admin) throw new ForbiddenError();
}

/** The caller with permission checks lifted: used for writes an admin already passed requireAdmin for. */
export function adminLike(ctx: ServiceContext): ServiceContext {
  return { ...ctx, accountability: { ...ctx.accountability, admin: true } };
}

/** Reads of svc_ collections through their dedicated endpoints: permissions decide (explicit records, or the
 * built-in app-access grants: own roles, own policies, their access rows and permissions). */
function systemRead(ctx: ServiceContext): ServiceContext {
  return { ...ctx, system: true };
}

/** True when the caller may read the collection at all (for attaching related lists). */
export async function canRead(ctx: ServiceContext, collection: string): Promise<boolean> {
  return ctx.accountability.admin || (await loadPermissions(ctx)).get(collection, 'read') !== null;
}

/** A list read: `{data, meta?}` parsed. */
export async function readRecords(ctx: ServiceContext, collection: string, query: Query): Promise<{ data: RecordData[]; meta?: RecordData }> {
  return JSON.parse(await readItems(systemRead(ctx), collection, query)) as { data: RecordData[]; meta?: RecordData };
}

/** One record, or FORBIDDEN (missing and invisible look the same, as Directus answers). */
export async function readRecord(ctx: ServiceContext, collection: string, key: string | number, query: Query): Promise<RecordData> {
  const data = await readItemData(systemRead(ctx), collection, key, query);
  if (data === null) throw new ForbiddenError();
  return JSON.parse(data) as RecordData;
}

/** Runs an access-data change in one transaction, then bumps the schema version (after commit: the
 * reload reads through the root connection). */
export async function changeAccess<T>(services: SchemaPort, ctx: ServiceContext, fn: (trx: ServiceContext) => Promise<T>): Promise<T> {
  const result = await inTransaction(ctx.db, (trx) => fn({ ...adminLike(ctx), db: trx }));
  await services.schema.invalidate();
  return result;
}

/** Writes every row of `collection` whose `field` is `value` through the items service (deleted with
 * `change` null, else updated with it), so each is recorded in activity like a direct write: what a foreign
 * key's cascade would do silently. Batches stay within MAX_BATCH_MUTATION. */
export async function cascade(trx: ServiceContext, collection: string, field: string, value: string, change: RecordData | null): Promise<void> {
  const c = trx.schema.collections[collection];
  const rows = await run<{ pk: string | number | bigint }>(trx.db,
    `select ${ident(c.primary!)} as pk from ${ident(collection)} where ${ident(field)} = $1 order by 1`, [value]);
  const max = trx.config.maxBatchMutation;
  for (let i = 0; i < rows.length; i += max) {
    const keys = rows.slice(i, i + max).map((r) => (typeof r.pk === 'bigint' ? String(r.pk) : r.pk));
    if (change) await updateItems(trx, collection, keys, change);
    else await deleteItems(trx, collection, keys);
  }
}
