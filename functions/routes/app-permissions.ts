/** /app-permissions: grant (POST), list/read, change and revoke module permissions (admin); /me for any caller. */
import type { Hono } from 'hono';
import {
  appPermissionsOfCaller, grantAppPermission, listAppPermissions, readAppPermission, revokeAppPermission, updateAppPermission,
} from '../../core/access/app-permissions.ts';
import { readJson } from '../http/body.ts';
import { serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';
import { requestQuery } from './roles.ts';

export function mountAppPermissionRoutes(app: Hono<AppEnv>): void {
  app.get('/app-permissions/me', async (c) => c.json({ data: await appPermissionsOfCaller(await serviceContext(c)) }));

  app.get('/app-permissions', async (c) => c.json(await listAppPermissions(await serviceContext(c), requestQuery(c))));

  app.get('/app-permissions/:id', async (c) => c.json({ data: await readAppPermission(await serviceContext(c), c.req.param('id'), requestQuery(c)) }));

  app.post('/app-permissions', async (c) => {
    const ctx = await serviceContext(c);
    return c.json({ data: await grantAppPermission(c.get('services'), ctx, await readJson(c)) });
  });

  app.patch('/app-permissions/:id', async (c) => {
    const ctx = await serviceContext(c);
    return c.json({ data: await updateAppPermission(c.get('services'), ctx, c.req.param('id'), await readJson(c)) });
  });

  app.delete('/app-permissions/:id', async (c) => {
    await revokeAppPermission(c.get('services'), await serviceContext(c), c.req.param('id'));
    return c.body(null, 204);
  });
}
