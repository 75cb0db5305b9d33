/** /permissions: admin CRUD of permission records, and /permissions/me for any caller. */
import type { Hono } from 'hono';
import {
  createPermission, deletePermission, listPermissions, permissionsOfCaller, readPermission, updatePermission,
} from '../../core/access/permission-records.ts';
import { readJson } from '../http/body.ts';
import { serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';
import { requestQuery } from './roles.ts';

export function mountPermissionRoutes(app: Hono<AppEnv>): void {
  app.get('/permissions/me', async (c) => c.json({ data: await permissionsOfCaller(await serviceContext(c)) }));

  app.get('/permissions', async (c) => c.json(await listPermissions(await serviceContext(c), requestQuery(c))));

  app.get('/permissions/:id', async (c) => c.json({ data: await readPermission(await serviceContext(c), c.req.param('id'), requestQuery(c)) }));

  app.post('/permissions', async (c) => {
    const ctx = await serviceContext(c);
    return c.json({ data: await createPermission(c.get('services'), ctx, await readJson(c)) });
  });

  app.patch('/permissions/:id', async (c) => {
    const ctx = await serviceContext(c);
    return c.json({ data: await updatePermission(c.get('services'), ctx, c.req.param('id'), await readJson(c)) });
  });

  app.delete('/permissions/:id', async (c) => {
    await deletePermission(c.get('services'), await serviceContext(c), c.req.param('id'));
    return c.body(null, 204);
  });
}
