/** Module-level app permissions (svc_app_permissions: policy, module, action), written `module:action`:
 * versioning:view|create|manage, workflow:view|start|participate|manage. Admins have every one. The
 * granted set of a policy combination is cached per schema version (grants and revokes bump it). The
 * admin records themselves are written in core/admin/app-permissions.ts. */
import type { ServiceContext } from '../context.ts';
import { run } from '../db/database.ts';
import { ForbiddenError } from '../errors.ts';

export const APP_PERMISSIONS = [
  'versioning:view', 'versioning:create', 'versioning:manage',
  'workflow:view', 'workflow:start', 'workflow:participate', 'workflow:manage',
] as const;
export type AppPermission = typeof APP_PERMISSIONS[number];

/** schema overview object -> sorted policy ids -> granted `module:action` set. */
const cache = new WeakMap<object, Map<string, Promise<Set<string>>>>();

function grantedSet(ctx: ServiceContext): Promise<Set<string>> {
  const policies = ctx.accountability.policies;
  if (policies.length === 0) return Promise.resolve(new Set());
  let byPolicies = cache.get(ctx.schema);
  if (!byPolicies) cache.set(ctx.schema, byPolicies = new Map());
  const key = [...policies].sort().join(',');
  let hit = byPolicies.get(key);
  if (!hit) {
    const map = byPolicies;
    hit = run<{ module: string; action: string }>(ctx.db,
      'select distinct module, action from svc_app_permissions where policy = any($1::uuid[])', [policies])
      .then((rows) => new Set(rows.map((r) => `${r.module}:${r.action}`)));
    map.set(key, hit);
    hit.catch(() => map.delete(key));
  }
  return hit;
}

/** True when the caller holds `permission` (admins always do). */
export async function hasAppPermission(ctx: ServiceContext, permission: AppPermission): Promise<boolean> {
  if (ctx.accountability.admin) return true;
  return (await grantedSet(ctx)).has(permission);
}

/** FORBIDDEN unless the caller holds `permission`. */
export async function requireAppPermission(ctx: ServiceContext, permission: AppPermission): Promise<void> {
  if (!(await hasAppPermission(ctx, permission))) throw new ForbiddenError();
}

/** The caller's app permissions, in catalogue order. */
export async function appPermissionsOfCaller(ctx: ServiceContext): Promise<string[]> {
  if (ctx.accountability.admin) return [...APP_PERMISSIONS];
  const set = await grantedSet(ctx);
  return APP_PERMISSIONS.filter((p) => set.has(p));
}
