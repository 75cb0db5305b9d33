/** What the items read path may read for a caller: its read permissions and, for a share token, a row scope.
 * A share token reads with the share's role's read permissions, limited to the collections in the share's
 * reach, and the reach itself as a row scope for the planner (share-reach.ts). The read path keeps the top
 * level to the shared collection (core/items/read.ts); nested reads and relational filters go as far as the
 * reach. Writes stay refused (core/items/write/context.ts), and every other caller of loadPermissions still
 * sees only the shared item. Built here, in the permission engine, so items/ never reaches into shares/. */
import type { Accountability } from './accountability.ts';
import { loadPermissions, type PermissionSet } from './permissions.ts';
import type { ServiceContext } from '../context.ts';
import { ForbiddenError, InvalidQueryError } from '../errors.ts';
import type { RowScope } from '../query/plan-types.ts';
import { coerceScalar } from '../query/filter-values.ts';
import { shareReach } from './share-reach.ts';

export type ShareScope = NonNullable<Accountability['share']>;

export interface ShareReadAccess {
  permissions: PermissionSet;
  scope: RowScope;
}

/** The caller's read permissions, with the share's reach as row scope when the caller is a share token. */
export async function readAccess(ctx: ServiceContext): Promise<{ permissions: PermissionSet; scope: RowScope | undefined }> {
  const share = ctx.accountability.share;
  return share ? shareReadAccess(ctx, share) : { permissions: await loadPermissions(ctx), scope: undefined };
}

export async function shareReadAccess(ctx: ServiceContext, share: ShareScope): Promise<ShareReadAccess> {
  // The role's own permissions: the same accountability without the share (admin and app are already off).
  const role = await loadPermissions({ ...ctx, accountability: { ...ctx.accountability, share: null } });
  const root = Object.hasOwn(ctx.schema.collections, share.collection) ? ctx.schema.collections[share.collection] : undefined;
  if (!root || root.folder || !root.primary) throw new ForbiddenError();
  let key: unknown;
  try {
    key = coerceScalar(root.fields[root.primary], share.item);
  } catch (err) {
    // A share of a key its collection cannot hold reads nothing.
    if (err instanceof InvalidQueryError) throw new ForbiddenError();
    throw err;
  }
  const scope = shareReach(ctx.schema, role, root, key, ctx.config.maxRelationalDepth);
  return {
    scope,
    permissions: {
      clockDependent: role.clockDependent,
      get: (collection, action) => (action === 'read' && scope.has(collection) ? role.get(collection, 'read') : null),
    },
  };
}
