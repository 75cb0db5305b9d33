/** GET /schedules and GET /schedules/{id}. Admins read every schedule with the whole query language; others need
 * versioning:view and see the schedules of items they may read (the item collection's row filter decides, as for
 * versions: core/access/item-visibility.ts; a publish of new content, with no row yet, is visible to the
 * collection's readers). Their query is limited to the direct fields of svc_schedules: no relational paths into
 * svc_versions or svc_users, which they read through their own endpoints under their own rules. */
import { requireAppPermission } from '../access/app-permissions.ts';
import { itemVisibility } from '../access/item-visibility.ts';
import { loadPermissions, type PermissionSet } from '../access/permissions.ts';
import type { ServiceContext } from '../context.ts';
import { ForbiddenError } from '../errors.ts';
import { planContext, readItemData, readItems } from '../items/read.ts';
import type { RowScope } from '../query/plan-types.ts';
import type { Filter, Query } from '../query/types.ts';
import { requireViewer } from '../versions/access.ts';
import { refuseShares } from './access.ts';
import { COLLECTION, loadSchedule } from './table.ts';
import { SCHEDULE_FIELDS } from './types.ts';

const DIRECT = new Set<string>(SCHEDULE_FIELDS);

function elevated(ctx: ServiceContext): ServiceContext {
  return { ...ctx, system: true, accountability: { ...ctx.accountability, admin: true } };
}

function deny(what: string): never {
  throw new ForbiddenError(`You don't have permission to access "${what}" of schedules.`);
}

function checkFilter(filter: Filter): void {
  for (const [key, value] of Object.entries(filter)) {
    if (key === '_and' || key === '_or') {
      if (Array.isArray(value)) for (const part of value) if (part && typeof part === 'object') checkFilter(part as Filter);
      continue;
    }
    if (!DIRECT.has(key)) deny(key);
    if (value && typeof value === 'object') {
      for (const op of Object.keys(value)) if (!op.startsWith('_')) deny(`${key}.${op}`);
    }
  }
}

/** A non-admin's query: direct fields only, no deep. */
export function checkScheduleQuery(query: Query): void {
  for (const f of query.fields ?? []) if (f !== '*' && !DIRECT.has(f)) deny(f);
  for (const s of query.sort ?? []) if (!DIRECT.has(s.startsWith('-') ? s.slice(1) : s)) deny(s);
  if (query.deep && Object.keys(query.deep).length > 0) deny('deep');
  for (const list of Object.values(query.aggregate ?? {})) for (const f of list ?? []) if (f !== '*' && !DIRECT.has(f)) deny(f);
  for (const f of query.groupBy ?? []) if (!DIRECT.has(f)) deny(f);
  if (query.filter) checkFilter(query.filter);
}

/** The schedules a non-admin may see, as a row scope of svc_schedules. */
function visibleSchedules(ctx: ServiceContext, permissions: PermissionSet): RowScope {
  const visible = itemVisibility(planContext(ctx, permissions), ctx.schema.collections[COLLECTION], { newContent: true, include: (c) => !c.system });
  return new Map([[COLLECTION, visible]]);
}

/** `{"data":[...],"meta"?:{...}}` as JSON text. */
export async function listSchedules(ctx: ServiceContext, query: Query): Promise<string> {
  refuseShares(ctx);
  if (ctx.accountability.admin) return readItems(elevated(ctx), COLLECTION, query);
  await requireAppPermission(ctx, 'versioning:view');
  checkScheduleQuery(query);
  return readItems(elevated(ctx), COLLECTION, query, visibleSchedules(ctx, await loadPermissions(ctx)));
}

/** One schedule as `{"data":{...}}` text; FORBIDDEN when missing or not visible. */
export async function readSchedule(ctx: ServiceContext, id: string, query: Query): Promise<string> {
  refuseShares(ctx);
  const row = await loadSchedule(ctx.db, id);
  if (!row) {
    await requireAppPermission(ctx, 'versioning:view');
    throw new ForbiddenError();
  }
  await requireViewer(ctx, row.collection);
  let text: string | null;
  if (ctx.accountability.admin) {
    text = await readItemData(elevated(ctx), COLLECTION, row.id, query);
  } else {
    checkScheduleQuery(query);
    text = await readItemData(elevated(ctx), COLLECTION, row.id, query, visibleSchedules(ctx, await loadPermissions(ctx)));
  }
  if (text === null) throw new ForbiddenError();
  return `{"data":${text}}`;
}
