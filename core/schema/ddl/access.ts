/** Who may read schema information: admins everything; app users the collections (and fields) their
 * policies let them read; everyone else nothing (403). */
import { resolvePermission, type ResolvedPermission } from '../../access/permissions.ts';
import type { ServiceContext } from '../../context.ts';
import { CollectionNotFoundError, ForbiddenError } from '../../errors.ts';
import type { SchemaOverview } from '../types.ts';
import type { SchemaServiceContext } from './context.ts';

export function serviceContext(ctx: SchemaServiceContext, schema: SchemaOverview): ServiceContext {
  return { db: ctx.db, schema, accountability: ctx.accountability, config: ctx.config };
}

export function requireAppAccess(ctx: SchemaServiceContext): void {
  if (!ctx.accountability.admin && !ctx.accountability.app) throw new ForbiddenError();
}

/** The read permission on a collection, or null when the caller may not read it. */
export async function readPermission(ctx: SchemaServiceContext, schema: SchemaOverview, collection: string): Promise<ResolvedPermission | null> {
  return resolvePermission(serviceContext(ctx, schema), collection, 'read');
}

/** Existence and read access of one collection: 404 for admins, 403 for others (as Directus hides it). */
export async function requireReadableCollection(ctx: SchemaServiceContext, schema: SchemaOverview, collection: string): Promise<ResolvedPermission | null> {
  requireAppAccess(ctx);
  const exists = Boolean(schema.collections[collection]);
  if (ctx.accountability.admin) {
    if (!exists) throw new CollectionNotFoundError(collection);
    return null;
  }
  const permission = exists ? await readPermission(ctx, schema, collection) : null;
  if (!permission) throw new ForbiddenError();
  return permission;
}

export function fieldAllowed(permission: ResolvedPermission | null, field: string): boolean {
  return !permission || permission.fields === null || permission.fields.has(field);
}
