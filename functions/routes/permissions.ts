/** /permissions: admin CRUD of permission records, /permissions/me for any caller, and /permissions/as/{user}: what
 * /permissions/me would answer that user (admin only; core/admin/view-as.ts). */
import type { Hono } from 'hono';
import {
  createPermission, deletePermission, listPermissions, permissionsOfCaller, readPermission, updatePermission,
} from '../../core/admin/permission-records.ts';
import { viewAs } from '../../core/admin/view-as.ts';
import { serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';
import { mountRecordRoutes } from '../http/record-routes.ts';

export function mountPermissionRoutes(app: Hono<AppEnv>): void {
  // Registered before /permissions/:id so `me` is not taken for an id.
  app.get('/permissions/me', async (c) => c.json({ data: await permissionsOfCaller(await serviceContext(c)) }));
  app.get('/permissions/as/:user', async (c) => c.json({
    data: await viewAs(c.get('services'), await serviceContext(c), c.req.param('user'), c.req.query('ip')),
  }));
  mountRecordRoutes(app, '/permissions', {
    list: listPermissions, read: readPermission, create: createPermission, update: updatePermission, remove: deletePermission,
  });
}
