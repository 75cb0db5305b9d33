/** /permissions: admin CRUD of permission records, and /permissions/me for any caller. */
import type { Hono } from 'hono';
import {
  createPermission, deletePermission, listPermissions, permissionsOfCaller, readPermission, updatePermission,
} from '../../core/admin/permission-records.ts';
import { serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';
import { mountRecordRoutes } from '../http/record-routes.ts';

export function mountPermissionRoutes(app: Hono<AppEnv>): void {
  // Registered before /permissions/:id so `me` is not taken for an id.
  app.get('/permissions/me', async (c) => c.json({ data: await permissionsOfCaller(await serviceContext(c)) }));
  mountRecordRoutes(app, '/permissions', {
    list: listPermissions, read: readPermission, create: createPermission, update: updatePermission, remove: deletePermission,
  });
}
