/** Who may create a share or repoint one (Directus' SharesService: validateAccess with action `share`). Admins
 * are exempt. Anyone else needs, for the share as it will be stored:
 * - `share` and `read` permission on the shared item's collection, with the item existing and passing both
 *   permissions' row filters: a share exposes only an item its creator may read and may share;
 * - as its role their own role, or none: a share token acts as its role (read-access.ts), so another role
 *   could read rows and fields its creator may not. A share without a role reads nothing.
 * A refusal is FORBIDDEN and nothing is written. Updates are checked when they set `collection`, `item` or
 * `role`, against the row merged with the change (repointing someone else's share keeps that share's role). */
import type { PermissionSet, ResolvedPermission } from '../access/permissions.ts';
import { loadPermissions } from '../access/permissions.ts';
import type { ServiceContext } from '../context.ts';
import { run } from '../db/database.ts';
import { ForbiddenError, InvalidPayloadError, InvalidQueryError } from '../errors.ts';
import { planContext } from '../items/read.ts';
import { isPlainObject } from '../items/write/payload.ts';
import { applyPresets } from '../items/write/presets.ts';
import type { PrimaryKey } from '../items/write/types.ts';
import { compileOne } from '../query/compile-select.ts';
import { coerceScalar } from '../query/filter-values.ts';
import { planRead } from '../query/plan.ts';

export const SHARES = 'svc_shares';

/** The fields that decide what a share exposes and as whom. */
const TARGET_FIELDS = ['collection', 'item', 'role'] as const;

interface ShareTarget { collection: unknown; item: unknown; role: unknown }

/** True when an update payload changes what a share exposes. */
export function touchesTarget(data: unknown): boolean {
  return isPlainObject(data) && TARGET_FIELDS.some((f) => Object.hasOwn(data, f));
}

/** Checks new shares (one payload or an array, as POST /shares takes them). Non-objects are left to the write
 * path's own answer, as is a caller without create permission on svc_shares. */
export async function checkShareCreate(ctx: ServiceContext, payload: unknown): Promise<void> {
  if (ctx.accountability.admin) return;
  const permissions = await loadPermissions(ctx);
  const create = permissions.get(SHARES, 'create');
  if (!create) return;
  for (const item of Array.isArray(payload) ? payload : [payload]) {
    if (!isPlainObject(item)) continue;
    // Presets fill what the payload leaves out, so they are part of the share as stored.
    const data = create.presets ? applyPresets(create.presets, item, ctx.accountability) : item;
    await checkTarget(ctx, permissions, { collection: data.collection, item: data.item, role: data.role });
  }
}

/** Checks updates of the shares `keys` with `data` (each batch entry carries its own key and data). */
export async function checkShareUpdate(ctx: ServiceContext, changes: { key: unknown; data: unknown }[]): Promise<void> {
  if (ctx.accountability.admin) return;
  const relevant = changes.filter((c) => touchesTarget(c.data) && typeof c.key === 'string');
  if (relevant.length === 0) return;
  const permissions = await loadPermissions(ctx);
  // Without update permission the write path refuses on its own.
  if (!permissions.get(SHARES, 'update')) return;
  const rows = await run<{ id: string; collection: string; item: string; role: string | null }>(ctx.db,
    'select id::text as id, collection, item, role::text as role from svc_shares where id::text = any($1::text[])',
    [relevant.map((c) => (c.key as string).toLowerCase())]);
  const stored = new Map(rows.map((r) => [r.id, r]));
  for (const { key, data } of relevant) {
    const row = stored.get((key as string).toLowerCase());
    // A missing share is the write path's FORBIDDEN.
    if (!row) continue;
    const change = data as Record<string, unknown>;
    const pick = (f: (typeof TARGET_FIELDS)[number]): unknown => (Object.hasOwn(change, f) ? change[f] : row[f]);
    await checkTarget(ctx, permissions, { collection: pick('collection'), item: pick('item'), role: pick('role') });
  }
}

async function checkTarget(ctx: ServiceContext, permissions: PermissionSet, target: ShareTarget): Promise<void> {
  const { role } = target;
  if (role !== undefined && role !== null && role !== ctx.accountability.role) {
    throw new ForbiddenError('A share may only act as your own role.');
  }
  if (typeof target.collection !== 'string') {
    throw new InvalidPayloadError('Invalid payload. "collection" must be a string.', { collection: SHARES, field: 'collection' });
  }
  if (typeof target.item !== 'string') {
    throw new InvalidPayloadError('Invalid payload. "item" must be the primary key of the item, as a string.', { collection: SHARES, field: 'item' });
  }
  await requireShareableItem(ctx, permissions, target.collection, target.item);
}

function bothFilters(read: ResolvedPermission, share: ResolvedPermission): ResolvedPermission['filter'] {
  if (!read.filter) return share.filter;
  if (!share.filter) return read.filter;
  return { _and: [read.filter, share.filter] };
}

/** FORBIDDEN unless the item exists and passes the caller's read and share row filters. */
async function requireShareableItem(ctx: ServiceContext, permissions: PermissionSet, name: string, item: string): Promise<void> {
  const collection = Object.hasOwn(ctx.schema.collections, name) ? ctx.schema.collections[name] : undefined;
  if (!collection || collection.folder || !collection.primary) throw new ForbiddenError(`You may not share items of "${name}".`);
  const read = permissions.get(name, 'read');
  const share = permissions.get(name, 'share');
  if (!read || !share) throw new ForbiddenError(`You may not share items of "${name}".`);
  let key: PrimaryKey;
  try {
    key = coerceScalar(collection.fields[collection.primary], item) as PrimaryKey;
  } catch (err) {
    // A key the collection cannot hold names no item the caller may read.
    if (err instanceof InvalidQueryError) throw new ForbiddenError();
    throw err;
  }
  // The item read under one permission whose row filter is both rules (permission filters are trusted by the
  // planner, as on every read); only the key is selected, so the field list plays no part.
  const both: ResolvedPermission = { filter: bothFilters(read, share), fields: null, validation: null, presets: null };
  const scoped: PermissionSet = {
    clockDependent: permissions.clockDependent,
    get: (c, action) => (c === name && action === 'read' ? both : permissions.get(c, action)),
  };
  const plan = planRead(planContext(ctx, scoped), name, { fields: [collection.primary] });
  const statement = compileOne(plan.select!, key);
  const [row] = await run<{ data: string | null }>(ctx.db, statement.sql, statement.params);
  if (row.data === null) throw new ForbiddenError();
}
