/** /app-permissions: grant (POST), list/read, change and revoke module permissions (admin); /me for any caller. */
import type { Hono } from 'hono';
import { appPermissionsOfCaller } from '../../core/access/app-permissions.ts';
import {
  grantAppPermission, listAppPermissions, readAppPermission, revokeAppPermission, updateAppPermission,
} from '../../core/admin/app-permissions.ts';
import { serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';
import { mountRecordRoutes } from '../http/record-routes.ts';

export function mountAppPermissionRoutes(app: Hono<AppEnv>): void {
  app.get('/app-permissions/me', async (c) => c.json({ data: await appPermissionsOfCaller(await serviceContext(c)) }));
  mountRecordRoutes(app, '/app-permissions', {
    list: listAppPermissions, read: readAppPermission, create: grantAppPermission, update: updateAppPermission, remove: revokeAppPermission,
  });
}
