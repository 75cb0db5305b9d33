/** /roles: Directus' roles endpoints (writes admin-only; reads under permissions). */
import type { Hono } from 'hono';
import { createRole, deleteRole, listRoles, readRole, updateRole } from '../../core/admin/roles.ts';
import type { AppEnv } from '../http/env.ts';
import { mountRecordRoutes } from '../http/record-routes.ts';

export function mountRoleRoutes(app: Hono<AppEnv>): void {
  mountRecordRoutes(app, '/roles', { list: listRoles, read: readRole, create: createRole, update: updateRole, remove: deleteRole });
}
