/** Resolving `{collection}` of an items request: unknown or folder -> 404, svc_* -> admins only (unless a
 * system-collection endpoint calls, ctx.system: then permissions decide). */
import type { ServiceContext } from '../context.ts';
import { CollectionNotFoundError, ForbiddenError } from '../errors.ts';
import type { CollectionOverview } from '../schema/types.ts';

export function itemsCollection(ctx: ServiceContext, name: string): CollectionOverview {
  const collection = Object.hasOwn(ctx.schema.collections, name) ? ctx.schema.collections[name] : undefined;
  if (!collection || collection.folder || !collection.primary) throw new CollectionNotFoundError(name);
  if (collection.system && !ctx.accountability.admin && !ctx.system) throw new ForbiddenError();
  return collection;
}
