/** Shared plumbing of the access-management endpoints (roles, policies, permissions, access, app
 * permissions): admin gate, reads through the query language under the caller's permissions (ctx.system),
 * writes through the items write service in one transaction, then the schema version bump every change
 * to access data needs (access caches are keyed on it). */
import type { ServiceContext } from '../context.ts';
import { inTransaction } from '../db/database.ts';
import { ForbiddenError } from '../errors.ts';
import { readItemData, readItems } from '../items/read.ts';
import type { Query } from '../query/types.ts';
import { loadPermissions } from './permissions.ts';
import type { Services } from '../services.ts';
import { isUuid } from '../uuid.ts';

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
export async function changeAccess<T>(services: Services, ctx: ServiceContext, fn: (trx: ServiceContext) => Promise<T>): Promise<T> {
  const result = await inTransaction(ctx.db, (trx) => fn({ ...adminLike(ctx), db: trx }));
  await services.schema.invalidate();
  return result;
}

/** The requested field list split into the fields of the table and whether a virtual relation list
 * (`policies` on roles, `permissions` on policies) is wanted. The table's primary key is always read, so the
 * list can be attached; `dropKey` says to remove it again. */
export function splitVirtual(query: Query, virtual: string, pk: string): { query: Query; wanted: boolean; dropKey: boolean } {
  if (!query.fields) return { query, wanted: true, dropKey: false };
  const fields = query.fields.filter((f) => f !== virtual && !f.startsWith(`${virtual}.`));
  const wanted = fields.length !== query.fields.length || fields.includes('*');
  const hasKey = fields.includes('*') || fields.includes(pk);
  const out = wanted && !hasKey ? [...fields, pk] : fields;
  return { query: { ...query, fields: out.length > 0 ? out : [pk] }, wanted, dropKey: wanted && !hasKey };
}

/** List and single reads of a collection that answers a virtual to-many field (`policies` on roles,
 * `permissions` on policies): rows are read through the query language, then `attach` fills the field. */
export function readersWithVirtual(
  collection: string, virtual: string,
  attach: (ctx: ServiceContext, rows: RecordData[], dropKey: boolean) => Promise<void>,
): {
  list(ctx: ServiceContext, query: Query): Promise<{ data: RecordData[]; meta?: RecordData }>;
  read(ctx: ServiceContext, id: string, query: Query): Promise<RecordData>;
} {
  return {
    async list(ctx, query) {
      const split = splitVirtual(query, virtual, 'id');
      const result = await readRecords(ctx, collection, split.query);
      if (split.wanted && !query.aggregate) await attach(ctx, result.data, split.dropKey);
      return result;
    },
    async read(ctx, id, query) {
      if (!isUuid(id)) throw new ForbiddenError();
      const split = splitVirtual(query, virtual, 'id');
      const row = await readRecord(ctx, collection, id, split.query);
      if (split.wanted) await attach(ctx, [row], split.dropKey);
      return row;
    },
  };
}
