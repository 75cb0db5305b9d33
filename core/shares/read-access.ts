/** What a share token may read through the items read path: the share's role's read permissions, limited to
 * the collections in the share's reach, and the reach itself as a row scope for the planner (reach.ts). The
 * read path keeps the top level to the shared collection (core/items/read.ts); nested reads and relational
 * filters go as far as the reach. Writes stay refused (core/items/write/context.ts), and every other caller
 * of loadPermissions still sees only the shared item. */
import type { Accountability } from '../access/accountability.ts';
import { loadPermissions, type PermissionSet } from '../access/permissions.ts';
import type { ServiceContext } from '../context.ts';
import { ForbiddenError, InvalidQueryError } from '../errors.ts';
import type { RowScope } from '../query/plan-types.ts';
import { coerceScalar } from '../query/filter-values.ts';
import { shareReach } from './reach.ts';

export type ShareScope = NonNullable<Accountability['share']>;

export interface ShareReadAccess {
  permissions: PermissionSet;
  scope: RowScope;
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
