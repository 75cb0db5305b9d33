/** A user's own saved views: svc_presets rows whose `user` is the caller are theirs to change and remove, as in
 * Directus' app. Row filters bind reads only here (SPEC.md > Permission evaluation 5), so this is not a built-in
 * update/delete grant with an own-rows filter (core/access/builtin.ts explains why): it is an ownership check on
 * the keys before the write. It applies to app users that no explicit permission lets do the write; the change may
 * not hand the preset to someone else or make it global or role-wide. The write then runs with permission checks
 * lifted (the check above is the permission), under the caller's identity for activity. */
import { resolvePermission } from '../access/permissions.ts';
import type { ServiceContext } from '../context.ts';
import { run } from '../db/database.ts';
import { isPlainObject } from '../plain-object.ts';

export const PRESETS = 'svc_presets';

/** The context to write the caller's own presets with, or null when the usual permission rules apply. */
export async function ownPresetsContext(ctx: ServiceContext, action: 'update' | 'delete', keys: readonly unknown[], data?: unknown): Promise<ServiceContext | null> {
  const acc = ctx.accountability;
  if (acc.admin || !acc.app || !acc.user || acc.share || keys.length === 0) return null;
  if (await resolvePermission(ctx, PRESETS, action)) return null;
  if (action === 'update') {
    if (!isPlainObject(data)) return null;
    if ('role' in data || 'id' in data || ('user' in data && data.user !== acc.user)) return null;
  }
  const ids = keys.map((k) => Number(k));
  if (ids.some((id) => !Number.isSafeInteger(id))) return null;
  const [row] = await run<{ owned: number }>(ctx.db, `select count(*)::int as owned from svc_presets where id = any($1::int[]) and "user" = $2`,
    [[...new Set(ids)], acc.user]);
  if (row.owned !== new Set(ids).size) return null;
  return { ...ctx, accountability: { ...acc, admin: true } };
}
