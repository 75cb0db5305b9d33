/** A user's own in-app notifications: every app user may move their svc_notifications rows between the inbox and the
 * archive, as Directus' app lets them (its minimal app permissions grant update of `status` on rows whose recipient
 * is the user). Row filters bind reads only here (SPEC.md > Permission evaluation 5), so this is not a built-in grant
 * with an own-rows filter (core/access/builtin.ts explains why): the keys are checked to be the caller's before the
 * write, and a query update is narrowed to the caller's rows. Only `status` may change, to `inbox` or `archived`.
 * It applies to app users that no explicit permission lets do the write; the write then runs with permission checks
 * lifted (the check is the permission), under the caller's identity for activity. */
import { resolvePermission } from '../access/permissions.ts';
import type { ServiceContext } from '../context.ts';
import { run } from '../db/database.ts';
import { isPlainObject } from '../plain-object.ts';
import type { Filter, Query } from '../query/types.ts';

export const NOTIFICATIONS = 'svc_notifications';

const STATUSES: readonly unknown[] = ['inbox', 'archived'];

/** Whether the rule may apply to this caller and change at all (not yet whose rows they are). */
async function eligible(ctx: ServiceContext, data: unknown): Promise<boolean> {
  const acc = ctx.accountability;
  if (acc.admin || !acc.app || !acc.user || acc.share) return false;
  if (!isPlainObject(data)) return false;
  const keys = Object.keys(data);
  if (keys.length !== 1 || keys[0] !== 'status' || !STATUSES.includes(data.status)) return false;
  return (await resolvePermission(ctx, NOTIFICATIONS, 'update')) === null;
}

function lifted(ctx: ServiceContext): ServiceContext {
  return { ...ctx, accountability: { ...ctx.accountability, admin: true } };
}

/** The context to write a status change of these notifications with, or null when the usual permission rules apply
 * (not the caller's rows, another change, an explicit permission, not an app user). */
export async function ownNotificationsContext(ctx: ServiceContext, keys: readonly unknown[], data: unknown): Promise<ServiceContext | null> {
  if (keys.length === 0 || !(await eligible(ctx, data))) return null;
  const ids = [...new Set(keys.map((k) => Number(k)))];
  if (ids.some((id) => !Number.isSafeInteger(id))) return null;
  const [row] = await run<{ owned: number }>(ctx.db, 'select count(*)::int as owned from svc_notifications where id = any($1::int[]) and recipient = $2',
    [ids, ctx.accountability.user]);
  return row.owned === ids.length ? lifted(ctx) : null;
}

/** A query update ("archive everything in my inbox") by an app user: the query narrowed to the caller's rows, and
 * the context to write them with; null when the usual permission rules apply. */
export async function ownNotificationsQuery(ctx: ServiceContext, query: Query, data: unknown): Promise<{ ctx: ServiceContext; query: Query } | null> {
  if (!(await eligible(ctx, data))) return null;
  const own: Filter = { recipient: { _eq: ctx.accountability.user } };
  return { ctx: lifted(ctx), query: { ...query, filter: query.filter ? { _and: [query.filter, own] } : own } };
}
