/** Who may do what with versions (SPEC.md > Endpoints > Versions). App permissions gate the module; item
 * permissions on the version's collection gate what the delta may hold and what a reader may see.
 *
 * | action                 | rule                                                                                  |
 * |------------------------|---------------------------------------------------------------------------------------|
 * | create                 | versioning:create, and update (item exists) or create (it does not) on the collection |
 * | list, read, compare    | versioning:view, and read on the version's item (its row filter; read.ts); the delta is cut to readable fields |
 * | update, save, submit   | the creator or an admin, with versioning:create                                       |
 * | delete                 | versioning:manage                                                                     |
 * | promote                | admin or versioning:manage; or the creator with versioning:create while no review runs |
 *                          | (status not pending); the item write then checks the caller's update/create permission |
 * | preview read           | versioning:view and read on the collection (the item read applies row and field rules) |
 */
import { hasAppPermission, requireAppPermission } from '../access/app-permissions.ts';
import { loadPermissions } from '../access/permissions.ts';
import type { ServiceContext } from '../context.ts';
import { ForbiddenError } from '../errors.ts';
import type { VersionRow } from './types.ts';

export function isCreator(ctx: ServiceContext, version: VersionRow): boolean {
  return ctx.accountability.user !== null && ctx.accountability.user === version.user_created;
}

/** The creator (or an admin) holding versioning:create. */
export async function requireAuthor(ctx: ServiceContext, version: VersionRow): Promise<void> {
  if (!ctx.accountability.admin && !isCreator(ctx, version)) throw new ForbiddenError();
  await requireAppPermission(ctx, 'versioning:create');
}

export async function requirePromoter(ctx: ServiceContext, version: VersionRow): Promise<void> {
  if (await hasAppPermission(ctx, 'versioning:manage')) return;
  if (isCreator(ctx, version) && version.status !== 'pending' && await hasAppPermission(ctx, 'versioning:create')) return;
  throw new ForbiddenError();
}

/** The fields of `collection` the caller may read (null = all), or FORBIDDEN without read permission. */
export async function readableFields(ctx: ServiceContext, collection: string): Promise<Set<string> | null> {
  if (ctx.accountability.admin) return null;
  const permission = (await loadPermissions(ctx)).get(collection, 'read');
  if (!permission) throw new ForbiddenError();
  return permission.fields;
}

/** versioning:view and read permission on the version's collection. */
export async function requireViewer(ctx: ServiceContext, collection: string): Promise<Set<string> | null> {
  await requireAppPermission(ctx, 'versioning:view');
  return readableFields(ctx, collection);
}
