/** GET /versions, GET /versions/{id} and GET /versions/{id}/compare. Admins read every version; others need
 * versioning:view and see the versions of items they may read, as they may read them: the item's row filter
 * decides which versions are listed (a version of an item the caller cannot read is not listed, and reading
 * or comparing it is FORBIDDEN; a draft of new content, with no row yet, is visible to the collection's
 * readers, as its preview is), and each delta is cut to the fields they may read. Their query is limited to
 * the direct fields of svc_versions (query-scope.ts). */
import { requireAppPermission } from '../access/app-permissions.ts';
import { itemVisibility } from '../access/item-visibility.ts';
import { loadPermissions, type PermissionSet } from '../access/permissions.ts';
import type { ServiceContext } from '../context.ts';
import { ForbiddenError } from '../errors.ts';
import { planContext, readItemData, readItems } from '../items/read.ts';
import type { RowScope } from '../query/plan-types.ts';
import type { Query } from '../query/types.ts';
import { requireViewer } from './access.ts';
import { readableDelta } from './readable-delta.ts';
import { checkVersionQuery } from './query-scope.ts';
import { loadVersion } from './rows.ts';
import { hashText, mainItemText, storedTarget } from './target.ts';
import type { Delta } from './types.ts';

const COLLECTION = 'svc_versions';

function elevated(ctx: ServiceContext): ServiceContext {
  return { ...ctx, system: true, accountability: { ...ctx.accountability, admin: true } };
}

type Record_ = Record<string, unknown>;

/** Fields the query must also select to cut deltas (`collection`), and whether to drop it again. */
function withCollection(query: Query): { query: Query; drop: boolean } {
  const fields = query.fields;
  if (!fields || fields.includes('*') || fields.includes('collection') || !fields.includes('delta')) return { query, drop: false };
  return { query: { ...query, fields: [...fields, 'collection'] }, drop: true };
}

function cutDelta(ctx: ServiceContext, record: Record_, permissions: PermissionSet, drop: boolean): Record_ {
  if (record.delta && typeof record.delta === 'object' && typeof record.collection === 'string') {
    record.delta = readableDelta(ctx.schema, permissions, record.collection, record.delta as Delta);
  }
  if (drop) delete record.collection;
  return record;
}

/** The versions a non-admin may see, as a row scope of svc_versions (core/access/item-visibility.ts). */
function visibleVersions(ctx: ServiceContext, permissions: PermissionSet): RowScope {
  const visible = itemVisibility(planContext(ctx, permissions), ctx.schema.collections[COLLECTION], { newContent: true, include: (c) => !c.system });
  return new Map([[COLLECTION, visible]]);
}

/** `{"data":[...],"meta"?:{...}}` as JSON text. */
export async function listVersions(ctx: ServiceContext, query: Query): Promise<string> {
  if (ctx.accountability.admin) return readItems(elevated(ctx), COLLECTION, query);
  await requireAppPermission(ctx, 'versioning:view');
  checkVersionQuery(query);
  const permissions = await loadPermissions(ctx);
  const { query: q, drop } = withCollection(query);
  const text = await readItems(elevated(ctx), COLLECTION, q, visibleVersions(ctx, permissions));
  if (query.aggregate) return text;
  const body = JSON.parse(text) as { data: Record_[]; meta?: unknown };
  body.data = body.data.map((r) => cutDelta(ctx, r, permissions, drop));
  return JSON.stringify(body);
}

/** One version as the caller may see it (`{"data":{...}}` text); FORBIDDEN when missing or not visible. */
export async function readVersion(ctx: ServiceContext, id: string, query: Query): Promise<string> {
  const version = await loadVersion(ctx.db, id);
  if (!version) {
    await requireAppPermission(ctx, 'versioning:view');
    throw new ForbiddenError();
  }
  await requireViewer(ctx, version.collection);
  if (ctx.accountability.admin) {
    const text = await readItemData(elevated(ctx), COLLECTION, version.id, query);
    if (text === null) throw new ForbiddenError();
    return `{"data":${text}}`;
  }
  checkVersionQuery(query);
  const permissions = await loadPermissions(ctx);
  const { query: q, drop } = withCollection(query);
  const text = await readItemData(elevated(ctx), COLLECTION, version.id, q, visibleVersions(ctx, permissions));
  if (text === null) throw new ForbiddenError();
  return JSON.stringify({ data: cutDelta(ctx, JSON.parse(text) as Record_, permissions, drop) });
}

/** Directus' compare: `{outdated, mainHash, current: <delta>, main: <item as the caller reads it>}`. */
export async function compareVersion(ctx: ServiceContext, id: string): Promise<Record_> {
  const version = await loadVersion(ctx.db, id);
  if (!version) {
    await requireAppPermission(ctx, 'versioning:view');
    throw new ForbiddenError();
  }
  await requireViewer(ctx, version.collection);
  const permissions = ctx.accountability.admin ? null : await loadPermissions(ctx);
  if (permissions && await readItemData(elevated(ctx), COLLECTION, version.id, { fields: ['id'] }, visibleVersions(ctx, permissions)) === null) {
    throw new ForbiddenError();
  }
  const target = storedTarget(ctx, version.collection, version.item);
  const hash = hashText(await mainItemText(ctx, target));
  const mainText = hash === null ? null : await readItemData(ctx, version.collection, target.key, { fields: ['*'] });
  return {
    outdated: hash !== version.hash,
    mainHash: hash,
    current: readableDelta(ctx.schema, permissions, version.collection, version.delta),
    main: mainText === null ? null : JSON.parse(mainText),
  };
}
