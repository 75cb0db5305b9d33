/** Who may use the notification admin API (SPEC.md > Notification module):
 * - Admin routes (channels, providers): admin_access only.
 * - Settings, layouts, templates, contents: admins, or non-admins holding the matching permission
 *   (read/create/update/delete) on the svc_notify_* collection through the permission system. The check runs
 *   before any validation (a caller without permission learns nothing about the payload rules), and the
 *   items services then apply the same permissions again (row filters, field lists).
 * Reads and writes go through the items services with ctx.system (svc_ collections reachable on their
 * dedicated endpoints), so every write is recorded in svc_activity and svc_revisions like other system writes. */
import type { ServiceContext } from '../context.ts';
import { requirePermission, type PermissionAction } from '../access/permissions.ts';
import { ForbiddenError } from '../errors.ts';
import { systemContext } from '../system/service.ts';

export function requireAdmin(ctx: ServiceContext): void {
  if (!ctx.accountability.admin) throw new ForbiddenError();
}

export async function authorize(ctx: ServiceContext, collection: string, action: PermissionAction): Promise<void> {
  if (ctx.accountability.admin) return;
  await requirePermission(systemContext(ctx), collection, action);
}

export { systemContext as notifyContext };
