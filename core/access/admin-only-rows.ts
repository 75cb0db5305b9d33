/** Rows of system collections that only admins read, whatever a policy (or a share's role) grants. A non-admin's
 * read permission on such a collection gets the collection's filter below ANDed in, so every read path (REST,
 * GraphQL, exports, relational joins, aggregates) leaves those rows out, as if they did not exist.
 *
 * svc_notify_logs: direct service mail (invitations, password resets, e-mail verification; core/notify/direct.ts)
 * is logged on the email channel without a template. Its token is already redacted there, but who gets such mail
 * and when is an admin's business only. An email log whose template was deleted since (template_id set null) falls
 * under the same rule. */
import type { Filter } from '../query/types.ts';
import type { PermissionAction, ResolvedPermission } from './permissions.ts';

export const NON_ADMIN_ROWS: Readonly<Record<string, Filter>> = Object.freeze({
  svc_notify_logs: { _or: [{ template_id: { _nnull: true } }, { channel: { _neq: 'email' } }] },
});

/** The permission with the collection's admin-only rows removed from a (non-admin) read. */
export function withoutAdminOnlyRows(collection: string, action: PermissionAction, permission: ResolvedPermission | null): ResolvedPermission | null {
  if (!permission || action !== 'read' || !Object.hasOwn(NON_ADMIN_ROWS, collection)) return permission;
  const limit = NON_ADMIN_ROWS[collection];
  return { ...permission, filter: permission.filter ? { _and: [permission.filter, limit] } : limit };
}
